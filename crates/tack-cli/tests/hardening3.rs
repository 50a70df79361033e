//! End-to-end tests for the rest of issue 23 ("Hardening, round two"): MCP
//! servers that answer too much or clash, and prompts too long to send. Each
//! test is named after the issue's item and failed before its fix.

use crate::common;
use crate::mcp::fixture;

use std::time::{Duration, Instant};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// How long one `tack` run may take before the test calls it hung.
const HANG: Duration = Duration::from_secs(60);

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The tool_result blocks of the last message of a request body.
fn last_results(body: &Value) -> Vec<Value> {
    body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .cloned()
        .collect()
}

// ---------------------------------------------------------------------------
// 5. An MCP message over rmcp's 16 MiB line limit.

#[tokio::test(flavor = "multi_thread")]
async fn item5_an_mcp_result_line_over_16_mib_fails_the_call_at_once() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("toolu_1", "mcp__fix__big", json!({"chars": 17 << 20}))
            .into(),
        Reply::text("done"),
    ]))
    .await;
    let config = json!({"mcpServers": {"fix": {"command": fixture}}}).to_string();
    let started = Instant::now();
    let out = env
        .tack()
        .timeout(HANG)
        // Before the fix the call waited for this; the test must not wait minutes.
        .env("MCP_TOOL_TIMEOUT", "40000")
        .args(["-p", "go", "--mcp-config", &config])
        .args(["--allowedTools", "mcp__fix"])
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(
        last_results(&env.request_bodies()[1]),
        [json!({
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "is_error": true,
            "cache_control": {"type": "ephemeral"},
            "content": "<tool_use_error>MCP server \"fix\" sent a message over 16 MiB, which tack cannot read; the result of mcp__fix__big is lost</tool_use_error>",
        })]
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

// ---------------------------------------------------------------------------
// 8. Tool names that clash across servers, and input schemas the API rejects.

#[tokio::test(flavor = "multi_thread")]
async fn item8_clashing_tool_names_and_broken_schemas_are_left_out_with_a_warning() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let config = json!({"mcpServers": {
        "s": {"command": fixture, "args": ["--tool", "x__echo", "--bad-schema-tool", "broken"]},
        "s__x": {"command": fixture},
    }})
    .to_string();
    let out = env
        .tack()
        .timeout(HANG)
        .args(["-p", "hi", "--mcp-config", &config])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let names: Vec<String> = env.request_bodies()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "a name sent twice: {names:?}");
    assert_eq!(
        names
            .iter()
            .filter(|n| *n == "mcp__s__x__echo" || *n == "mcp__s__broken")
            .collect::<Vec<_>>(),
        ["mcp__s__x__echo"]
    );
    let stderr = stderr_of(&out);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("is left out"))
        .collect();
    assert_eq!(
        warnings,
        [
            "MCP tool \"broken\" of server \"s\" is left out: its inputSchema is not a JSON Schema object (its type is \"string\", not \"object\")",
            "MCP tool \"echo\" of server \"s__x\" is left out: its name mcp__s__x__echo is taken by tool \"x__echo\" of server \"s\"; rename one of the servers",
        ]
    );
}

// ---------------------------------------------------------------------------
// 7 (rest). `tack mcp list` shows a server name's escapes, not runs them.

#[tokio::test(flavor = "multi_thread")]
async fn item7_tack_mcp_list_shows_a_server_names_escapes() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    std::fs::write(
        env.cwd().join(".mcp.json"),
        r#"{"mcpServers": {"evil\u001b]52;c;SGVsbG8=\u0007": {"command": "true"}}}"#,
    )
    .unwrap();
    let out = env
        .tack()
        .timeout(HANG)
        .args(["mcp", "list"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(stdout.contains("evil␛]52;c;SGVsbG8=␇: true"), "{stdout:?}");
}

// ---------------------------------------------------------------------------
// 10 (rest). A prompt larger than the context window is answered locally.

/// The result record's fields that say how the turn ended.
fn ending(result: &Value) -> Value {
    json!({
        "subtype": result["subtype"],
        "is_error": result["is_error"],
        "terminal_reason": result["terminal_reason"],
        "errors": result["errors"],
        "num_turns": result["num_turns"],
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn item10_a_50_mb_stream_json_message_is_too_long_without_a_request() {
    let env = Env::new(Script::new([Reply::text("still here")])).await;
    let huge =
        json!({"type": "user", "message": {"role": "user", "content": "x".repeat(50 << 20)}});
    let next = json!({"type": "user", "message": {"role": "user", "content": "hi"}});
    let stdin = format!("{huge}\n{next}\n");
    let out = env
        .tack()
        .timeout(HANG)
        .args(common::STREAM_JSON)
        // A 200k window, as the figures below say.
        .args(["--model", "claude-sonnet-4-5"])
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let records = common::lines(&out.stdout);
    let results: Vec<Value> = records
        .iter()
        .filter(|r| r["type"] == "result")
        .map(ending)
        .collect();
    let tokens = (50u64 << 20) / 4 + 4 + 2;
    assert_eq!(
        results,
        [
            json!({
                "subtype": "error_during_execution",
                "is_error": true,
                "terminal_reason": "prompt_too_long",
                "errors": [format!("Prompt is too long. Run /compact to summarise the conversation, or /clear to start over. (prompt is too long: {tokens} tokens > 200000 maximum (estimated; not sent))")],
                "num_turns": 0,
            }),
            json!({
                "subtype": "success",
                "is_error": false,
                "terminal_reason": "completed",
                "errors": null,
                "num_turns": 1,
            }),
        ]
    );
    // Only the second prompt reached the model.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0]["messages"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn item10_a_print_prompt_past_the_context_window_is_too_long_without_a_request() {
    let env = Env::new(Script::new(Vec::<Reply>::new())).await;
    let out = env
        .tack()
        .timeout(HANG)
        // A 200k window: a 1 MiB prompt is past it.
        .args(["-p", "--model", "claude-sonnet-4-5"])
        .write_stdin("y".repeat(1 << 20))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(
        stderr_of(&out),
        "Error: Prompt is too long. Run /compact to summarise the conversation, or /clear to start over. (prompt is too long: 262150 tokens > 200000 maximum (estimated; not sent))\n"
    );
    assert_eq!(env.request_bodies(), Vec::<Value>::new());
}
