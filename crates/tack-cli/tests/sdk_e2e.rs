//! What the Python Agent SDK's own end-to-end suite checks of the CLI (issue
//! 21), driven through the pinned SDK (`tests/sdk/e2e.py`) against tack and the
//! scripted model server: each test asserts on the one JSON line of
//! observations the driver prints, and on the requests the server saw.
//!
//! The SDK comes from `.ci/install-sdks.sh` (under `target/sdk`, or
//! `$TACK_SDK_DIR`); without it a test prints why and passes, or fails
//! under `TACK_REQUIRE_SDKS` (`crate::sdk::skip`).

use crate::common;

use std::path::{Path, PathBuf};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

fn python() -> Option<PathBuf> {
    let program = crate::sdk::sdk_dir().join("py/bin/python");
    if !program.exists() {
        let reason = format!("{} not found: run .ci/install-sdks.sh", program.display());
        crate::sdk::skip(&reason);
        return None;
    }
    Some(program)
}

/// Runs `scenario` of `e2e.py` in `env`'s project; its observations, or
/// `None` when the SDK is not installed.
pub(crate) async fn drive(scenario: &str, env: &Env) -> Option<Value> {
    drive_file("e2e.py", scenario, env, &[]).await
}

/// Runs `scenario` of the driver `file` (in `tests/sdk/`, taking the
/// scenario and tack's path) in `env`'s project, with `extra_env` too; its
/// observations, or `None` when the SDK is not installed.
pub(crate) async fn drive_file(
    file: &str,
    scenario: &str,
    env: &Env,
    extra_env: &[(&str, &Path)],
) -> Option<Value> {
    let program = python()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sdk")
        .join(file);
    let args = [
        script.as_os_str(),
        scenario.as_ref(),
        env!("CARGO_BIN_EXE_tack").as_ref(),
    ];
    let mut report = crate::sdk::run_driver(file, &program, &args, env, extra_env).await;
    assert_eq!(report.get("error"), None, "{report:#}");
    Some(report["observations"].take())
}

/// `setting_sources` decides which levels' commands load, and `system/init`
/// names the style `outputStyle` gives even when no such style exists. The
/// SDK passes no flag when it is omitted: every level loads, as Claude Code's
/// CLI loads them (the suite's default-sources test dates from SDKs that
/// passed an empty flag then, which loads none).
#[tokio::test]
async fn setting_sources_gate_commands_and_init_names_the_configured_style() {
    let replies = [
        Reply::text("4"),
        Reply::text("4"),
        Reply::text("4"),
        Reply::text("4"),
    ];
    let env = Env::new(Script::new(replies)).await;
    let Some(observations) = drive("setting_sources", &env).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({
            "user": {"output_style": "default", "slash_commands": ["clear", "compact", "init"]},
            "all": {"output_style": "local-test-style", "slash_commands": ["clear", "compact", "init", "testcmd"]},
            "none": {"output_style": "default", "slash_commands": ["clear", "compact", "init"]},
            "omitted": {"output_style": "local-test-style", "slash_commands": ["clear", "compact", "init", "testcmd"]},
        })
    );
}

/// A PreToolUse hook's `defer` ends the run with the call pending
/// (`stop_reason: "tool_deferred"`, `deferred_tool_use`); resuming the session
/// with no prompt runs the call again, PreToolUse hooks first, and a deny
/// keeps it from running. Through `query()` and through the client.
#[tokio::test]
async fn a_deferred_call_waits_for_the_resumed_sessions_hooks() {
    let env = Env::new(Script::new([])).await;
    let marker = env.cwd().join("executed.txt");
    let bash = json!({"command": format!("echo resumed > {}", marker.display())});
    for _ in ["query", "client"] {
        env.server
            .push(Reply::tool_use("toolu_b1", "Bash", bash.clone()));
        env.server.push(Reply::text("It was denied."));
    }
    let Some(observations) = drive("defer", &env).await else {
        return;
    };
    let run = json!({
        "deferred": {
            "is_error": false, "num_turns": 1, "result": "",
            "stop_reason": "tool_deferred", "terminal_reason": "tool_deferred",
            "deferred_tool_use": {"id": "toolu_b1", "name": "Bash", "input": bash},
        },
        "resumed": {
            "is_error": false, "num_turns": 1, "result": "It was denied.",
            "stop_reason": "end_turn", "terminal_reason": "completed",
            "deferred_tool_use": null,
        },
        "same_session": true,
        "hook_calls": [
            {"verdict": "defer", "tool_use_id": "toolu_b1"},
            {"verdict": "deny", "tool_use_id": "toolu_b1"},
        ],
        "marker_exists": false,
        "kept_in_config_dir": true,
    });
    assert_eq!(observations, json!({"query": run, "client": run}));
    // The resumed request sends the call once, answered by the denial.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 4);
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    let mut denied = messages[2]["content"][0].clone();
    denied.as_object_mut().unwrap().remove("cache_control");
    assert_eq!(
        denied,
        json!({
            "type": "tool_result", "tool_use_id": "toolu_b1", "is_error": true,
            "content": "PreToolUse hook denied this tool call: Approval was denied",
        })
    );
}

