//! The `mcp_tool` and `agent` hook handlers end to end: the real binary, a
//! real MCP server (tack-mcp's rmcp fixture), the scripted model, and what
//! the model was sent.

use crate::common;

use crate::hook_events::project;
use common::{last_tool_results, request_tool, stderr, write};
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_tool_hook_calls_the_server_with_the_input_and_its_answer_denies() {
    let Some(fixture) = crate::mcp::fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "touch x"}))
            .into(),
        Reply::text("Denied."),
    ]);
    // The fixture's `echo` gives its text back: the hook's answer is a
    // decision naming the command it was asked about.
    let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy forbids `${tool_input.command}` in ${cwd}"}}"#;
    let env = project(
        script,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "mcp_tool", "server": "policy", "tool": "echo", "input": {"text": deny}}]}]}}),
    )
    .await;
    let config =
        json!({"mcpServers": {"policy": {"command": fixture, "args": ["--name", "policy"]}}})
            .to_string();
    let out = env
        .tack()
        .args(["-p", "go", "--dangerously-skip-permissions"])
        .args(["--mcp-config", &config])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!env.cwd().join("x").exists(), "the hook did not deny");
    let cwd = env.cwd();
    assert_eq!(
        last_tool_results(&env.request_bodies()[1]),
        vec![(
            "b1".to_owned(),
            format!(
                "PreToolUse hook denied this tool call: policy forbids `touch x` in {}",
                cwd.display()
            )
        )]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_tool_hook_whose_server_is_missing_is_a_non_blocking_error() {
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "touch x"}))
            .into(),
        Reply::text("Ran."),
    ]);
    let env = project(
        script,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "mcp_tool", "server": "nowhere", "tool": "check"}]}]}}),
    )
    .await;
    let out = env
        .tack()
        .args(["-p", "go", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env.cwd().join("x").exists(), "the call should have run");
    let err = stderr(&out);
    assert!(
        err.contains("mcp__nowhere__check") && err.contains("not connected"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_hook_reads_the_project_and_its_no_denies_the_call() {
    let script = Script::new([
        Reply::message()
            .tool_use("b1", "Bash", json!({"command": "touch x"}))
            .into(),
        // The hook's agent: reads the policy, then answers.
        Reply::message()
            .tool_use("r1", "Read", json!({"file_path": "POLICY.md"}))
            .into(),
        Reply::message()
            .tool_use(
                "a1",
                "StructuredOutput",
                json!({"ok": false, "reason": "POLICY.md forbids touching x"}),
            )
            .into(),
        Reply::text("Denied."),
    ]);
    let env = project(
        script,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "agent", "prompt": "Does this call follow POLICY.md? $ARGUMENTS"}]}]}}),
    )
    .await;
    write(env.cwd().join("POLICY.md"), "Never touch x.\n");
    let out = env
        .tack()
        .args(["-p", "go", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!env.cwd().join("x").exists(), "the hook did not deny");
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 4, "{bodies:#?}");
    let agent = &bodies[1];
    assert!(
        agent["model"].as_str().unwrap().contains("haiku"),
        "{agent}"
    );
    let system = agent["system"].to_string();
    assert!(system.contains("You are verifying a condition"), "{system}");
    let names: Vec<&str> = agent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Read", "Glob", "Grep", "StructuredOutput"]);
    assert_eq!(
        request_tool(agent, "StructuredOutput")["input_schema"]["required"],
        json!(["ok"])
    );
    let asked = agent["messages"][0]["content"].to_string();
    assert!(
        asked.contains("Does this call follow POLICY.md? {") && asked.contains("touch x"),
        "{asked}"
    );
    let read = last_tool_results(&bodies[2]);
    assert!(read[0].1.contains("Never touch x."), "{read:?}");
    assert_eq!(
        last_tool_results(&bodies[3]),
        vec![(
            "b1".to_owned(),
            "PreToolUse hook denied this tool call: POLICY.md forbids touching x".to_owned()
        )]
    );
}
