//! End-to-end: recovery paths and manual compaction through the real binary.

use crate::common;

use common::{Env, kinds, lines};
use pretty_assertions::assert_eq;
use serde_json::Value;
use tack_testkit::{Reply, Script};

#[tokio::test(flavor = "multi_thread")]
async fn compact_typed_on_stream_json_input_summarises_and_continues_from_the_summary() {
    let env = Env::new(Script::new([
        Reply::text("First answer."),
        Reply::text("<summary>The user asked about FIRST-TOPIC.</summary>"),
        Reply::text("Second answer."),
    ]))
    .await;
    let input = concat!(
        r#"{"type":"user","message":{"role":"user","content":"tell me about FIRST-TOPIC"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"/compact keep the topic name"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"and now?"}}"#,
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
    assert_eq!(
        kinds(&records),
        [
            "system/init",
            "assistant",
            "result/success",
            "system/compact_boundary",
            "result/success",
            "assistant",
            "result/success"
        ]
    );
    // The /compact message's own result: no model turn, no text.
    assert_eq!(
        (
            &records[4]["num_turns"],
            &records[4]["result"],
            &records[4]["is_error"]
        ),
        (&Value::from(0), &Value::from(""), &Value::from(false))
    );
    let boundary = &records[3];
    assert_eq!(boundary["compact_metadata"]["trigger"], "manual");
    assert!(boundary["compact_metadata"]["pre_tokens"].as_u64().unwrap() > 0);

    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 3);
    // The summary request carries the user's instructions and no tools.
    let summary_request = bodies[1].to_string();
    assert!(
        summary_request.contains("keep the topic name"),
        "{summary_request}"
    );
    // The next turn starts from the summary: the original prompt is gone.
    let after = bodies[2]["messages"].to_string();
    assert!(
        after.contains("The user asked about FIRST-TOPIC."),
        "{after}"
    );
    assert!(!after.contains("tell me about FIRST-TOPIC"), "{after}");
    assert!(after.contains("and now?"), "{after}");

    // The transcript records the boundary, and resuming starts after it.
    let transcript = std::fs::read_to_string(&env.transcripts()[0]).unwrap();
    assert!(transcript.contains(r#""subtype":"compact_boundary""#));
    let loaded = tack_store::load(&env.transcripts()[0]).unwrap();
    let resumed = serde_json::to_string(&loaded.messages).unwrap();
    assert!(resumed.contains("FIRST-TOPIC.") && !resumed.contains("tell me about FIRST-TOPIC"));
}

#[tokio::test(flavor = "multi_thread")]
async fn overloaded_primary_model_falls_back_to_the_fallback_model() {
    let env = Env::new(Script::new([
        Reply::overloaded(),
        Reply::text("Answer from the fallback."),
    ]))
    .await;
    let out = env
        .tack()
        .args([
            "-p",
            "q",
            "--model",
            "claude-sonnet-4-5",
            "--fallback-model",
            "claude-haiku-4-5",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let models: Vec<Value> = env
        .request_bodies()
        .iter()
        .map(|b| b["model"].clone())
        .collect();
    assert_eq!(models, ["claude-sonnet-4-5", "claude-haiku-4-5"]);
    let records = lines(&out.stdout);
    let notice = records
        .iter()
        .find(|r| r["subtype"] == "informational")
        .expect("the switch is announced");
    assert!(
        notice["content"]
            .as_str()
            .unwrap()
            .contains("claude-haiku-4-5")
    );
    assert_eq!(
        records.last().unwrap()["result"],
        "Answer from the fallback."
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_fallback_model_overload_is_an_error_exit() {
    let env = Env::new(Script::new([Reply::overloaded()])).await;
    let out = env.tack().args(["-p", "q"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.to_lowercase().contains("overloaded"), "{stderr}");
}
