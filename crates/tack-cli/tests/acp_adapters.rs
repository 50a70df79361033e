//! Zed's ACP adapters for Claude Code, the current `claude-agent-acp` and
//! the older `claude-code-acp` (pinned in `.ci/acp/`, installed by
//! `.ci/install-sdks.sh`), run by node with `CLAUDE_CODE_EXECUTABLE`
//! pointing at tack, driven by the same editor's script as `tack acp`
//! (`acp.rs`): prompt an edit, allow it, run Bash, cancel a slow answer.
//! A missing adapter skips the test, and fails it under `TACK_REQUIRE_SDKS`.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::Script;

use crate::acp_client::{
    AcpClient, cancel_slow_prompt, edit_then_bash, init_params, said, slow_answer,
};
use crate::common::{Env, git_repo_with};
use crate::sdk::{sdk_dir, skip};

/// The adapter's entry point, if installed and node is there.
fn adapter(package: &str) -> Result<PathBuf, String> {
    let script = sdk_dir()
        .join("acp/node_modules/@zed-industries")
        .join(package)
        .join("dist/index.js");
    if !script.exists() {
        return Err(format!(
            "{} not found: run .ci/install-sdks.sh",
            script.display()
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Err("node is not on PATH".into());
    }
    Ok(script)
}

fn spawn(env: &Env, script: &PathBuf) -> AcpClient {
    let mut command = Command::new("node");
    command
        .env_clear()
        .envs(env.vars())
        .env(
            "CLAUDE_CODE_EXECUTABLE",
            assert_cmd::cargo::cargo_bin("tack"),
        )
        .current_dir(env.cwd())
        .arg(script);
    AcpClient::spawn(command)
}

fn prompt(text: &str, session: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

/// The editor's script through `package`.
async fn edit_bash_cancel(package: &str) {
    let script = match adapter(package) {
        Ok(script) => script,
        Err(reason) => return skip(&reason),
    };
    let env = Env::new(Script::new([])).await;
    git_repo_with(&env.cwd(), "a.txt", "hello\n");
    for reply in edit_then_bash(&env.cwd()) {
        env.server.push(reply);
    }
    env.server.push(slow_answer());
    let mut client = spawn(&env, &script);
    let init = init_params(false, false);
    let (initialized, _) = client.call("initialize", init);
    assert_eq!(initialized["protocolVersion"], 1);
    let (opened, _) = client.call("session/new", json!({"cwd": env.cwd(), "mcpServers": []}));
    let session = opened["sessionId"].as_str().unwrap().to_owned();

    let (answer, heard) = client.call("session/prompt", prompt("change hello to bye", &session));
    assert_eq!(answer["stopReason"], "end_turn", "{heard:#?}");
    assert_eq!(
        said(&heard.updates, "agent_message_chunk"),
        "Editing it.Done."
    );
    let asked: Vec<Value> = heard
        .requests
        .iter()
        .map(|r| json!([r["method"], r["params"]["toolCall"]["toolCallId"]]))
        .collect();
    assert_eq!(
        asked,
        vec![
            json!(["session/request_permission", "toolu_edit"]),
            json!(["session/request_permission", "toolu_bash"]),
        ]
    );
    let ended: Vec<(String, String)> = heard
        .updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "tool_call_update" && u.get("status").is_some())
        .map(|u| {
            let id = u["toolCallId"].as_str().unwrap_or_default().to_owned();
            (id, u["status"].as_str().unwrap_or_default().to_owned())
        })
        .collect();
    let completed = |id: &str| (id.to_owned(), "completed".to_owned());
    assert_eq!(ended, [completed("toolu_edit"), completed("toolu_bash")]);
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("a.txt")).unwrap(),
        "bye\n"
    );
    assert!(env.cwd().join("made.txt").exists());

    let (answer, took) = cancel_slow_prompt(&mut client, &session);
    assert_eq!(answer["result"]["stopReason"], "cancelled", "{answer}");
    println!("{package}: cancel answered in {took:?}");
    assert!(took < Duration::from_secs(5), "cancel took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_agent_acp_runs_tack() {
    edit_bash_cancel("claude-agent-acp").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_acp_runs_tack() {
    edit_bash_cancel("claude-code-acp").await;
}

/// The older adapter, for an editor with a file system, turns tack's
/// Write and Edit off so that edits go through the editor: MultiEdit must
/// go with them, or the model writes behind the editor's back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_acp_leaves_no_tool_that_edits_behind_the_editor() {
    let script = match adapter("claude-code-acp") {
        Ok(script) => script,
        Err(reason) => return skip(&reason),
    };
    let env = Env::new(Script::new([tack_testkit::Reply::text("Hi.")])).await;
    let mut client = spawn(&env, &script);
    let init = init_params(true, true);
    client.call("initialize", init);
    let (opened, _) = client.call("session/new", json!({"cwd": env.cwd(), "mcpServers": []}));
    let session = opened["sessionId"].as_str().unwrap().to_owned();
    let (answer, _) = client.call("session/prompt", prompt("hi", &session));
    assert_eq!(answer["stopReason"], "end_turn");
    let bodies = env.request_bodies();
    let offered: Vec<&str> = bodies.last().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    let editing: Vec<&str> = offered
        .iter()
        .copied()
        .filter(|name| ["Read", "Write", "Edit", "MultiEdit"].contains(name))
        .collect();
    assert_eq!(editing, Vec::<&str>::new(), "{offered:?}");
    // The adapter's own tools over the editor's files took their place.
    assert!(offered.contains(&"mcp__acp__Edit"), "{offered:?}");
}
