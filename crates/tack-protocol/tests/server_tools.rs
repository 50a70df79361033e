//! Server tool blocks (`server_tool_use`, `web_search_tool_result`) and cited
//! text, in the shapes the API documents: kept byte for byte, readable through
//! the typed views, and never taken for client `tool_use` blocks.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_protocol::*;

fn search_response() -> Value {
    json!({
        "id": "msg_01Srch", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [
            {"type": "text", "text": "I'll search for that."},
            {"type": "server_tool_use", "id": "srvtoolu_01A", "name": "web_search",
             "input": {"query": "tokio paused clock"}, "caller": {"type": "direct"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01A", "content": [
                {"type": "web_search_result", "url": "https://docs.rs/tokio/latest/tokio/time/fn.pause.html",
                 "title": "pause in tokio::time", "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": "April 30, 2025"},
                {"type": "web_search_result", "url": "https://tokio.rs/blog/2020-04-preemption",
                 "title": "Tokio blog", "encrypted_content": "Eo8BCioIAhgBIiQy"}
            ]},
            {"type": "server_tool_use", "id": "srvtoolu_01B", "name": "web_search", "input": {"query": "again"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01B",
             "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
            {"type": "text", "text": "Time can be paused in tests.", "citations": [
                {"type": "web_search_result_location", "url": "https://docs.rs/tokio/latest/tokio/time/fn.pause.html",
                 "title": "pause in tokio::time", "encrypted_index": "Eo8BCioIAhgB", "cited_text": "Pauses time."}
            ]}
        ],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 6039, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                  "output_tokens": 931, "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 0}}
    })
}

#[test]
fn a_search_response_round_trips_unchanged() {
    let sample = search_response();
    let msg: MessageResponse = serde_json::from_value(sample.clone()).unwrap();
    assert_eq!(serde_json::to_value(&msg).unwrap(), sample);
    // As history in the next request, and as a stored message, the blocks are the same JSON.
    let history = Message::assistant(msg.content.clone());
    let again: Message = serde_json::from_str(&serde_json::to_string(&history).unwrap()).unwrap();
    assert_eq!(again, history);
    assert_eq!(
        serde_json::to_value(&history).unwrap()["content"],
        sample["content"]
    );
}

#[test]
fn server_tool_calls_are_not_client_tool_uses() {
    let msg: MessageResponse = serde_json::from_value(search_response()).unwrap();
    let history = Message::assistant(msg.content.clone());
    assert_eq!(history.tool_uses().count(), 0);
    let calls: Vec<ServerToolCall<'_>> = msg
        .content
        .iter()
        .filter_map(ContentBlock::as_server_tool_call)
        .collect();
    assert_eq!(
        calls,
        vec![
            ServerToolCall {
                id: "srvtoolu_01A",
                name: "web_search",
                input: &json!({"query": "tokio paused clock"}),
            },
            ServerToolCall {
                id: "srvtoolu_01B",
                name: "web_search",
                input: &json!({"query": "again"}),
            },
        ]
    );
    assert_eq!(
        msg.content
            .iter()
            .map(ContentBlock::type_name)
            .collect::<Vec<_>>(),
        vec![
            "text",
            "server_tool_use",
            "web_search_tool_result",
            "server_tool_use",
            "web_search_tool_result",
            "text"
        ]
    );
}

#[test]
fn web_search_results_and_errors_are_readable() {
    let msg: MessageResponse = serde_json::from_value(search_response()).unwrap();
    let results: Vec<WebSearchToolResult> = msg
        .content
        .iter()
        .filter_map(ContentBlock::as_web_search_result)
        .collect();
    assert_eq!(
        results,
        vec![
            WebSearchToolResult {
                tool_use_id: "srvtoolu_01A".into(),
                content: WebSearchOutcome::Results(vec![
                    WebSearchHit {
                        url: "https://docs.rs/tokio/latest/tokio/time/fn.pause.html".into(),
                        title: "pause in tokio::time".into(),
                        page_age: Some("April 30, 2025".into()),
                    },
                    WebSearchHit {
                        url: "https://tokio.rs/blog/2020-04-preemption".into(),
                        title: "Tokio blog".into(),
                        page_age: None,
                    },
                ]),
            },
            WebSearchToolResult {
                tool_use_id: "srvtoolu_01B".into(),
                content: WebSearchOutcome::Error(WebSearchError {
                    error_code: "max_uses_exceeded".into()
                }),
            },
        ]
    );
    assert_eq!(
        msg.usage.server_tool_use.map(|s| s.web_search_requests),
        Some(2)
    );
}

#[test]
fn constructors_build_the_api_shapes() {
    assert_eq!(
        serde_json::to_value(ContentBlock::server_tool_use(
            "srvtoolu_1",
            "web_search",
            json!({"query": "q"})
        ))
        .unwrap(),
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}})
    );
    let result = ContentBlock::web_search_tool_result(
        "srvtoolu_1",
        json!([{"type": "web_search_result", "url": "https://a.example", "title": "A"}]),
    );
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
               "content": [{"type": "web_search_result", "url": "https://a.example", "title": "A"}]})
    );
    assert_eq!(result.as_server_tool_call(), None);
    assert_eq!(ContentBlock::text("x").as_web_search_result(), None);
}

#[test]
fn malformed_server_blocks_are_kept_but_have_no_view() {
    let odd = json!({"type": "server_tool_use", "name": "web_search"});
    let block: ContentBlock = serde_json::from_value(odd.clone()).unwrap();
    assert_eq!(block.as_server_tool_call(), None);
    assert_eq!(serde_json::to_value(&block).unwrap(), odd);
}
