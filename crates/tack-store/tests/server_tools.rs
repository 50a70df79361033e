//! Server tool blocks (`server_tool_use`, `web_search_tool_result`, cited text) in
//! transcripts: written one record per block like any assistant content, loaded
//! back byte for byte, and never repaired as if they were client tool calls.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, Message};
use tack_store::{LoadWarning, RecordMeta, Transcript, load};

const SID: &str = "5d1c0a7e-2b3f-4e8d-9c6a-1f0e2d3c4b5a";

fn assistant(id: &str, blocks: Value) -> Value {
    json!({"id": id, "type": "message", "role": "assistant", "model": "claude-test",
           "content": blocks, "stop_reason": null, "stop_sequence": null,
           "usage": {"input_tokens": 3, "output_tokens": 5,
                     "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0}}})
}

fn search_blocks() -> Vec<Value> {
    vec![
        json!({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
               "input": {"query": "rust 2024 edition"}, "caller": {"type": "direct"}}),
        json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
            {"type": "web_search_result", "url": "https://doc.rust-lang.org/edition-guide/",
             "title": "The Rust Edition Guide", "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": "2 days ago"}]}),
        json!({"type": "text", "text": "The 2024 edition is stable.", "citations": [
            {"type": "web_search_result_location", "url": "https://doc.rust-lang.org/edition-guide/",
             "title": "The Rust Edition Guide", "encrypted_index": "Eo8B", "cited_text": "Rust 2024"}]}),
    ]
}

fn write(path: &std::path::Path, blocks: &[Value]) {
    let meta = RecordMeta {
        cwd: "/home/dev/proj".into(),
        git_branch: "main".into(),
        version: "0.1.0".into(),
        entrypoint: String::new(),
    };
    let mut t = Transcript::open(path, SID, meta, None).unwrap();
    t.append_user(&Message::user_text("what is new in rust?"))
        .unwrap();
    for block in blocks {
        t.append_assistant(assistant("msg_1", json!([block])), Some("req_1"))
            .unwrap();
    }
}

#[test]
fn server_tool_blocks_persist_and_resume_verbatim() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let blocks = search_blocks();
    write(&path, &blocks);

    let loaded = load(&path).unwrap();
    let expected_blocks: Vec<ContentBlock> = blocks
        .iter()
        .map(|b| serde_json::from_value(b.clone()).unwrap())
        .collect();
    assert_eq!(
        loaded.messages,
        vec![
            Message::user_text("what is new in rust?"),
            Message::assistant(expected_blocks),
        ]
    );
    assert_eq!(loaded.warnings, vec![]);
    // What a resumed session sends back is the JSON the API produced.
    assert_eq!(
        serde_json::to_value(&loaded.messages[1]).unwrap()["content"],
        Value::Array(blocks.clone())
    );
    // And the file holds each block as received.
    let text = std::fs::read_to_string(&path).unwrap();
    let stored: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "assistant")
        .map(|r| r["message"]["content"][0].clone())
        .collect();
    assert_eq!(stored, blocks);
}

#[test]
fn an_unanswered_server_tool_use_is_not_repaired_as_a_client_call() {
    // Killed between the server's search and its result: the loader must not add
    // a tool_result for `srvtoolu_01` (the API would reject one).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{SID}.jsonl"));
    let blocks = search_blocks();
    write(&path, &blocks[..1]);

    let loaded = load(&path).unwrap();
    assert_eq!(
        loaded.messages,
        vec![
            Message::user_text("what is new in rust?"),
            Message::assistant(vec![serde_json::from_value(blocks[0].clone()).unwrap()]),
        ]
    );
    assert_eq!(loaded.warnings, Vec::<LoadWarning>::new());
}
