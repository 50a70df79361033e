//! End-to-end: the real `tack` binary in a temp project against the scripted server.

use crate::common;

use common::{Env, kinds, lines, redact};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

#[tokio::test(flavor = "multi_thread")]
async fn text_output_prints_the_answer() {
    let env = Env::new(Script::new([Reply::text("Hello from the mock.")])).await;
    let out = env.tack().args(["-p", "say hi"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Hello from the mock.\n"
    );
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 1);
    let first = &bodies[0]["messages"][0]["content"];
    assert!(
        first
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["text"] == "say hi"),
        "{first}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_prompt_can_come_from_stdin() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let out = env
        .tack()
        .arg("-p")
        .write_stdin("from stdin")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body = &env.request_bodies()[0];
    assert!(body.to_string().contains("from stdin"));
}

#[tokio::test(flavor = "multi_thread")]
async fn json_output_is_one_result_object() {
    let env = Env::new(Script::new([Reply::message()
        .text("The answer.")
        .usage(10, 5)
        .into()]))
    .await;
    let out = env
        .tack()
        .args([
            "-p",
            "q",
            "--output-format",
            "json",
            "--model",
            "claude-sonnet-4-5",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut records = lines(&out.stdout);
    assert_eq!(records.len(), 1);
    redact(&mut records[0], &env.cwd());
    insta::assert_json_snapshot!("json_result", records[0]);
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_prints_init_messages_and_result() {
    let script = Script::new([
        Reply::message()
            .text("Let me look.")
            .tool_use("toolu_1", "Read", json!({"file_path": "notes.txt"}))
            .usage(100, 20)
            .into(),
        Reply::message()
            .text("It says hello.")
            .usage(120, 10)
            .into(),
    ]);
    let env = Env::new(script).await;
    std::fs::write(env.cwd().join("notes.txt"), "hello\n").unwrap();
    let out = env
        .tack()
        .args([
            "-p",
            "read notes",
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "claude-sonnet-4-5",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut records = lines(&out.stdout);
    for r in &mut records {
        redact(r, &env.cwd());
    }
    insta::assert_json_snapshot!("stream_json_read_session", records);
    // The tool result went back to the model.
    let bodies = env.request_bodies();
    common::assert_every_tool_use_answered(bodies[1]["messages"].as_array().unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn partial_messages_add_stream_events() {
    let env = Env::new(Script::new([Reply::text("Streamed.")])).await;
    let out = env
        .tack()
        .args([
            "-p",
            "q",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let records = lines(&out.stdout);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"system"));
    assert_eq!(kinds.last(), Some(&"result"));
    let events: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "stream_event")
        .map(|r| r["event"]["type"].as_str().unwrap())
        .collect();
    // Every event of the answer but the API's `ping` (the scripted server
    // sends one after `message_start`, as the API does).
    assert_eq!(
        events,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    // The completed assistant record follows the block's events.
    let assistant = kinds.iter().position(|k| *k == "assistant").unwrap();
    let first_event = kinds.iter().position(|k| *k == "stream_event").unwrap();
    assert!(first_event < assistant);
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_without_verbose_is_refused_like_claude_code() {
    let env = Env::new(Script::new([])).await;
    let out = env
        .tack()
        .args(["-p", "q", "--output-format", "stream-json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: When using --print, --output-format=stream-json requires --verbose\n"
    );
    assert_eq!(env.request_bodies().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn no_prompt_is_an_error() {
    let env = Env::new(Script::new([])).await;
    let out = env.tack().arg("-p").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: Input must be provided either through stdin or as a prompt argument when using --print\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_flags_are_a_clear_error() {
    let env = Env::new(Script::new([])).await;
    let out = env
        .tack()
        .args(["-p", "x", "--frobnicate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unexpected argument '--frobnicate'"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_multi_tool_session_edits_files() {
    let script = Script::new([
        Reply::message()
            .tool_use("t1", "Read", json!({"file_path": "app.txt"}))
            .into(),
        Reply::message()
            .text("Fixing.")
            .tool_use(
                "t2",
                "Edit",
                json!({"file_path": "app.txt", "old_string": "bug", "new_string": "fix"}),
            )
            .into(),
        Reply::message()
            .tool_use("t3", "Bash", json!({"command": "cat app.txt"}))
            .into(),
        Reply::text("Fixed it."),
    ]);
    let env = Env::new(script).await;
    std::fs::write(env.cwd().join("app.txt"), "a bug here\n").unwrap();
    let out = env
        .tack()
        .args([
            "-p",
            "fix",
            "--output-format",
            "json",
            "--allowedTools",
            "Edit,Bash(cat *)",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("app.txt")).unwrap(),
        "a fix here\n"
    );
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["result"], "Fixed it.");
    assert_eq!(result["permission_denials"], json!([]));
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 4);
    let last = bodies[3]["messages"].as_array().unwrap();
    common::assert_every_tool_use_answered(last);
    let bash_result = &last[last.len() - 1]["content"][0];
    assert_eq!(bash_result["tool_use_id"], "t3");
    assert!(
        bash_result.to_string().contains("a fix here"),
        "{bash_result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_without_permission_are_denied_and_listed() {
    let script = Script::new([
        Reply::message()
            .tool_use("t1", "Bash", json!({"command": "touch x"}))
            .into(),
        Reply::text("Could not."),
    ]);
    let env = Env::new(script).await;
    let out = env
        .tack()
        .args(["-p", "go", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!env.cwd().join("x").exists());
    let result = &lines(&out.stdout)[0];
    assert_eq!(
        result["permission_denials"],
        json!([{"tool_name": "Bash", "tool_use_id": "t1", "tool_input": {"command": "touch x"}}])
    );
    let second = &env.request_bodies()[1]["messages"];
    let denial = &second[2]["content"][0];
    assert_eq!(denial["is_error"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn max_turns_ends_with_error_max_turns() {
    let script = Script::new([
        Reply::tool_use("t1", "Glob", json!({"pattern": "*"})),
        Reply::tool_use("t2", "Glob", json!({"pattern": "*"})),
        Reply::text("never"),
    ]);
    let env = Env::new(script).await;
    let out = env
        .tack()
        .args(["-p", "go", "--max-turns", "2", "--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: Reached max turns (2)\n"
    );
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["is_error"], true);
    assert_eq!(env.request_bodies().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn max_budget_ends_with_error_max_budget_usd() {
    let script = Script::new([
        Reply::message()
            .tool_use("t1", "Glob", json!({"pattern": "*"}))
            .usage(1_000_000, 1000)
            .into(),
        Reply::text("never"),
    ]);
    let env = Env::new(script).await;
    let out = env
        .tack()
        .args([
            "-p",
            "go",
            "--max-budget-usd",
            "0.5",
            "--model",
            "claude-sonnet-4-5",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let records = lines(&out.stdout);
    let result = records.last().unwrap();
    assert_eq!(result["subtype"], "error_max_budget_usd", "{result}");
    assert!(result["total_cost_usd"].as_f64().unwrap() >= 0.5);
    assert_eq!(env.request_bodies().len(), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("Error: Reached maximum budget"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_api_error_exits_non_zero_with_one_line() {
    let env = Env::new(Script::new([Reply::http_error(
        401,
        "authentication_error",
        "invalid x-api-key",
    )]))
    .await;
    let start = std::time::Instant::now();
    let out = env.tack().args(["-p", "hi"]).output().unwrap();
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("authentication"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_and_resume_pick_up_the_conversation() {
    let env = Env::new(Script::new([
        Reply::text("First answer."),
        Reply::text("Second answer."),
        Reply::text("Third."),
    ]))
    .await;
    let out = env
        .tack()
        .args(["-p", "first", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let session_id = lines(&out.stdout)[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let out = env
        .tack()
        .args(["-p", "second", "-c", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        lines(&out.stdout)[0]["session_id"],
        Value::String(session_id.clone())
    );
    let texts = |body: &Value| -> Vec<String> {
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| {
                m["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|b| b["text"].as_str().map(str::to_owned))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let bodies = env.request_bodies();
    let second = texts(&bodies[1]);
    assert!(
        second.iter().any(|t| t == "first")
            && second.iter().any(|t| t == "First answer.")
            && second.iter().any(|t| t == "second"),
        "{second:?}"
    );

    let out = env
        .tack()
        .args(["-p", "third", "--resume", &session_id])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let third = texts(&env.request_bodies()[2]);
    assert!(third.iter().any(|t| t == "Second answer."), "{third:?}");
    assert_eq!(env.transcripts().len(), 1);

    let out = env
        .tack()
        .args([
            "-p",
            "x",
            "--resume",
            "11111111-1111-4111-8111-111111111111",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no session `11111111-1111-4111-8111-111111111111`")
            && stderr.contains(&session_id),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_input_runs_one_turn_per_line() {
    let env = Env::new(Script::new([Reply::text("One."), Reply::text("Two.")])).await;
    let input = concat!(
        r#"{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"first"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"second"}]},"parent_tool_use_id":null,"session_id":"default"}"#,
        "\n",
    );
    let out = env
        .tack()
        .args(common::STREAM_JSON)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = lines(&out.stdout);
    let kinds = kinds(&records);
    assert_eq!(
        kinds,
        [
            "control_response",
            "system/init",
            "assistant",
            "result/success",
            "assistant",
            "result/success"
        ]
    );
    assert_eq!(records[3]["result"], "One.");
    assert_eq!(records[5]["result"], "Two.");
    assert_eq!(records[0]["response"]["request_id"], "req_1");
    let bodies = env.request_bodies();
    assert_eq!(bodies[1]["messages"].as_array().unwrap().len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_transcript_has_claude_codes_record_shape() {
    let script = Script::new([
        Reply::message()
            .tool_use("t1", "Glob", json!({"pattern": "*.txt"}))
            .into(),
        Reply::text("Done."),
    ]);
    let env = Env::new(script).await;
    let out = env.tack().args(["-p", "list"]).output().unwrap();
    assert!(out.status.success());
    let path = &env.transcripts()[0];
    let text = std::fs::read_to_string(path).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant"]);
    for r in &records {
        for key in [
            "uuid",
            "sessionId",
            "timestamp",
            "cwd",
            "gitBranch",
            "version",
            "message",
            "isSidechain",
            "userType",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
    }
    assert_eq!(records[0]["parentUuid"], Value::Null);
    assert_eq!(records[1]["parentUuid"], records[0]["uuid"]);
    assert_eq!(records[1]["message"]["id"], "msg_mock_1");
    assert!(records[2]["toolUseResult"].is_object() || records[2]["toolUseResult"].is_null());
    assert!(
        path.to_string_lossy()
            .contains(&tack_store::sanitize_cwd(&env.cwd()))
    );
}

/// `--timeout`: a hard wall-clock limit. The running turn is interrupted (its
/// Bash call with it), its result printed, and tack exits with 124.
#[tokio::test(flavor = "multi_thread")]
async fn timeout_interrupts_the_turn_prints_its_result_and_exits_124() {
    let sleep = json!({"command": "sleep 30.75"});
    let env = Env::new(Script::new([Reply::tool_use("t1", "Bash", sleep)])).await;
    let started = std::time::Instant::now();
    let out = env
        .tack()
        .args(["-p", "wait", "--allowedTools", "Bash", "--timeout", "1"])
        .args(["--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    let records = common::lines(&out.stdout);
    let result = records.last().unwrap();
    assert_eq!(
        (out.status.code(), &result["type"], &result["is_error"]),
        (Some(124), &json!("result"), &json!(true)),
        "{}",
        common::stderr(&out)
    );
    assert!(
        common::stderr(&out).contains("tack: --timeout of 1 s reached; stopping"),
        "{}",
        common::stderr(&out)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(crate::agents::processes_running("sleep\x0030.75"), 0);
}

#[test]
fn timeout_must_be_a_positive_number() {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .args(["-p", "x", "--timeout", "0"])
        .output()
        .unwrap();
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        (
            Some(1),
            "Error: --timeout must be a positive number of seconds"
        )
    );
}
