//! The session's config options as the adapter offers them
//! (`configOptions` in the answers that open a session,
//! `session/set_config_option`, `config_option_update`): its permission mode
//! and its model, two selects. The model's choices are the ones an SDK host's
//! `set_model` takes (`tack_runtime::model_choices`); a new model applies
//! from the next turn.

use agent_client_protocol::v1::schema::{SessionConfigOption, SessionModeState};
use serde_json::{Value, json};

/// The options, with `modes` (current one included) and `model` chosen;
/// `session_model` is the model the session started with (`default`).
pub fn options(
    modes: &SessionModeState,
    model: &str,
    session_model: &str,
) -> Vec<SessionConfigOption> {
    let modes_offered: Vec<Value> = (modes.available_modes.iter())
        .map(|m| json!({"value": m.id.0, "name": m.name, "description": m.description}))
        .collect();
    let models: Vec<Value> = tack_runtime::model_choices(session_model)
        .into_iter()
        .map(|m| json!({"value": m.value, "name": m.display_name, "description": m.description}))
        .collect();
    let options = json!([
        {"id": "mode", "name": "Mode", "description": "Session permission mode",
         "category": "mode", "type": "select",
         "currentValue": modes.current_mode_id.0, "options": modes_offered},
        {"id": "model", "name": "Model", "description": "AI model to use",
         "category": "model", "type": "select", "currentValue": model, "options": models},
    ]);
    serde_json::from_value(options).unwrap_or_else(|e| {
        eprintln!("tack acp: config options the schema refuses: {e}");
        Vec::new()
    })
}

/// Whether `value` is one of the model option's choices.
pub fn is_model(value: &str, session_model: &str) -> bool {
    tack_runtime::model_choices(session_model)
        .iter()
        .any(|m| m.value == value)
}
