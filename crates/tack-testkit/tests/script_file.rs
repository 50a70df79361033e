//! The JSON script format and the `tack-mock-api` binary.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{json_of, post, request_body};
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script, ScriptError};

#[test]
fn a_script_file_builds_the_same_replies_as_the_builders() {
    let text = r#"[
        {"text": "hi"},
        {"blocks": [{"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "text", "text": "x"},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "Bash", "raw_input": "{\"command\": \"l"}],
         "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 3},
         "model": "claude-x", "pacing_ms": 5, "block_gap_ms": 6, "stall_after": {"after": 2, "ms": 7}, "cut_after": 9},
        {"text": "e", "error_event_after": {"after": 4, "type": "overloaded_error", "message": "Overloaded"}},
        {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}, "retry_after": 1},
        {"error": {"status": 429, "type": "rate_limit_error", "message": "slow"}, "retry_after_ms": 1500,
         "headers": {"x-should-retry": "true"}},
        {"prompt_too_long": {"actual": 210000, "limit": 200000}},
        {"blocks": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                     "content": [{"type": "web_search_result", "url": "https://a.example", "title": "A"}]},
                    {"type": "text", "text": "cited", "citations": [{"type": "web_search_result_location", "url": "https://a.example"}]}]}
    ]"#;

    let script = Script::from_json(text).unwrap();

    let ms = Duration::from_millis;
    let expected = Script::new([
        Reply::text("hi"),
        Reply::message()
            .thinking("hmm", "sig")
            .text("x")
            .tool_use("toolu_1", "Bash", json!({"command": "ls"}))
            .raw_tool_input("toolu_2", "Bash", "{\"command\": \"l")
            .stop_reason("tool_use")
            .usage(10, 5)
            .cache(0, 3)
            .model("claude-x")
            .pacing(ms(5))
            .block_gap(ms(6))
            .stall_after(2, ms(7))
            .cut_after(9)
            .into(),
        Reply::message()
            .text("e")
            .error_event_after(4, "overloaded_error", "Overloaded")
            .into(),
        Reply::overloaded().retry_after(1),
        Reply::http_error(429, "rate_limit_error", "slow")
            .retry_after_ms(1500)
            .header("x-should-retry", "true"),
        Reply::prompt_too_long(210_000, 200_000),
        Reply::message()
            .server_tool_use("srvtoolu_1", "web_search", json!({"query": "q"}))
            .web_search_tool_result(
                "srvtoolu_1",
                json!([{"type": "web_search_result", "url": "https://a.example", "title": "A"}]),
            )
            .cited_text(
                "cited",
                vec![json!({"type": "web_search_result_location", "url": "https://a.example"})],
            )
            .into(),
    ]);
    assert_eq!(script, expected);
}

#[test]
fn malformed_json_reports_line_and_column() {
    let error = Script::from_json("[\n  {\"text\": \"hi\",\n   \"txet\": 1}\n]").unwrap_err();
    assert!(matches!(error, ScriptError::Json(_)));
    let message = error.to_string();
    assert!(message.contains("unknown field `txet`"), "{message}");
    assert!(message.contains("line 3"), "{message}");

    let error = Script::from_json("[{\"text\": \"hi\"}")
        .unwrap_err()
        .to_string();
    assert!(error.contains("line 1 column 15"), "{error}");
}

#[test]
fn a_reply_that_makes_no_sense_names_its_index() {
    let cases = [
        (
            r#"[{"text": "a"}, {"text": "b", "blocks": []}]"#,
            1,
            "exactly one of",
        ),
        (r#"[{}]"#, 0, "exactly one of"),
        (
            r#"[{"prompt_too_long": {"actual": 2, "limit": 1}, "pacing_ms": 3}]"#,
            0,
            "\"pacing_ms\" only applies",
        ),
        (
            r#"[{"error": {"status": 1000, "type": "x", "message": "y"}}]"#,
            0,
            "not an HTTP status",
        ),
        (
            r#"[{"blocks": [{"type": "tool_use", "id": "t", "name": "n"}]}]"#,
            0,
            "\"input\", \"raw_input\"",
        ),
    ];
    for (text, expected_index, fragment) in cases {
        match Script::from_json(text) {
            Err(ScriptError::Invalid { index, reason }) => {
                assert_eq!(index, expected_index, "{text}");
                assert!(reason.contains(fragment), "{text}: {reason}");
            }
            other => panic!("{text}: expected Invalid, got {other:?}"),
        }
    }
}

#[test]
fn a_missing_file_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.json");
    let error = Script::from_file(&path).unwrap_err();
    assert!(matches!(error, ScriptError::Io { .. }));
    assert!(error.to_string().contains("nope.json"), "{error}");
}

/// Kills the child even when an assertion fails first.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn the_binary_prints_its_address_and_serves_the_script_in_a_loop() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.json");
    std::fs::write(&path, r#"[{"text": "from the binary"}]"#).unwrap();

    let child = Command::new(env!("CARGO_BIN_EXE_tack-mock-api"))
        .arg("--script")
        .arg(&path)
        .arg("--loop")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();

    let base = line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    for _ in 0..2 {
        let body = json_of(post(&base, "/v1/messages", &request_body(false)).await).await;
        assert_eq!(body["content"][0]["text"], "from the binary");
    }
}
