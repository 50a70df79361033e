//! The Agent SDK features newer than the pinned SDKs' own options (issue 21),
//! driven through the pinned SDKs: what the newest SDK sends (an initialize
//! field, a flag) is passed the way it would be.

use crate::common;

use std::path::{Path, PathBuf};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::sdk::{drive, drive_with, typescript};
use crate::sdk_e2e::drive as e2e;

/// `sdkMcpServerConfigs`: the host's per-tool policies win over
/// `allowedTools` (always_ask asks `canUseTool`, always_deny keeps the tool
/// from the model), and its timeout ends a call the server does not answer
/// in time.
#[tokio::test(flavor = "multi_thread")]
async fn typescript_sdk_server_configs_ask_deny_and_time_out() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "mcp__calc__secret", json!({})),
        Reply::tool_use("t2", "mcp__calc__wipe", json!({})),
        Reply::tool_use("t3", "mcp__calc__add", json!({"a": 2, "b": 3})),
        Reply::text("Done."),
    ]))
    .await;
    let Some(report) = drive(&typescript(), "sdk_mcp_policy", &env).await else {
        return;
    };
    let timed_out = "<tool_use_error>mcp__calc__add timed out after 1s (the server's timeout); the server was asked to cancel it</tool_use_error>";
    assert_eq!(
        report["observations"],
        json!({
            "asked": ["mcp__calc__secret"],
            "calls": [["secret", {}], ["add", {"a": 2, "b": 3}]],
            "mcp_servers": [{"name": "calc", "status": "connected"}],
            "mcp_tools": ["mcp__calc__add", "mcp__calc__divide", "mcp__calc__chart", "mcp__calc__secret"],
            "tool_results": [
                {"tool_use_id": "t1", "is_error": null, "content": "the secret"},
                {"tool_use_id": "t2", "is_error": true,
                 "content": "<tool_use_error>Error: No such tool available: mcp__calc__wipe</tool_use_error>"},
                {"tool_use_id": "t3", "is_error": true, "content": timed_out},
            ],
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 4, "result": "Done.",
                "terminal_reason": "completed", "permission_denials": [],
            },
        })
    );
}

/// Every file under `dir` whose text names `needle`.
fn files_naming(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_naming(&path, needle));
        } else if std::fs::read(&path).is_ok_and(|b| String::from_utf8_lossy(&b).contains(needle)) {
            found.push(path);
        }
    }
    found
}

/// `persist_session=False` (`--no-session-persistence`): the session answers,
/// no file anywhere names it, the SDK's `list_sessions` does not list it,
/// and resuming it fails with a message naming it; a persisted session in
/// the same project is listed.
#[tokio::test(flavor = "multi_thread")]
async fn python_no_session_persistence_writes_nothing_and_cannot_be_resumed() {
    let env = Env::new(Script::new([
        Reply::text("OK"),
        Reply::text("OK"),
        Reply::text("OK"),
    ]))
    .await;
    let Some(mut observations) = e2e("persist", &env).await else {
        return;
    };
    let ids: Vec<String> = serde_json::from_value(observations["ids"].take()).unwrap();
    for id in &ids[1..] {
        assert_eq!(files_naming(env.home.path(), id), Vec::<PathBuf>::new());
        assert_eq!(files_naming(&env.cwd(), id), Vec::<PathBuf>::new());
    }
    assert_eq!(files_naming(&env.claude_dir(), &ids[0]).len(), 1);
    assert_eq!(
        observations,
        json!({
            "results": ["OK", "OK", "OK"],
            "listed": {"kept": true, "query": false, "client": false, "count": 1},
            "ids": null,
            "resume": {
                "raised": "Exception",
                "message": format!("no session `{}` in this directory; recent sessions:", ids[1]),
            },
        })
    );
    assert_eq!(env.request_bodies().len(), 3);
}

