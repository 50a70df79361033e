use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::{
    CacheCreation, ContentBlock, Delta, DeltaUsage, MessageDeltaBody, MessageResponse, Role,
    SseEvent, Usage,
};

use super::*;

/// Reasoning, text, two parallel tool calls whose arguments are split across
/// chunks (and interleaved), finish_reason, then usage in a last chunk of its own.
const RECORDED: &str = concat!(
    r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"qwen3","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Look "},"finish_reason":null}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"reasoning_content":"first."}}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"content":"Let me "}}]}"#,
    "\r\n\r\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"content":"see ✓"}}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"Read","arguments":""}}]}}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"file_path\":"}}]}}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"Bash","arguments":"{\"command\""}}]}}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"/a\"}"}}]}}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":\"ls\"}"}}]}}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    "\n\n",
    r#"data: {"id":"chatcmpl-1","model":"qwen3","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":100}}}"#,
    "\n\n",
    "data: [DONE]\n\n",
);

fn decode_in(chunks: &[&[u8]]) -> Result<Vec<StreamEvent>, ApiError> {
    let mut decoder = ChatDecoder::default();
    let mut out = VecDeque::new();
    for chunk in chunks {
        decoder.feed(chunk, &mut out)?;
    }
    decoder.finish(&mut out)?;
    Ok(out.into_iter().collect())
}

fn sse(event: SseEvent) -> StreamEvent {
    StreamEvent::Sse(event)
}

fn start(index: usize, block: ContentBlock) -> StreamEvent {
    sse(SseEvent::ContentBlockStart {
        index,
        content_block: block,
    })
}

fn delta(index: usize, delta: Delta) -> StreamEvent {
    sse(SseEvent::ContentBlockDelta { index, delta })
}

fn text(index: usize, text: &str) -> StreamEvent {
    delta(index, Delta::TextDelta { text: text.into() })
}

fn json_part(index: usize, partial_json: &str) -> StreamEvent {
    delta(
        index,
        Delta::InputJsonDelta {
            partial_json: partial_json.into(),
        },
    )
}

fn stop(index: usize) -> StreamEvent {
    sse(SseEvent::ContentBlockStop { index })
}

fn done(index: usize, block: ContentBlock) -> StreamEvent {
    StreamEvent::BlockDone {
        index,
        block,
        input_error: None,
    }
}

fn thinking(t: &str) -> ContentBlock {
    ContentBlock::Thinking {
        thinking: t.into(),
        signature: String::new(),
    }
}

fn message(model: &str, content: Vec<ContentBlock>) -> MessageResponse {
    MessageResponse {
        id: "chatcmpl-1".into(),
        kind: "message".into(),
        role: Role::Assistant,
        model: model.into(),
        content,
        stop_reason: None,
        stop_sequence: None,
        usage: Usage {
            cache_creation: Some(CacheCreation::default()),
            ..Usage::default()
        },
        stop_details: None,
    }
}

fn end(reason: StopReason, usage: DeltaUsage) -> StreamEvent {
    sse(SseEvent::MessageDelta {
        delta: MessageDeltaBody {
            stop_reason: Some(reason),
            stop_sequence: None,
            stop_details: None,
        },
        usage,
    })
}

#[test]
fn a_recorded_stream_becomes_the_anthropic_event_sequence() {
    let read = ContentBlock::tool_use("call_a", "Read", json!({"file_path": "/a"}));
    let bash = ContentBlock::tool_use("call_b", "Bash", json!({"command": "ls"}));
    let mut final_message = message(
        "qwen3",
        vec![
            thinking("Look first."),
            ContentBlock::text("Let me see ✓"),
            read.clone(),
            bash.clone(),
        ],
    );
    final_message.stop_reason = Some(StopReason::ToolUse);
    final_message.usage = Usage {
        input_tokens: 20,
        cache_read_input_tokens: 100,
        output_tokens: 30,
        cache_creation: Some(CacheCreation::default()),
        ..Usage::default()
    };
    let expected = vec![
        sse(SseEvent::MessageStart {
            message: message("qwen3", vec![]),
        }),
        start(0, thinking("")),
        delta(
            0,
            Delta::ThinkingDelta {
                thinking: "Look ".into(),
            },
        ),
        delta(
            0,
            Delta::ThinkingDelta {
                thinking: "first.".into(),
            },
        ),
        stop(0),
        done(0, thinking("Look first.")),
        start(1, ContentBlock::text("")),
        text(1, "Let me "),
        text(1, "see ✓"),
        stop(1),
        done(1, ContentBlock::text("Let me see ✓")),
        start(2, ContentBlock::tool_use("call_a", "Read", json!({}))),
        json_part(2, "{\"file_path\":"),
        start(3, ContentBlock::tool_use("call_b", "Bash", json!({}))),
        json_part(3, "{\"command\""),
        json_part(2, "\"/a\"}"),
        json_part(3, ":\"ls\"}"),
        stop(2),
        done(2, read),
        stop(3),
        done(3, bash),
        end(StopReason::ToolUse, usage(120, 30, 100)),
        sse(SseEvent::MessageStop),
        StreamEvent::MessageDone(final_message),
    ];
    assert_eq!(decode_in(&[RECORDED.as_bytes()]).unwrap(), expected);
}

