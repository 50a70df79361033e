//! The models a session can be switched to, as a host's model picker lists
//! them (the SDKs' `initialize` answer, an editor's model option over ACP).

use tack_protocol::control::ModelInfo;

/// `default` (the session's model), the aliases, then every model tack knows.
pub fn model_choices(session_model: &str) -> Vec<ModelInfo> {
    let entry =
        |value: &str, display: &str, description: String, resolved: Option<String>| ModelInfo {
            value: value.to_owned(),
            display_name: display.to_owned(),
            description,
            resolved_model: resolved,
            extra: Default::default(),
        };
    let mut models = vec![entry(
        "default",
        "Default",
        format!("This session's model ({session_model})"),
        Some(session_model.to_owned()),
    )];
    for alias in ["sonnet", "opus", "haiku"] {
        let id = crate::model::resolve_model(alias);
        let display = format!("{}{}", alias[..1].to_uppercase(), &alias[1..]);
        models.push(entry(
            alias,
            &display,
            format!("Latest {display}: {id}"),
            Some(id),
        ));
    }
    for info in tack_api::known_models() {
        let limits = format!(
            "{}k context, {}k output",
            info.context_window / 1000,
            info.max_output_tokens / 1000
        );
        models.push(entry(info.id, info.id, limits, None));
    }
    models
}