/// The model starts the `worker` agent in the background and ends its turn
/// ("DONE"); the agent answers "DONE"; its end wakes a turn that writes
/// `out.txt` and answers "FINISHED".
pub(crate) async fn background_script() -> Env {
    let env = Env::new(Script::new([])).await;
    let agent = json!({"subagent_type": "worker", "description": "say done",
                       "prompt": "Say DONE.", "run_in_background": true});
    let write = json!({"file_path": env.cwd().join("out.txt"), "content": "DONE"});
    env.server.push(Reply::tool_use("toolu_a1", "Agent", agent));
    // The parent's answer and the agent's, in either order.
    env.server.push(Reply::text("DONE"));
    env.server.push(Reply::text("DONE"));
    env.server.push(Reply::tool_use("toolu_w1", "Write", write));
    env.server.push(Reply::text("FINISHED"));
    env
}

/// A background agent's end wakes the session for a turn of its own (a
/// `<task-notification>` message), and the SDK's `query()` keeps stdin open
/// for it (`task_started` / `task_notification` frames, and
/// `session_state_changed` kept from the caller): the second turn's Write
/// hook is served.
#[tokio::test]
async fn a_background_agents_end_wakes_a_turn_whose_hooks_are_served() {
    let env = background_script().await;
    let Some(observations) = drive("background", &env).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({
            "results": [
                {"is_error": false, "result": "DONE"},
                {"is_error": false, "result": "FINISHED"},
            ],
            "system": [
                "background_tasks_changed", "background_tasks_changed", "init",
                "task_notification", "task_started", "task_updated",
            ],
            "hook_asked": ["Write"],
            "out_txt": "DONE",
        })
    );
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 5);
    let woken = bodies[3]["messages"].as_array().unwrap().last().unwrap();
    let text = woken["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("<task-notification>\n<task-id>a")
            && text.ends_with(
                "</task-id>\n<status>completed</status>\n<summary>Agent \"say done\" \
                 completed</summary>\n<result>DONE</result>\n</task-notification>"
            ),
        "{text}"
    );
}

/// `@/abs/path` outside the project is attached with no tools at all (the
/// user typed it: no tool call), recorded as Claude Code records it; with
/// `verbatim_prompts` (through `query()` and the client) nothing is attached
/// and the model gets the prompt as written.
#[tokio::test]
async fn an_outside_mention_is_attached_unless_the_prompt_is_verbatim() {
    let replies = [Reply::text("A"), Reply::text("B"), Reply::text("C")];
    let env = Env::new(Script::new(replies)).await;
    let Some(observations) = drive("verbatim", &env).await else {
        return;
    };
    let file = PathBuf::from(observations["file"].as_str().unwrap());
    let content = "The marker is MARKER-1234.\n";
    let shown = file.display().to_string();
    assert_eq!(
        observations,
        json!({
            "file": shown,
            "expanded": [crate::mentions::file_attachment(&file, &shown, content)],
            "query_verbatim": [],
            "client_verbatim": [],
        })
    );
    let prompt = format!("What marker does this file contain? @{shown}");
    let [call, result] = crate::mentions::read_blocks(&file, "1\tThe marker is MARKER-1234.\n");
    let bodies = env.request_bodies();
    let sent: Vec<Value> = bodies.iter().map(crate::mentions::prompt_blocks).collect();
    let plain = json!([{"type": "text", "text": prompt}]);
    assert_eq!(
        sent,
        [
            json!([{"type": "text", "text": prompt}, call, result]),
            plain.clone(),
            plain
        ]
    );
    for body in &bodies {
        assert_eq!(body.get("tools"), None, "{body:#}");
    }
}
