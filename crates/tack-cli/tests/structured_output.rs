//! Structured output (`--json-schema`) end to end: the real `tack -p` against
//! the scripted server. The model answers through the `StructuredOutput` tool;
//! the result record carries the answer, an invalid answer goes back to the
//! model with what is wrong, and the fifth invalid answer ends the turn.

use crate::common;

use common::{Env, kinds, lines, stderr};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["ok", "failed"]},
            "summary": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "lines": {"type": "integer"}},
                "required": ["title", "lines"]
            }
        },
        "required": ["status", "summary"]
    })
}

fn answer() -> Value {
    json!({"status": "ok", "summary": {"title": "notes", "lines": 2}})
}

/// The model's wrong answer and what it is told about it.
fn wrong() -> (Value, &'static str) {
    (
        json!({"status": "done", "summary": {"lines": 2}}),
        "<tool_use_error>Output does not match required schema: \
         /status: value must be one of 'ok', 'failed'; \
         /summary: missing properties 'title'</tool_use_error>",
    )
}

fn run(env: &Env, format: &str) -> std::process::Output {
    let schema = schema().to_string();
    let mut args = vec![
        "-p",
        "go",
        "--json-schema",
        &schema,
        "--output-format",
        format,
    ];
    if format == "stream-json" {
        args.push("--verbose");
    }
    env.tack().args(args).output().unwrap()
}

/// The last message of request `n` (what the model was sent after its last call).
fn last_message(env: &Env, n: usize) -> Value {
    let body = &env.request_bodies()[n];
    let mut last = body["messages"].as_array().unwrap().last().unwrap().clone();
    // The cache breakpoint the request builder puts on the newest block.
    for block in last["content"].as_array_mut().unwrap() {
        block.as_object_mut().unwrap().remove("cache_control");
    }
    last
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_then_a_valid_answer_is_the_results_structured_output() {
    let env = Env::new(Script::new([])).await;
    let notes = env.cwd().join("notes.txt");
    std::fs::write(&notes, "one\ntwo\n").unwrap();
    env.server.push(Reply::tool_use(
        "t1",
        "Read",
        json!({"file_path": notes.to_string_lossy()}),
    ));
    env.server
        .push(Reply::tool_use("t2", "StructuredOutput", answer()));
    let out = run(&env, "json");
    assert_eq!(stderr(&out), "");
    assert!(out.status.success());
    let result = &lines(&out.stdout)[0];
    assert_eq!(
        (
            &result["subtype"],
            &result["is_error"],
            &result["num_turns"],
            &result["terminal_reason"],
            &result["structured_output"]
        ),
        (
            &json!("success"),
            &json!(false),
            &json!(2),
            &json!("completed"),
            &answer()
        )
    );
    // The answer ended the turn: no third request.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    let tool = common::request_tool(&bodies[0], "StructuredOutput");
    assert_eq!(
        tool,
        json!({
            "name": "StructuredOutput",
            "description": "Returns your final answer in the structured form the user asked for. \
                Call this tool exactly once, at the end, with the whole answer as its input: the \
                input must match the tool's schema. If the call fails validation, fix what the \
                error names and call it again.",
            "input_schema": schema(),
        })
    );
    assert_eq!(
        last_message(&env, 1)["content"][0]["tool_use_id"],
        json!("t1")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_answer_goes_back_with_the_error_then_a_valid_one_succeeds() {
    let (bad, told) = wrong();
    let env = Env::new(Script::new([
        Reply::tool_use("s1", "StructuredOutput", bad),
        Reply::tool_use("s2", "StructuredOutput", answer()),
    ]))
    .await;
    let out = run(&env, "stream-json");
    assert_eq!(stderr(&out), "");
    assert!(out.status.success());
    let records = lines(&out.stdout);
    assert_eq!(
        kinds(&records),
        [
            "system/init",
            "assistant",
            "user",
            "assistant",
            "user",
            "result/success"
        ]
    );
    assert_eq!(records.last().unwrap()["structured_output"], answer());
    assert_eq!(env.request_bodies().len(), 2);
    assert_eq!(
        last_message(&env, 1),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "s1", "content": told, "is_error": true}
        ]})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn five_invalid_answers_end_the_turn_as_an_error() {
    let (bad, told) = wrong();
    let env = Env::new(Script::new([])).await;
    for i in 1..=5 {
        env.server.push(Reply::tool_use(
            &format!("s{i}"),
            "StructuredOutput",
            bad.clone(),
        ));
    }
    env.server.push(Reply::text("never asked"));
    let out = run(&env, "stream-json");
    assert_eq!(out.status.code(), Some(1));
    let message = "Failed to provide valid structured output after 5 attempts";
    assert_eq!(stderr(&out), format!("Error: {message}\n"));
    let mut result = lines(&out.stdout).pop().unwrap();
    let volatile = [
        "duration_ms",
        "duration_api_ms",
        "session_id",
        "total_cost_usd",
        "usage",
        "modelUsage",
        "uuid",
    ];
    for key in volatile {
        result.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(
        result,
        json!({
            "type": "result",
            "subtype": "error_max_structured_output_retries",
            "is_error": true,
            "num_turns": 5,
            "stop_reason": "tool_use",
            "permission_denials": [],
            "terminal_reason": "structured_output_retry_exhausted",
            "errors": [message],
            "api_error_status": null,
        })
    );
    // Each invalid answer was sent back; the fifth ended the turn.
    assert_eq!(env.request_bodies().len(), 5);
    assert_eq!(last_message(&env, 4)["content"][0]["content"], json!(told));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_ended_without_the_tool_is_reminded_to_call_it() {
    let env = Env::new(Script::new([
        Reply::text("All good."),
        Reply::tool_use("s1", "StructuredOutput", answer()),
    ]))
    .await;
    let out = run(&env, "json");
    assert_eq!(stderr(&out), "");
    assert_eq!(lines(&out.stdout)[0]["structured_output"], answer());
    assert_eq!(env.request_bodies().len(), 2);
    assert_eq!(
        last_message(&env, 1),
        json!({"role": "user", "content": [{"type": "text", "text":
            "Stop hook feedback:\nYou MUST call the StructuredOutput tool to complete this request. Call this tool now."}]})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_schema_that_is_not_json_schema_is_refused_before_any_request() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    let out = env
        .tack()
        .args([
            "-p",
            "go",
            "--json-schema",
            r#"{"type": "object", "properties": {"a": {"type": "strnig"}}}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("Error: --json-schema: not a valid JSON Schema: "),
        "{err}"
    );
    assert!(err.contains("at '/properties/a/type'"), "{err}");
    assert_eq!(err.matches("not a valid JSON Schema").count(), 1, "{err}");
    let out = env
        .tack()
        .args(["-p", "go", "--json-schema", r#"{"type": "array"}"#])
        .output()
        .unwrap();
    assert_eq!(
        stderr(&out),
        "Error: --json-schema: the schema must be a JSON object describing an object (\"type\": \"object\"): the answer is a tool call's input\n"
    );
    assert!(env.request_bodies().is_empty());
}
