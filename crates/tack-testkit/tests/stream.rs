//! The streamed (and non-streamed) message: event sequence, timing and faults.

use crate::common;

use std::time::Duration;

use common::{json_of, names, pairs, post, read_events, request_body};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};

fn ev(name: &str, data: Value) -> (String, Value) {
    (name.to_owned(), data)
}

fn text_delta(index: usize, text: &str) -> (String, Value) {
    ev(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
    )
}

fn json_delta(index: usize, partial: &str) -> (String, Value) {
    ev(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": partial}}),
    )
}

fn usage(input: u64, output: u64) -> Value {
    json!({
        "input_tokens": input,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "output_tokens": output,
        "service_tier": "standard",
    })
}

#[tokio::test]
async fn text_and_tool_use_stream_as_the_api_does() {
    let reply = Reply::message()
        .text("Let me look at it.")
        .tool_use("toolu_01", "Read", json!({"file_path": "/x"}))
        .usage(10, 5);
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let response = post(&server.base_url(), "/v1/messages", &request_body(true)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let (events, end) = read_events(response).await;

    assert_eq!(end, Ok(()));
    assert_eq!(
        pairs(&events),
        vec![
            ev(
                "message_start",
                json!({"type": "message_start", "message": {
                    "id": "msg_mock_1", "type": "message", "role": "assistant",
                    "model": "claude-test", "content": [], "stop_reason": null,
                    "stop_sequence": null, "usage": usage(10, 1)}})
            ),
            ev("ping", json!({"type": "ping"})),
            ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
            ),
            text_delta(0, "Let me look "),
            text_delta(0, "at it."),
            ev(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0})
            ),
            ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": 1, "content_block":
                    {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {}}})
            ),
            json_delta(1, ""),
            json_delta(1, r#"{"file_"#),
            json_delta(1, r#"path":""#),
            json_delta(1, r#"/x"}"#),
            ev(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 1})
            ),
            ev(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                    "usage": {"output_tokens": 5}})
            ),
            ev("message_stop", json!({"type": "message_stop"})),
        ]
    );
}

#[tokio::test]
async fn tool_input_fragments_concatenate_to_the_input() {
    let input = json!({"command": "grep -rn \"fn main\" src/ | head -20", "description": "Find ✓ mains", "timeout": 120000});
    let raw = r#"{"command": "ls"#;
    let reply = Reply::message()
        .tool_use("toolu_01", "Bash", input.clone())
        .raw_tool_input("toolu_02", "Bash", raw);
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let (events, _) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;

    let fragments = |index: u64| -> Vec<String> {
        events
            .iter()
            .filter(|e| e.data["index"] == index && e.data["delta"]["type"] == "input_json_delta")
            .map(|e| e.data["delta"]["partial_json"].as_str().unwrap().to_owned())
            .collect()
    };
    let first = fragments(0);
    assert_eq!(
        first[0], "",
        "the API opens tool input with an empty fragment"
    );
    assert!(
        first.len() > 3,
        "input arrives in several fragments: {first:?}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&first.concat()).unwrap(),
        input
    );
    assert_eq!(fragments(1).concat(), raw);
}

#[tokio::test]
async fn thinking_streams_deltas_then_one_signature() {
    let reply = Reply::message()
        .thinking("I should read the file first.", "sig-1")
        .text("ok");
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let (events, _) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;

    let block0: Vec<Value> = events
        .iter()
        .filter(|e| e.data["index"] == 0)
        .map(|e| e.data["delta"].clone())
        .collect();
    assert_eq!(
        block0,
        vec![
            Value::Null,
            json!({"type": "thinking_delta", "thinking": "I should rea"}),
            json!({"type": "thinking_delta", "thinking": "d the file f"}),
            json!({"type": "thinking_delta", "thinking": "irst."}),
            json!({"type": "signature_delta", "signature": "sig-1"}),
            Value::Null,
        ]
    );
    assert_eq!(
        events[2].data["content_block"],
        json!({"type": "thinking", "thinking": "", "signature": ""})
    );
    assert_eq!(events.last().unwrap().name, "message_stop");
    let delta = &events[events.len() - 2].data;
    assert_eq!(delta["delta"]["stop_reason"], "end_turn");
}

