//! How a one-shot SDK run ends (issue 21; the Python SDK's #1190), driven
//! through the pinned SDK (`tests/sdk/run_end.py`) against tack and the
//! scripted model server: `end_user_input` tells tack no further user message
//! is coming, and tack then ends the run itself once the prompt's turns (and
//! the turns background agents' ends wake) have run, with stdin still open for
//! their hooks.
//!
//! The SDK comes from `.ci/install-sdks.sh` (under `target/sdk`, or
//! `$TACK_SDK_DIR`); without it a test prints why and passes.

use crate::common;
use crate::sdk_e2e::{background_script, drive_file};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

/// After the declaration, the prompt's turn starts a background agent and
/// ends; the agent's end wakes a second turn, whose Write hook the SDK still
/// answers; then tack closes stdout by itself (the client never closes stdin:
/// without the declaration the driver would wait for ever).
#[tokio::test]
async fn a_declared_end_of_input_ends_the_run_after_the_woken_turn() {
    let env = background_script().await;
    let Some(observations) = drive_file("run_end.py", "declared", &env).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({
            "reply": {},
            "results": [
                {"is_error": false, "num_turns": 2, "result": "DONE"},
                {"is_error": false, "num_turns": 2, "result": "FINISHED"},
            ],
            "system": ["init", "task_notification", "task_started"],
            "hook_asked": ["Write"],
            "out_txt": "DONE",
        })
    );
    assert_eq!(env.request_bodies().len(), 5);
}

/// The declaration before any prompt is answered, and ends nothing yet: the
/// session waits for the prompt (here stdin's end).
#[tokio::test]
async fn a_declaration_before_any_prompt_is_answered_and_waits() {
    let env = Env::new(Script::new([])).await;
    let Some(observations) = drive_file("run_end.py", "alone", &env).await else {
        return;
    };
    assert_eq!(observations, json!({"reply": {}}));
    assert_eq!(env.request_bodies().len(), 0);
}

/// A plain `query()` with a hook (the pinned SDK sends no declaration): one
/// result, and the session-state frames the SDK asked for stay out of the
/// caller's stream.
#[tokio::test]
async fn a_hooked_string_prompt_ends_with_one_result() {
    let env = Env::new(Script::new([Reply::text("OK")])).await;
    let Some(observations) = drive_file("run_end.py", "hook_only", &env).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({
            "results": [{"is_error": false, "num_turns": 1, "result": "OK"}],
            "system": ["init"],
            "hook_asked": [],
        })
    );
}
