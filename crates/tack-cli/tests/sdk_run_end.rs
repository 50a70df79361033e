//! How a one-shot SDK run ends (issue 21; the Python SDK's #1190), driven
//! through the pinned SDK (`tests/sdk/run_end.py`) against tack and the
//! scripted model server: `end_user_input` tells tack no further user message
//! is coming, and tack then ends the run itself once the prompt's turns (and
//! the turns background agents' ends wake) have run, with stdin still open for
//! their hooks.
//!
//! The SDK comes from `.ci/install-sdks.sh` (under `target/sdk`, or
//! `$TACK_SDK_DIR`); without it a test prints why and passes, or fails
//! under `TACK_REQUIRE_SDKS` (`crate::sdk::skip`).

use crate::common;
use crate::sdk_e2e::{background_script, drive_file};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// After the declaration, the prompt's turn starts a background agent and
/// ends, its result held until the agent's end (as Claude Code holds it);
/// that end wakes a second turn, whose Write hook the SDK still
/// answers; then tack closes stdout by itself (the client never closes stdin:
/// without the declaration the driver would wait for ever).
#[tokio::test]
async fn a_declared_end_of_input_ends_the_run_after_the_woken_turn() {
    let env = background_script().await;
    let Some(observations) = drive_file("run_end.py", "declared", &env, &[]).await else {
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
            // The first turn's result waits for the agent it started.
            "order": ["task_started", "task_updated", "task_notification", "result", "result"],
            "system": [
                "background_tasks_changed", "background_tasks_changed", "init",
                "task_notification", "task_started", "task_updated",
            ],
            "hook_asked": ["Write"],
            "out_txt": "DONE",
        })
    );
    assert_eq!(env.request_bodies().len(), 5);
}

/// With nothing for the SDK to answer it closes stdin right after the
/// prompt: the declaration still makes tack wait for the background agent
/// and run the turn its end wakes (without it tack would stop at the first
/// result, the agent abandoned).
#[tokio::test]
async fn a_declared_run_with_stdin_closed_still_runs_the_woken_turn() {
    let env = background_script().await;
    let Some(observations) = drive_file("run_end.py", "declared_then_closed", &env, &[]).await
    else {
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
    let Some(observations) = drive_file("run_end.py", "alone", &env, &[]).await else {
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
    let Some(observations) = drive_file("run_end.py", "hook_only", &env, &[]).await else {
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

/// Without the declaration, as the suite's follow-up test runs it: a Write
/// hook that grants the call (no allow rule), the woken turn's Write served
/// after the first result because the SDK keeps stdin open until tack says the
/// session is idle. The SDK asks for those frames itself (`sdk_host_only`,
/// hidden from the caller) unless the caller opted in (then shown, unmarked).
#[tokio::test]
async fn a_granting_hook_serves_the_woken_turns_write_with_state_frames() {
    // The first run's replies, then the second's (the caller opted in).
    let env = background_script().await;
    let write = json!({"file_path": env.cwd().join("out.txt"), "content": "DONE"});
    for reply in [
        Reply::tool_use(
            "toolu_a2",
            "Agent",
            json!({"subagent_type": "worker",
            "description": "say done", "prompt": "Say DONE.", "run_in_background": true}),
        ),
        Reply::text("DONE"),
        Reply::text("DONE"),
        Reply::tool_use("toolu_w2", "Write", write),
        Reply::text("FINISHED"),
    ] {
        env.server.push(reply);
    }
    let Some(observations) = drive_file("run_end.py", "follow_up", &env, &[]).await else {
        return;
    };
    let states = |host_only: Option<bool>| {
        let frame = |state: &str| json!({"state": state, "sdk_host_only": host_only});
        // Running from the prompt until no agent's end is owed: through both turns.
        json!([frame("running"), frame("idle")])
    };
    let run = |caller_states: Value, wire_states: Value| {
        json!({
            "results": [
                {"is_error": false, "num_turns": 2, "result": "DONE"},
                {"is_error": false, "num_turns": 2, "result": "FINISHED"},
            ],
            "tool_uses_and_results": ["tool_use:Agent", "result", "tool_use:Write", "result"],
            "caller_states": caller_states,
            "wire_states": wire_states,
            "hook_asked": ["Write"],
            "out_txt": "DONE",
        })
    };
    assert_eq!(
        observations,
        json!({
            "sdk": run(json!([]), states(Some(true))),
            "caller": run(states(None), states(None)),
        })
    );
}
