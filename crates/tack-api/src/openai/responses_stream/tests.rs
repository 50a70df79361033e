use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::{CacheCreation, ContentBlock, MessageResponse, Usage};

use super::*;

fn event(value: serde_json::Value) -> String {
    format!(
        "event: {}\ndata: {value}\n\n",
        value["type"].as_str().unwrap()
    )
}

fn recorded() -> String {
    [
        json!({"type":"response.created","response":{"id":"resp_1","model":"gpt-5","status":"in_progress"}}),
        json!({"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}}),
        json!({"type":"response.reasoning_summary_text.delta","output_index":0,"delta":"Plan."}),
        json!({"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1"}}),
        json!({"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}),
        json!({"type":"response.content_part.added","output_index":1,"content_index":0,"part":{"type":"output_text","text":""}}),
        json!({"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"Read"}),
        json!({"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"ing."}),
        json!({"type":"response.output_item.done","output_index":1,"item":{"type":"message","id":"msg_1"}}),
        json!({"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_a","name":"Read","arguments":""}}),
        json!({"type":"response.function_call_arguments.delta","output_index":2,"delta":"{\"file_path\":"}),
        json!({"type":"response.function_call_arguments.delta","output_index":2,"delta":"\"/a\"}"}),
        json!({"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","call_id":"call_a","name":"Read","arguments":"{\"file_path\":\"/a\"}"}}),
        // A call whose arguments come only with the finished item.
        json!({"type":"response.output_item.added","output_index":3,"item":{"type":"function_call","call_id":"call_b","name":"Bash"}}),
        json!({"type":"response.output_item.done","output_index":3,"item":{"type":"function_call","call_id":"call_b","name":"Bash","arguments":"{\"command\":\"ls\"}"}}),
        json!({"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":500,"input_tokens_details":{"cached_tokens":400},"output_tokens":42,"total_tokens":542}}}),
    ]
    .into_iter()
    .map(event)
    .collect()
}

fn decode_in(chunks: &[&[u8]]) -> Result<Vec<StreamEvent>, ApiError> {
    let mut decoder = ResponsesDecoder::default();
    let mut out = VecDeque::new();
    for chunk in chunks {
        decoder.feed(chunk, &mut out)?;
    }
    decoder.finish(&mut out)?;
    Ok(out.into_iter().collect())
}

fn message(events: &[StreamEvent]) -> MessageResponse {
    match events.last() {
        Some(StreamEvent::MessageDone(m)) => m.clone(),
        other => panic!("no message: {other:?}"),
    }
}

#[test]
fn a_recorded_stream_becomes_one_message() {
    let events = decode_in(&[recorded().as_bytes()]).unwrap();
    let expected = MessageResponse {
        id: "resp_1".into(),
        kind: "message".into(),
        role: tack_protocol::Role::Assistant,
        model: "gpt-5".into(),
        content: vec![
            ContentBlock::Thinking {
                thinking: "Plan.".into(),
                signature: String::new(),
            },
            ContentBlock::text("Reading."),
            ContentBlock::tool_use("call_a", "Read", json!({"file_path": "/a"})),
            ContentBlock::tool_use("call_b", "Bash", json!({"command": "ls"})),
        ],
        stop_reason: Some(StopReason::ToolUse),
        stop_sequence: None,
        usage: Usage {
            input_tokens: 100,
            cache_read_input_tokens: 400,
            output_tokens: 42,
            cache_creation: Some(CacheCreation::default()),
            ..Usage::default()
        },
        stop_details: None,
    };
    assert_eq!(message(&events), expected);
    // Each block is reported done once, in order, before the message.
    let done: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::BlockDone { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(done, vec![0, 1, 2, 3]);
}

#[test]
fn any_split_of_the_bytes_gives_the_same_events() {
    let recorded = recorded();
    let bytes = recorded.as_bytes();
    let whole = decode_in(&[bytes]).unwrap();
    for at in 0..bytes.len() {
        let (a, b) = bytes.split_at(at);
        assert_eq!(decode_in(&[a, b]).unwrap(), whole, "split at {at}");
    }
}

#[test]
fn incomplete_and_failed_responses() {
    let incomplete: String = [
        json!({"type":"response.created","response":{"id":"r","model":"m"}}),
        json!({"type":"response.output_text.delta","output_index":0,"delta":"cut"}),
        json!({"type":"response.incomplete","response":{"id":"r","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1,"output_tokens":2}}}),
    ]
    .into_iter()
    .map(event)
    .collect();
    let m = message(&decode_in(&[incomplete.as_bytes()]).unwrap());
    assert_eq!(
        (m.stop_reason, m.content),
        (Some(StopReason::MaxTokens), vec![ContentBlock::text("cut")])
    );
    let failed = event(
        json!({"type":"response.failed","response":{"id":"r","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}}),
    );
    assert!(matches!(
        decode_in(&[failed.as_bytes()]),
        Err(ApiError::PromptTooLong { .. })
    ));
    let error = event(json!({"type":"error","code":"server_error","message":"boom"}));
    assert_eq!(
        decode_in(&[error.as_bytes()]),
        Err(ApiError::Server {
            status: 500,
            retry_after: None,
            message: "boom".into()
        })
    );
}