#[test]
fn any_split_of_the_bytes_gives_the_same_events() {
    let bytes = RECORDED.as_bytes();
    let whole = decode_in(&[bytes]).unwrap();
    for at in 0..bytes.len() {
        let (a, b) = bytes.split_at(at);
        assert_eq!(decode_in(&[a, b]).unwrap(), whole, "split at {at}");
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode_in(&singles).unwrap(), whole);
}

fn final_message(stream: &str) -> Result<MessageResponse, ApiError> {
    match decode_in(&[stream.as_bytes()])?.pop() {
        Some(StreamEvent::MessageDone(m)) => Ok(m),
        other => panic!("no message: {other:?}"),
    }
}

#[test]
fn finish_reasons_map_to_stop_reasons() {
    let stream = |reason: &str| {
        format!(
            "data: {}\n\ndata: [DONE]\n\n",
            json!({"id":"chatcmpl-1","model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":reason}]})
        )
    };
    let got: Vec<Option<StopReason>> = ["stop", "length", "content_filter", "eos"]
        .iter()
        .map(|r| final_message(&stream(r)).unwrap().stop_reason)
        .collect();
    assert_eq!(
        got,
        vec![
            Some(StopReason::EndTurn),
            Some(StopReason::MaxTokens),
            Some(StopReason::Refusal),
            Some(StopReason::Other("eos".into())),
        ]
    );
}

#[test]
fn a_server_that_says_stop_after_a_tool_call_still_stops_for_tool_use() {
    // No id either: one is made up; no [DONE]: the end of the body ends it.
    let stream = concat!(
        r#"data: {"model":"m","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"Read","arguments":"{\"file_path\":\"/x\"}"}}]},"finish_reason":"stop"}]}"#,
        "\n\n"
    );
    let message = final_message(stream).unwrap();
    assert_eq!(message.stop_reason, Some(StopReason::ToolUse));
    let [
        ContentBlock::ToolUse {
            id, name, input, ..
        },
    ] = message.content.as_slice()
    else {
        panic!("{:?}", message.content);
    };
    assert!(id.starts_with("call_"), "{id}");
    assert_eq!(
        (name.as_str(), input),
        ("Read", &json!({"file_path": "/x"}))
    );
}

#[test]
fn errors_mid_stream_and_truncation() {
    let error = concat!(
        r#"data: {"id":"c","model":"m","choices":[{"delta":{"content":"x"}}]}"#,
        "\n\n",
        r#"data: {"error":{"message":"This model's maximum context length is 10 tokens","code":"context_length_exceeded"}}"#,
        "\n\n"
    );
    assert!(matches!(
        final_message(error),
        Err(ApiError::PromptTooLong { .. })
    ));
    let cut =
        r#"data: {"id":"c","model":"m","choices":[{"delta":{"content":"x"}}]}"#.to_owned() + "\n\n";
    assert_eq!(
        final_message(&cut),
        Err(ApiError::Connection {
            message: "stream ended before the response finished".into()
        })
    );
    assert!(matches!(
        final_message("data: {not json\n\n"),
        Err(ApiError::Protocol { .. })
    ));
}

#[test]
fn calls_without_an_index_continue_the_last_one() {
    let stream = concat!(
        r#"data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"Read","arguments":"{\"file_path\""}}]}}]}"#,
        "\n\n",
        r#"data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":\"/x\"}"}}]}}]}"#,
        "\n\n",
        r#"data: {"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"Bash","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
        "\n\ndata: [DONE]\n\n"
    );
    assert_eq!(
        final_message(stream).unwrap().content,
        vec![
            ContentBlock::tool_use("a", "Read", json!({"file_path": "/x"})),
            ContentBlock::tool_use("b", "Bash", json!({})),
        ]
    );
}
