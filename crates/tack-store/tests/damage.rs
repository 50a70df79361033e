//! Damage a transcript can carry that loading must not turn into silent loss
//! (issue 17): an empty file, a record lost in the middle.

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::{ContentBlock, Message};
use tack_store::{LoadWarning, RecordMeta, Transcript, load, load_bytes};

const SID: &str = "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60";

fn assistant(id: &str, text: &str) -> serde_json::Value {
    json!({"id": id, "type": "message", "role": "assistant", "model": "m",
           "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
           "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}})
}

#[test]
fn an_empty_or_recordless_file_resumes_nothing_and_says_so() {
    let empty = load_bytes(b"", SID.to_owned());
    assert_eq!(empty.messages, vec![]);
    assert_eq!(
        empty.warnings,
        vec![LoadWarning::NothingToResume { bytes: 0 }]
    );
    assert_eq!(
        empty.warnings[0].to_string(),
        "the transcript is empty (0 bytes): nothing to resume, starting the conversation afresh"
    );
    let summary_only = br#"{"type":"summary","summary":"s","leafUuid":"x"}
"#;
    let loaded = load_bytes(summary_only, SID.to_owned());
    assert_eq!(
        loaded.warnings,
        vec![LoadWarning::NothingToResume { bytes: 48 }]
    );
}

#[test]
fn a_lost_middle_record_keeps_the_history_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let mut t = Transcript::open(&path, SID, RecordMeta::default(), None).unwrap();
    t.append_user(&Message::user_text("one")).unwrap();
    t.append_assistant(assistant("m1", "ONE"), None).unwrap();
    t.append_user(&Message::user_text("two")).unwrap();
    t.append_assistant(assistant("m2", "TWO"), None).unwrap();
    t.append_user(&Message::user_text("three")).unwrap();
    t.append_assistant(assistant("m3", "THREE"), None).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let lost: serde_json::Value = serde_json::from_str(lines[3]).unwrap();
    // Line 4 ("TWO") disappears altogether (not even a garbled line).
    lines.remove(3);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();

    let loaded = load(&path).unwrap();
    assert_eq!(
        loaded.messages,
        vec![
            Message::user_text("one"),
            Message::assistant(vec![ContentBlock::text("ONE")]),
            Message::user(vec![ContentBlock::text("two"), ContentBlock::text("three")]),
            Message::assistant(vec![ContentBlock::text("THREE")]),
        ]
    );
    assert_eq!(
        loaded.warnings,
        vec![LoadWarning::MissingParent {
            line: 4,
            parent_uuid: lost["uuid"].as_str().unwrap().to_owned(),
            resumed_from: Some(3),
        }]
    );
}

#[test]
fn a_first_record_with_a_missing_parent_has_nothing_to_join() {
    let line = json!({"type": "user", "uuid": "u2", "parentUuid": "gone", "sessionId": SID,
                      "message": {"role": "user", "content": "hi"}});
    let loaded = load_bytes(format!("{line}\n").as_bytes(), SID.to_owned());
    assert_eq!(loaded.messages, vec![Message::user_text("hi")]);
    assert_eq!(
        loaded.warnings,
        vec![LoadWarning::MissingParent {
            line: 1,
            parent_uuid: "gone".to_owned(),
            resumed_from: None,
        }]
    );
}

#[test]
fn blocks_the_api_refuses_in_a_role_are_dropped() {
    // Found by the property tests: a tool_result in an assistant record (a
    // hand-edited or foreign file) would make every request of the resumed
    // session fail.
    let line = json!({"type": "assistant", "uuid": "u1", "parentUuid": null, "sessionId": SID,
        "message": {"role": "assistant", "content": [
            {"type": "text", "text": "hi"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}});
    let loaded = load_bytes(format!("{line}\n").as_bytes(), SID.to_owned());
    assert_eq!(
        loaded.messages,
        vec![Message::assistant(vec![ContentBlock::text("hi")])]
    );
    assert_eq!(
        loaded.warnings,
        vec![LoadWarning::MisplacedBlock {
            kind: "tool_result",
            role: "assistant"
        }]
    );
}