#[tokio::test]
async fn without_stream_the_reply_is_one_message_object() {
    let reply = Reply::message()
        .text("Let me look.")
        .tool_use("toolu_01", "Read", json!({"file_path": "/x"}))
        .usage(7, 3)
        .model("claude-sonnet-4-5");
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let response = post(&server.base_url(), "/v1/messages", &request_body(false)).await;

    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert_eq!(
        json_of(response).await,
        json!({
            "id": "msg_mock_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/x"}},
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": usage(7, 3),
        })
    );
}

#[tokio::test]
async fn pacing_spreads_events_over_time() {
    let pacing = Duration::from_millis(20);
    let reply = Reply::message().text("one two three").pacing(pacing);
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let response = post(&server.base_url(), "/v1/messages", &request_body(true)).await;
    let (events, _) = read_events(response).await;

    let gaps = events.len() as u32 - 1;
    let streamed = events.last().unwrap().at - events[0].at;
    assert!(
        streamed >= pacing * gaps,
        "{} events arrived within {streamed:?}",
        events.len()
    );
}

#[tokio::test]
async fn block_gap_holds_the_stream_after_a_finished_block() {
    let gap = Duration::from_millis(150);
    let reply = Reply::message()
        .tool_use("toolu_01", "Read", json!({"file_path": "/x"}))
        .text("still talking")
        .block_gap(gap);
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let (events, _) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;

    let stop = events
        .iter()
        .position(|e| e.name == "content_block_stop")
        .unwrap();
    assert_eq!(events[stop].data["index"], 0);
    assert!(events[stop + 1].at - events[stop].at >= gap);
}

#[tokio::test]
async fn stall_after_pauses_then_finishes() {
    let stall = Duration::from_millis(150);
    let reply = Reply::message().text("hi").stall_after(2, stall);
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let (events, end) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;

    assert_eq!(end, Ok(()));
    assert_eq!(events.last().unwrap().name, "message_stop");
    assert!(events[2].at - events[1].at >= stall);
}

#[tokio::test]
async fn cut_after_drops_the_connection_without_message_stop() {
    let reply = Reply::message().text("Let me look at it.").cut_after(4);
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let (events, end) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;

    assert_eq!(
        names(&events),
        vec![
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta"
        ]
    );
    assert!(end.is_err(), "the body must end in a transport error");
}

