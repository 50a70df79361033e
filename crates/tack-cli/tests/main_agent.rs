//! `--agent <name>` and the `agent` setting: the main session runs as one of
//! the agent definitions, as Claude Code's does: the agent's body is the
//! system prompt, its tools the only ones, its model and permission mode the
//! session's unless the flags say otherwise.

use crate::common;

use common::{Env, lines, offered, stderr};
use pretty_assertions::assert_eq;
use serde_json::Value;
use tack_testkit::{Reply, Script};

const REVIEWER: &str = "---\nname: reviewer\ndescription: Reviews diffs.\n\
tools: Read, Grep\nmodel: claude-opus-4-1-20250805\npermissionMode: plan\n---\n\
You review diffs and change nothing.\n";

/// The request's system prompt blocks' texts.
fn system(body: &Value) -> Vec<String> {
    body["system"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

fn write_agent(env: &Env, file: &str, text: &str) {
    let dir = env.cwd().join(".claude/agents");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_main_session_runs_as_the_agent_its_prompt_tools_model_and_mode() {
    let env = Env::new(Script::new([Reply::text("Looks fine.")])).await;
    env.trust();
    write_agent(&env, "reviewer.md", REVIEWER);
    let out = env
        .tack()
        .args(["-p", "review", "--agent", "reviewer"])
        .args(["--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The agent's mode applies in a trusted project, without a warning.
    assert_eq!(stderr(&out), "");
    let records = lines(&out.stdout);
    assert_eq!(records[0]["model"], "claude-opus-4-1-20250805");
    assert_eq!(records[0]["permissionMode"], "plan");
    let body = &env.request_bodies()[0];
    assert_eq!(body["model"], "claude-opus-4-1-20250805");
    assert_eq!(offered(body), ["Read", "Grep"]);
    // The agent's body in place of the default prompt.
    assert_eq!(system(body), ["You review diffs and change nothing."]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_setting_and_the_flags_that_beat_it() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    env.trust();
    write_agent(
        &env,
        "careful.md",
        "---\nname: careful\ndescription: Never runs commands.\ndisallowedTools: Bash, Edit\n\
         model: claude-opus-4-1-20250805\n---\nYou are careful.\n",
    );
    std::fs::write(
        env.cwd().join(".claude/settings.json"),
        r#"{"agent": "careful"}"#,
    )
    .unwrap();
    let out = env
        .tack()
        .args(["-p", "hi", "--model", "claude-sonnet-4-5-20250929"])
        .args(["--tools", "Read,Edit,MultiEdit,Bash,Agent"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // No warning about an unknown `agent` key either.
    assert_eq!(stderr(&out), "");
    let body = &env.request_bodies()[0];
    assert_eq!(body["model"], "claude-sonnet-4-5-20250929");
    // disallowedTools removes Bash, and Edit with MultiEdit; no `tools`
    // keeps the Agent tool.
    assert_eq!(offered(body), ["Read", "Agent"]);
    assert!(system(body).contains(&"You are careful.".to_owned()));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_agent_is_an_error_naming_the_agents_there_are() {
    let env = Env::new(Script::new([])).await;
    write_agent(&env, "reviewer.md", REVIEWER);
    let out = env
        .tack()
        .args(["-p", "hi", "--agent", "nope"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out).trim_end(),
        "Error: --agent: no agent named `nope`; the agents are: Explore, Plan, general-purpose, reviewer"
    );
    assert!(env.request_bodies().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_session_runs_as_the_agent_it_ran_as() {
    let env = Env::new(Script::new([
        Reply::text("Looks fine."),
        Reply::text("Still fine."),
    ]))
    .await;
    env.trust();
    write_agent(&env, "reviewer.md", REVIEWER);
    let id = "5b1f3a52-2d6e-4a43-9a57-0c1f4b6f2a11";
    let out = env
        .tack()
        .args(["-p", "review", "--agent", "reviewer", "--session-id", id])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // Claude Code's record, first in the file, off the conversation's chain.
    let transcript = env.transcripts().pop().unwrap();
    let text = std::fs::read_to_string(&transcript).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        first,
        serde_json::json!({"type": "agent-setting", "agentSetting": "reviewer", "sessionId": id})
    );

    // Resumed without --agent: the reviewer again, its whole conversation.
    let out = env
        .tack()
        .args(["-p", "and again", "--resume", id])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let bodies = env.request_bodies();
    let body = &bodies[1];
    assert_eq!(system(body), ["You review diffs and change nothing."]);
    assert_eq!(offered(body), ["Read", "Grep"]);
    assert_eq!(body["model"], "claude-opus-4-1-20250805");
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
}
