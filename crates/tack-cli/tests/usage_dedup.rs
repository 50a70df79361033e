//! Issue 35: usage readers of transcripts (ccusage) count each assistant
//! message once per (`message.id`, `requestId`), as Claude Code writes one
//! record per content block, each with the message's whole usage. tack's
//! transcript, read that way, must total what its result record says.

use std::collections::BTreeMap;

use crate::common;

use common::{Env, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The usage fields a reader sums.
const FIELDS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
];

/// Sums the usage of the transcript's assistant records as ccusage does:
/// once per (`message.id`, `requestId`), every record when either is
/// missing. Also returns the keys in order and each record's usage per key.
fn ccusage_totals(transcript: &[Value]) -> (BTreeMap<&'static str, u64>, Vec<Value>) {
    let mut seen = std::collections::HashSet::new();
    let mut totals: BTreeMap<&'static str, u64> = FIELDS.iter().map(|f| (*f, 0)).collect();
    let mut keys = Vec::new();
    for record in transcript.iter().filter(|r| r["type"] == "assistant") {
        let key = json!([record["message"]["id"], record["requestId"]]);
        keys.push(key.clone());
        if !key[0].is_null() && !key[1].is_null() && !seen.insert(key.to_string()) {
            continue;
        }
        for field in FIELDS {
            *totals.entry(field).or_default() +=
                record["message"]["usage"][field].as_u64().unwrap_or(0);
        }
    }
    (totals, keys)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dedup_by_message_and_request_id_totals_the_result_usage() {
    // Three messages of several blocks each: text + two tool calls, text +
    // a tool call, a final text.
    let script = Script::new([
        Reply::message()
            .text("Reading and listing.")
            .tool_use("toolu_r", "Read", json!({"file_path": "notes.txt"}))
            .tool_use("toolu_g", "Glob", json!({"pattern": "*.txt"}))
            .usage(120, 9)
            .cache(30, 200)
            .into(),
        Reply::message()
            .text("Writing.")
            .tool_use(
                "toolu_w",
                "Write",
                json!({"file_path": "new.txt", "content": "n\n"}),
            )
            .usage(180, 5)
            .into(),
        Reply::message().text("Done.").usage(210, 2).into(),
    ]);
    let env = Env::new(script).await;
    std::fs::write(env.cwd().join("notes.txt"), "note\n").unwrap();
    let out = env
        .tack()
        .args(["-p", "go", "--output-format", "json"])
        .args(["--allowedTools", "Read,Glob,Write"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = lines(&out.stdout).remove(0);
    let transcript = std::fs::read(env.transcripts().remove(0)).unwrap();
    let transcript = lines(&transcript);
    let (totals, keys) = ccusage_totals(&transcript);
    let expected: BTreeMap<&'static str, u64> = FIELDS
        .iter()
        .map(|f| (*f, result["usage"][*f].as_u64().unwrap()))
        .collect();
    assert_eq!(totals, expected);
    assert_eq!(
        expected,
        BTreeMap::from([
            ("cache_creation_input_tokens", 30),
            ("cache_read_input_tokens", 200),
            ("input_tokens", 510),
            ("output_tokens", 16),
        ])
    );

    // One record per block, each with its message's id and the answering
    // request's id (the server's `request-id` header), and the same usage.
    let ids: Vec<Value> = keys
        .iter()
        .map(|k| json!([k[0].as_str().is_some(), k[1]]))
        .collect();
    assert_eq!(
        ids,
        [
            json!([true, "req_mock_1"]),
            json!([true, "req_mock_1"]),
            json!([true, "req_mock_1"]),
            json!([true, "req_mock_2"]),
            json!([true, "req_mock_2"]),
            json!([true, "req_mock_3"]),
        ]
    );
    let usages: Vec<(Value, Value)> = transcript
        .iter()
        .filter(|r| r["type"] == "assistant")
        .map(|r| (r["requestId"].clone(), r["message"]["usage"].clone()))
        .collect();
    for (request, usage) in &usages {
        let first = usages.iter().find(|(r, _)| r == request).unwrap();
        assert_eq!(&first.1, usage, "{request}");
    }
}