#[tokio::test]
async fn error_event_after_ends_the_stream_with_an_error_event() {
    let reply = Reply::message()
        .text("hi")
        .error_event_after(2, "overloaded_error", "Overloaded");
    let server = MockServer::start(Script::new([reply.into()]))
        .await
        .unwrap();

    let (events, end) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;

    assert_eq!(end, Ok(()));
    assert_eq!(names(&events), vec!["message_start", "ping", "error"]);
    assert_eq!(
        events[2].data,
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
}

#[tokio::test]
async fn faults_without_streaming_become_http_failures() {
    let server = MockServer::start(Script::new([
        Reply::message()
            .text("hi")
            .error_event_after(1, "overloaded_error", "Overloaded")
            .into(),
        Reply::message().text("hi").cut_after(1).into(),
    ]))
    .await
    .unwrap();
    let base = server.base_url();

    let overloaded = post(&base, "/v1/messages", &request_body(false)).await;
    assert_eq!(overloaded.status(), 529);

    let cut = post(&base, "/v1/messages", &request_body(false)).await;
    assert!(cut.bytes().await.is_err());
}

#[tokio::test]
async fn a_client_that_hangs_up_mid_stream_is_counted() {
    let reply = Reply::message()
        .text("a long answer that takes a while")
        .pacing(Duration::from_millis(20));
    let server = MockServer::start(Script::new([reply.into(), Reply::text("short")]))
        .await
        .unwrap();

    // Read two events, then hang up.
    let response = post(&server.base_url(), "/v1/messages", &request_body(true)).await;
    let mut chunks = response.bytes_stream();
    let _ = futures::StreamExt::next(&mut chunks).await;
    drop(chunks);
    tokio::time::timeout(Duration::from_secs(5), server.wait_abandoned_streams(1))
        .await
        .expect("the hang-up is noticed at the next write");

    // A stream read to its end is not abandoned.
    let (_, end) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;
    assert_eq!(end, Ok(()));
    assert_eq!(server.abandoned_streams(), 1);
}

#[tokio::test]
async fn each_stream_read_to_its_end_records_when_it_ended() {
    let paced = Reply::message()
        .text("slow")
        .pacing(Duration::from_millis(30));
    let server = MockServer::start(Script::new([
        paced.into(),
        Reply::text("second"),
        Reply::message().text("cut").cut_after(2).into(),
    ]))
    .await
    .unwrap();
    let base = server.base_url();

    let (_, end) = read_events(post(&base, "/v1/messages", &request_body(true)).await).await;
    assert_eq!(end, Ok(()));
    let (_, end) = read_events(post(&base, "/v1/messages", &request_body(true)).await).await;
    assert_eq!(end, Ok(()));
    let (_, end) = read_events(post(&base, "/v1/messages", &request_body(true)).await).await;
    assert!(end.is_err());

    // Two ends: the cut stream did not play to its end.
    let ends = server.stream_ends();
    let requests = server.requests();
    assert_eq!((ends.len(), requests.len()), (2, 3));
    // Each end falls between its request and the next one; the paced reply
    // (several events 30 ms apart) ends well after its request arrived.
    assert!(ends[0] >= requests[0].received_at + Duration::from_millis(30));
    assert!(ends[0] <= requests[1].received_at);
    assert!(ends[1] >= requests[1].received_at && ends[1] <= requests[2].received_at);
}

#[tokio::test]
async fn a_scripted_cut_is_not_an_abandoned_stream() {
    let server = MockServer::start(Script::new([Reply::message()
        .text("Let me look at it.")
        .cut_after(4)
        .into()]))
    .await
    .unwrap();
    let (_, end) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;
    assert!(end.is_err());
    assert_eq!(server.abandoned_streams(), 0);
}

#[tokio::test]
async fn server_tool_blocks_stream_as_the_api_does() {
    let hits = json!([{"type": "web_search_result", "url": "https://a.example/x", "title": "A", "encrypted_content": "enc"}]);
    let citation = json!({"type": "web_search_result_location", "url": "https://a.example/x", "title": "A", "cited_text": "x"});
    let reply = Reply::message()
        .server_tool_use("srvtoolu_01", "web_search", json!({"query": "rust"}))
        .web_search_tool_result("srvtoolu_01", hits.clone())
        .cited_text("Per A.", vec![citation.clone()])
        .usage(10, 5);
    let server = MockServer::start(Script::new([reply.clone().into(), reply.into()]))
        .await
        .unwrap();

    let (events, end) =
        read_events(post(&server.base_url(), "/v1/messages", &request_body(true)).await).await;
    assert_eq!(end, Ok(()));
    let blocks: Vec<(String, Value)> = pairs(&events)
        .into_iter()
        .filter(|(name, _)| name.starts_with("content_block"))
        .filter(|(_, data)| data["delta"]["type"] != "input_json_delta")
        .collect();
    let start = |index: usize, block: Value| {
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        )
    };
    let stop = |index: usize| {
        ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        )
    };
    let result =
        json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": hits});
    assert_eq!(
        blocks,
        vec![
            start(
                0,
                json!({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}})
            ),
            stop(0),
            start(1, result.clone()),
            stop(1),
            start(2, json!({"type": "text", "text": ""})),
            ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 2, "delta": {"type": "citations_delta", "citation": citation}})
            ),
            text_delta(2, "Per A."),
            stop(2),
        ]
    );
    let fragments: String = events
        .iter()
        .filter(|e| e.data["index"] == 0 && e.data["delta"]["type"] == "input_json_delta")
        .map(|e| e.data["delta"]["partial_json"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(fragments, r#"{"query":"rust"}"#);
    // Server tools are run by the API: the turn ends, it does not wait for results.
    assert_eq!(
        events[events.len() - 2].data["delta"]["stop_reason"],
        "end_turn"
    );

    let whole = json_of(post(&server.base_url(), "/v1/messages", &request_body(false)).await).await;
    assert_eq!(
        whole["content"],
        json!([
            {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "rust"}},
            result,
            {"type": "text", "text": "Per A.", "citations": [citation]},
        ])
    );
}
