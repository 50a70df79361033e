//! End-to-end: where tack's records and requests must match Claude Code's
//! (issue 21's fidelity defects).

use std::io::{Read, Write};

use crate::common;

use common::{Env, lines, redact};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// A stream-json session (`args` added) fed `input`, stdin closed; its stdout records.
fn stream_json_records(env: &Env, args: &[&str], input: &[Value]) -> Vec<Value> {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(common::STREAM_JSON)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in input {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    lines(out.as_bytes())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_model_ends_as_a_success_record_with_is_error_and_the_message() {
    let env = Env::new(Script::new([Reply::http_error(
        404,
        "not_found_error",
        "model: claude-nope",
    )]))
    .await;
    let out = env
        .tack()
        .args([
            "-p",
            "hi",
            "--output-format",
            "json",
            "--model",
            "claude-nope",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let mut records = lines(&out.stdout);
    assert_eq!(records.len(), 1);
    redact(&mut records[0], &env.cwd());
    assert_eq!(
        records[0],
        json!({
            "type": "result",
            "subtype": "success",
            "is_error": true,
            "duration_ms": "[duration_ms]",
            "duration_api_ms": "[duration_api_ms]",
            "num_turns": 0,
            "result": "There's an issue with the selected model (claude-nope). It may not exist \
                       or you may not have access to it. Run --model to pick a different model.",
            "stop_reason": null,
            "session_id": "[session_id]",
            "total_cost_usd": 0.0,
            "usage": records[0]["usage"].clone(),
            "modelUsage": {},
            "permission_denials": [],
            "terminal_reason": "api_error",
            "api_error_status": 404,
            "uuid": "[uuid]",
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_user_lines_origin_and_uuid_are_echoed_on_the_result() {
    let env = Env::new(Script::new([Reply::text("Hi.")])).await;
    let records = stream_json_records(
        &env,
        &[],
        &[json!({
            "type": "user",
            "message": {"role": "user", "content": "hello"},
            "parent_tool_use_id": null,
            "session_id": "default",
            "uuid": "11111111-2222-3333-4444-555555555555",
            "origin": {"kind": "human"},
        })],
    );
    let result = records.last().unwrap();
    assert_eq!(result["type"], "result", "{records:?}");
    let echoed = json!({
        "subtype": result["subtype"],
        "result": result["result"],
        "user_message_uuid": result["user_message_uuid"],
        "origin": result["origin"],
    });
    assert_eq!(
        echoed,
        json!({
            "subtype": "success",
            "result": "Hi.",
            "user_message_uuid": "11111111-2222-3333-4444-555555555555",
            "origin": {"kind": "human"},
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_thinking_budget_comes_with_room_for_the_answer() {
    let env = Env::new(Script::new([Reply::text("a"), Reply::text("b")])).await;
    for (var, flag) in [(Some("8000"), None), (None, Some("8000"))] {
        let mut cmd = env.tack();
        cmd.args(["-p", "think"]);
        if let Some(v) = var {
            cmd.env("MAX_THINKING_TOKENS", v);
        }
        if let Some(f) = flag {
            cmd.args(["--max-thinking-tokens", f]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let sent: Vec<Value> = env
        .request_bodies()
        .iter()
        .map(|b| json!({"max_tokens": b["max_tokens"], "thinking": b["thinking"]}))
        .collect();
    // The default model's cap (128k) leaves the answer room beside the budget.
    let expected =
        json!({"max_tokens": 128000, "thinking": {"type": "enabled", "budget_tokens": 8000}});
    assert_eq!(sent, vec![expected.clone(), expected]);
}

#[tokio::test(flavor = "multi_thread")]
async fn forward_subagent_text_adds_the_subagents_text_to_its_calls() {
    let script = Script::new([
        Reply::tool_use(
            "toolu_agent",
            "Task",
            json!({"description": "look", "prompt": "Look.", "subagent_type": "looker"}),
        ),
        Reply::message()
            .text("Looking.")
            .tool_use("toolu_glob", "Glob", json!({"pattern": "*.txt"}))
            .into(),
        Reply::text("Nothing there."),
        Reply::text("Done."),
    ]);
    let env = Env::new(script).await;
    let agents =
        r#"{"looker": {"description": "Looks", "prompt": "You look.", "tools": ["Glob"]}}"#;
    let records = stream_json_records(
        &env,
        &["--agents", agents],
        &[
            json!({"type": "control_request", "request_id": "init",
                "request": {"subtype": "initialize", "forwardSubagentText": true}}),
            json!({"type": "user", "message": {"role": "user", "content": "look"},
                "parent_tool_use_id": null, "session_id": ""}),
        ],
    );
    let sub: Vec<Value> = records
        .iter()
        .filter(|r| r["parent_tool_use_id"] == "toolu_agent")
        .map(|r| json!([r["type"], r["message"]["content"][0]["type"]]))
        .collect();
    assert_eq!(
        sub,
        vec![
            json!(["assistant", "text"]),
            json!(["assistant", "tool_use"]),
            json!(["user", "tool_result"]),
            json!(["assistant", "text"]),
        ]
    );
}