/// `permission_prompts="none"` (`--permission-prompts none`, with the
/// Python SDK's `--permission-prompt-tool stdio` when a callback is set): a
/// Write that would prompt is denied without asking `can_use_tool`, and the
/// session answers; without it the callback is asked and the file written.
#[tokio::test(flavor = "multi_thread")]
async fn python_permission_prompts_none_denies_without_asking_the_host() {
    let env = Env::new(Script::new([])).await;
    for folder in ["host", "client", "query"] {
        let input = json!({"file_path": env.cwd().join(folder).join("out.txt"), "content": "hi"});
        env.server.push(Reply::tool_use("toolu_w", "Write", input));
        env.server.push(Reply::text("DENIED"));
    }
    let Some(observations) = e2e("prompts", &env).await else {
        return;
    };
    let run = |asked: &[&str], written: bool| {
        json!({
            "asked": asked,
            "written": written,
            "is_error": false,
            "result": "DENIED",
            "denials": if written { json!([]) } else { json!(["Write"]) },
        })
    };
    assert_eq!(
        observations,
        json!({
            "host": run(&["Write"], true),
            "client": run(&[], false),
            "query": run(&[], false),
        })
    );
    let denied = "Write requires approval (no permission prompt available)";
    let bodies = env.request_bodies();
    for body in [&bodies[3], &bodies[5]] {
        let last = body["messages"].as_array().unwrap().last().unwrap();
        assert_eq!(last["content"][0]["content"], json!(denied));
    }
}

/// What the SDKs read off assistant and result records: the API message id
/// (`msg_…`), usage, stop reason, session and uuid; per-model usage with
/// cost that sums to the total, `permission_denials`, uuid. The same with
/// partial messages.
#[tokio::test(flavor = "multi_thread")]
async fn python_message_fields_the_newer_parser_reads() {
    let env = Env::new(Script::new([Reply::text("hi"), Reply::text("hi")])).await;
    let Some(observations) = e2e("message_fields", &env).await else {
        return;
    };
    let fields = |id: &str| {
        json!({
            "assistant": {
                "id": id, "model": "claude-sonnet-4-5", "same_session": true,
                // As Claude Code's stream-json has it: the stop reason comes
                // after the content, on the result.
                "stop_reason": null, "uuid": true,
                "usage": ["cache_creation", "cache_creation_input_tokens",
                          "cache_read_input_tokens", "input_tokens", "output_tokens",
                          "service_tier"],
            },
            "result": {
                "cost_is_the_sum": true,
                "model_usage": {"claude-sonnet-4-5": [
                    "cacheCreationInputTokens", "cacheReadInputTokens", "contextWindow",
                    "costUSD", "inputTokens", "maxOutputTokens", "outputTokens",
                    "webSearchRequests"]},
                "permission_denials": [],
                "uuid": true,
            },
        })
    };
    assert_eq!(
        observations,
        json!({"plain": fields("msg_mock_1"), "partial": fields("msg_mock_2")})
    );
}

/// The SDK e2e suite's hook tests (test_hook_events, test_new_hooks): SDK
/// callbacks for PreToolUse, PostToolUse, Notification and SessionStart, alone
/// and together, with the context they add reaching the model.
#[tokio::test(flavor = "multi_thread")]
async fn python_hook_callbacks_as_the_sdk_suite_registers_them() {
    let env = Env::new(Script::new([])).await;
    for (id, word) in [("toolu_pre", "pre"), ("toolu_post", "post")] {
        env.server.push(Reply::tool_use(
            id,
            "Bash",
            json!({"command": format!("echo {word}")}),
        ));
        env.server.push(Reply::text("Ran."));
    }
    env.server.push(Reply::text("Hello."));
    env.server.push(Reply::text("Hello."));
    env.server.push(Reply::tool_use(
        "toolu_all",
        "Bash",
        json!({"command": "echo all"}),
    ));
    env.server.push(Reply::text("Ran."));
    let Some(observations) = e2e("hooks", &env).await else {
        return;
    };
    let call = |event: &str, tool_use_id: Option<&str>| {
        let tool = tool_use_id.map(|_| "Bash");
        let source = (event == "SessionStart").then_some("startup");
        json!({"event": event, "tool_name": tool, "tool_use_id": tool_use_id,
               "source": source, "notification_type": null})
    };
    let run = |calls: Vec<Value>, result: &str| json!({"calls": calls, "is_error": false, "result": result});
    assert_eq!(
        observations,
        json!({
            "pre": run(vec![call("PreToolUse", Some("toolu_pre"))], "Ran."),
            "post": run(vec![call("PostToolUse", Some("toolu_post"))], "Ran."),
            // Nothing in these sessions notifies (no prompt waits, no idle).
            "notification": run(vec![], "Hello."),
            "session_start": run(vec![call("SessionStart", None)], "Hello."),
            "together": run(vec![
                call("SessionStart", None),
                call("PreToolUse", Some("toolu_all")),
                call("PostToolUse", Some("toolu_all")),
            ], "Ran."),
        })
    );
    // What the hooks added is in the next request to the model.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 8);
    let result = |i: usize| {
        let last = bodies[i]["messages"].as_array().unwrap().last().unwrap();
        last["content"][0]["content"].clone()
    };
    let reminded = |out: &str, context: &str| {
        json!(format!(
            "{out}\n\n<system-reminder>\n{context}\n</system-reminder>"
        ))
    };
    assert_eq!(result(1), reminded("pre", "PRE-CONTEXT"));
    assert_eq!(result(3), reminded("post", "POST-CONTEXT"));
    assert_eq!(result(7), json!("all"));
    let sent = bodies[5]["messages"].to_string();
    assert!(sent.contains("SESSION-CONTEXT"), "{sent}");
}

/// `setPermissionMode` resolves with the mode now in effect (the TypeScript
/// SDK 0.3.332 returns the answer's `mode`).
#[tokio::test(flavor = "multi_thread")]
async fn typescript_set_permission_mode_answers_the_mode_in_effect() {
    let env = Env::new(Script::new([Reply::text("Hello.")])).await;
    let Some(report) = drive(&typescript(), "set_mode", &env).await else {
        return;
    };
    assert_eq!(
        report["observations"],
        json!({"answer": {"mode": "acceptEdits"}, "init_mode": "acceptEdits"})
    );
}

/// `setMcpServers`, `toggleMcpServer` and `reconnectMcpServer` change a
/// running session's servers: a server added between turns is offered and
/// called in the next one; an unknown name is an error; an empty set removes
/// what the calls added.
#[tokio::test(flavor = "multi_thread")]
async fn typescript_sdk_changes_mcp_servers_while_the_session_runs() {
    let Some(fixture) = crate::mcp::fixture() else {
        crate::sdk::skip("tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([
        Reply::text("one"),
        Reply::tool_use("t1", "mcp__fx__echo", json!({"text": "hi"})),
        Reply::text("two"),
    ]))
    .await;
    let extra = [("TACK_MCP_FIXTURE", fixture.as_path())];
    let Some(report) = drive_with(&typescript(), "mcp_control", &env, &extra).await else {
        return;
    };
    let fx = |status: &str| json!([["fx", status]]);
    assert_eq!(
        report["observations"],
        json!({
            "set": {"added": ["fx"], "removed": [], "errors": {}},
            "after_set": fx("connected"),
            "after_off": fx("disabled"),
            "after_on": fx("connected"),
            "unknown": "Server not found: nope",
            "cleared": {"added": [], "removed": ["fx"], "errors": {}},
            "after_clear": [],
            "tool_results": [{"tool_use_id": "t1", "is_error": null, "content": "hi"}],
        })
    );
    let bodies = env.request_bodies();
    let offered = |i: usize| {
        bodies[i]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "mcp__fx__echo")
    };
    assert_eq!((offered(0), offered(1)), (false, true));
}
