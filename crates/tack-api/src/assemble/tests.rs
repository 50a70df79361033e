use pretty_assertions::assert_eq;
use serde_json::json;
use tack_protocol::{DeltaUsage, MessageDeltaBody, Role, StopReason, UnknownBlock, Usage};

use super::*;

/// Streaming spec §6 plus a thinking block, a ping, an unknown event, an unknown
/// delta, comments and CRLF line ends.
const RECORDED: &str = concat!(
    ": hello\r\n",
    "event: message_start\r\n",
    r#"data: {"type":"message_start","message":{"id":"msg_01Gq7uN4","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1204,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}}"#,
    "\r\n\r\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Open the "}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"config ✓"}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":0}"#,
    "\n\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
    "\n\n",
    "event: ping\n",
    r#"data: {"type": "ping"}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Let me open"}}"#,
    "\n\n",
    "event: future_event\n",
    r#"data: {"type":"future_event","x":[1,2]}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":1,"delta":{"type":"future_delta","y":1}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" the config file.\n"}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":1}"#,
    "\n\n",
    "event: content_block_start\n",
    r#"data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01LmR8","name":"Read","input":{}}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"file_path\": \"/ho"}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"me/dev/tack/Cargo.t"}}"#,
    "\n\n",
    "event: content_block_delta\n",
    r#"data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"oml\", \"limit\": 80}"}}"#,
    "\n\n",
    "event: content_block_stop\n",
    r#"data: {"type":"content_block_stop","index":2}"#,
    "\n\n",
    "event: message_delta\n",
    r#"data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":61}}"#,
    "\n\n",
    "event: message_stop\n",
    r#"data: {"type":"message_stop"}"#,
    "\n\n",
);

fn run(chunks: &[&[u8]]) -> (Vec<StreamEvent>, Result<(), ApiError>) {
    let mut decoder = StreamDecoder::new();
    let mut out = VecDeque::new();
    for chunk in chunks {
        if let Err(e) = decoder.feed(chunk, &mut out) {
            return (out.into(), Err(e));
        }
    }
    let end = decoder.finish(&mut out);
    (out.into(), end)
}

fn run_str(input: &str) -> (Vec<StreamEvent>, Result<(), ApiError>) {
    run(&[input.as_bytes()])
}

fn sse(event: SseEvent) -> StreamEvent {
    StreamEvent::Sse(event)
}

fn delta(index: usize, delta: Delta) -> StreamEvent {
    sse(SseEvent::ContentBlockDelta { index, delta })
}

fn text(s: &str) -> Delta {
    Delta::TextDelta { text: s.into() }
}

fn json_delta(s: &str) -> Delta {
    Delta::InputJsonDelta {
        partial_json: s.into(),
    }
}

fn message_start() -> MessageResponse {
    MessageResponse {
        id: "msg_01Gq7uN4".into(),
        kind: "message".into(),
        role: Role::Assistant,
        model: "claude-sonnet-4-5-20250929".into(),
        content: vec![],
        stop_reason: None,
        stop_sequence: None,
        usage: Usage {
            input_tokens: 1204,
            output_tokens: 2,
            ..Usage::default()
        },
        stop_details: None,
    }
}

#[test]
fn recorded_stream_gives_the_whole_event_list() {
    let thinking = ContentBlock::Thinking {
        thinking: "Open the config ✓".into(),
        signature: "EqQB".into(),
    };
    let answer = ContentBlock::text("Let me open the config file.\n");
    let read = ContentBlock::tool_use(
        "toolu_01LmR8",
        "Read",
        json!({"file_path": "/home/dev/tack/Cargo.toml", "limit": 80}),
    );
    let mut done = message_start();
    done.content = vec![thinking.clone(), answer.clone(), read.clone()];
    done.stop_reason = Some(StopReason::ToolUse);
    done.usage.output_tokens = 61;
    let expected = vec![
        sse(SseEvent::MessageStart {
            message: message_start(),
        }),
        sse(SseEvent::ContentBlockStart {
            index: 0,
            content_block: ContentBlock::Thinking {
                thinking: String::new(),
                signature: String::new(),
            },
        }),
        delta(
            0,
            Delta::ThinkingDelta {
                thinking: "Open the ".into(),
            },
        ),
        delta(
            0,
            Delta::ThinkingDelta {
                thinking: "config ✓".into(),
            },
        ),
        delta(
            0,
            Delta::SignatureDelta {
                signature: "EqQB".into(),
            },
        ),
        sse(SseEvent::ContentBlockStop { index: 0 }),
        StreamEvent::BlockDone {
            index: 0,
            block: thinking,
            input_error: None,
        },
        sse(SseEvent::ContentBlockStart {
            index: 1,
            content_block: ContentBlock::text(""),
        }),
        sse(SseEvent::Ping),
        delta(1, text("Let me open")),
        sse(SseEvent::Unknown(json!({"type":"future_event","x":[1,2]}))),
        delta(1, Delta::Unknown(json!({"type":"future_delta","y":1}))),
        delta(1, text(" the config file.\n")),
        sse(SseEvent::ContentBlockStop { index: 1 }),
        StreamEvent::BlockDone {
            index: 1,
            block: answer,
            input_error: None,
        },
        sse(SseEvent::ContentBlockStart {
            index: 2,
            content_block: ContentBlock::tool_use("toolu_01LmR8", "Read", json!({})),
        }),
        delta(2, json_delta("")),
        delta(2, json_delta("{\"file_path\": \"/ho")),
        delta(2, json_delta("me/dev/tack/Cargo.t")),
        delta(2, json_delta("oml\", \"limit\": 80}")),
        sse(SseEvent::ContentBlockStop { index: 2 }),
        StreamEvent::BlockDone {
            index: 2,
            block: read,
            input_error: None,
        },
        sse(SseEvent::MessageDelta {
            delta: MessageDeltaBody {
                stop_reason: Some(StopReason::ToolUse),
                stop_sequence: None,
                stop_details: None,
            },
            usage: DeltaUsage {
                output_tokens: 61,
                ..DeltaUsage::default()
            },
        }),
        sse(SseEvent::MessageStop),
        StreamEvent::MessageDone(done),
    ];
    assert_eq!(run_str(RECORDED), (expected, Ok(())));
}

#[test]
fn split_at_every_byte_boundary_and_in_single_bytes() {
    let whole = run_str(RECORDED);
    assert_eq!(whole.1, Ok(()));
    let bytes = RECORDED.as_bytes();
    for split in 0..=bytes.len() {
        let (a, b) = bytes.split_at(split);
        assert_eq!(run(&[a, b]), whole, "split at byte {split}");
    }
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(run(&singles), whole);
    // And three-way splits around the tool input, in 7-byte strides.
    let tool = RECORDED.find("input_json_delta").unwrap_or(0);
    for i in (tool..bytes.len()).step_by(7) {
        for j in (i..bytes.len()).step_by(13) {
            assert_eq!(
                run(&[&bytes[..i], &bytes[i..j], &bytes[j..]]),
                whole,
                "{i}/{j}"
            );
        }
    }
}

/// A minimal stream with one tool_use block whose input is streamed as `fragments`.
fn tool_stream(fragments: &[&str]) -> String {
    let mut s = String::from(concat!(
        "event: message_start\n",
        r#"data: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}"#,
        "\n\n",
        "event: content_block_start\n",
        r#"data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}}"#,
        "\n\n",
    ));
    for f in fragments {
        let data = json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":f}});
        s.push_str(&format!("event: content_block_delta\ndata: {data}\n\n"));
    }
    s.push_str(concat!(
        "event: content_block_stop\n",
        r#"data: {"type":"content_block_stop","index":0}"#,
        "\n\n",
        "event: message_delta\n",
        r#"data: {"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}"#,
        "\n\n",
        "event: message_stop\n",
        r#"data: {"type":"message_stop"}"#,
        "\n\n",
    ));
    s
}

fn block_done(events: &[StreamEvent]) -> Vec<(ContentBlock, Option<ToolInputError>)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::BlockDone {
                block, input_error, ..
            } => Some((block.clone(), input_error.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn tool_input_split_at_every_byte_of_the_json() {
    let input = r#"{"command": "echo \"hi\" \\ \u00e9 ✓", "n": [1, {"a": null}]}"#;
    let expected = json!({"command": "echo \"hi\" \\ é ✓", "n": [1, {"a": null}]});
    let boundaries: Vec<usize> = (0..=input.len())
        .filter(|i| input.is_char_boundary(*i))
        .collect();
    for &i in &boundaries {
        for &j in boundaries.iter().filter(|j| **j >= i) {
            let (events, end) = run_str(&tool_stream(&[&input[..i], &input[i..j], &input[j..]]));
            assert_eq!(end, Ok(()));
            assert_eq!(
                block_done(&events),
                vec![(
                    ContentBlock::tool_use("toolu_1", "Bash", expected.clone()),
                    None
                )],
                "{i}/{j}"
            );
        }
    }
}

#[test]
fn malformed_tool_input_is_a_typed_error_with_the_raw_text() {
    let cases = [
        (
            vec!["{\"command\": \"ls\""],
            "EOF while parsing an object at line 1 column 16",
        ),
        (vec!["[1,", "2]"], "expected a JSON object, got an array"),
        (vec!["nul", "l"], "expected a JSON object, got null"),
        (vec!["{} x"], "trailing characters at line 1 column 4"),
    ];
    for (fragments, message) in cases {
        let (events, end) = run_str(&tool_stream(&fragments));
        assert_eq!(end, Ok(()));
        let error = ToolInputError {
            id: "toolu_1".into(),
            name: "Bash".into(),
            raw: fragments.concat(),
            message: message.into(),
        };
        assert_eq!(
            block_done(&events),
            vec![(
                ContentBlock::tool_use("toolu_1", "Bash", json!({})),
                Some(error)
            )]
        );
        let Some(StreamEvent::MessageDone(done)) = events.last() else {
            panic!("{events:?}")
        };
        assert_eq!(
            done.content,
            vec![ContentBlock::tool_use("toolu_1", "Bash", json!({}))]
        );
    }
}

#[test]
fn empty_tool_input_is_an_empty_object() {
    for fragments in [vec![], vec![""], vec!["", ""]] {
        let (events, _) = run_str(&tool_stream(&fragments));
        assert_eq!(
            block_done(&events),
            vec![(ContentBlock::tool_use("toolu_1", "Bash", json!({})), None)]
        );
    }
}

#[test]
fn event_before_message_start_is_a_protocol_error() {
    let input =
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n";
    assert_eq!(
        run_str(input),
        (
            vec![],
            Err(ApiError::Protocol {
                message: "event before message_start (unexpected event order)".into()
            })
        )
    );
    // Pings and unknown events are fine anywhere.
    let input = "event: ping\ndata: {\"type\":\"ping\"}\n\n";
    assert_eq!(
        run_str(input),
        (
            vec![sse(SseEvent::Ping)],
            Err(ApiError::Connection {
                message: "stream ended before message_stop".into()
            })
        )
    );
}

#[test]
fn eof_without_message_stop_is_a_connection_error() {
    let full = tool_stream(&["{}"]);
    let cut = &full[..full.find("event: message_delta").unwrap_or(0)];
    let (events, end) = run_str(cut);
    assert_eq!(
        end,
        Err(ApiError::Connection {
            message: "stream ended before message_stop".into()
        })
    );
    assert_eq!(block_done(&events).len(), 1);
}

#[test]
fn error_event_ends_the_stream_classified() {
    let full = tool_stream(&["{}"]);
    let head = &full[..full.find("event: content_block_start").unwrap_or(0)];
    let input = format!(
        "{head}event: error\ndata: {}\n\n",
        json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})
    );
    let (events, end) = run_str(&input);
    assert_eq!(
        end,
        Err(ApiError::Overloaded {
            retry_after: None,
            message: "Overloaded".into()
        })
    );
    assert_eq!(events.len(), 1);
}

#[test]
fn server_tool_use_and_unknown_blocks_are_kept() {
    let input = format!(
        "{}{}{}{}{}{}",
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"role\":\"assistant\",\"model\":\"x\",\"content\":[],\"stop_reason\":null}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\":\\\"rust\\\"}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_1\",\"content\":[]}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let (events, end) = run_str(&input);
    assert_eq!(end, Ok(()));
    let search = ContentBlock::Unknown(UnknownBlock(
        json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"rust"}}),
    ));
    let result = ContentBlock::Unknown(UnknownBlock(
        json!({"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}),
    ));
    assert_eq!(
        block_done(&events),
        vec![(search.clone(), None), (result.clone(), None)]
    );
    let Some(StreamEvent::MessageDone(done)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(done.content, vec![search, result]);
}

#[test]
fn unstopped_blocks_complete_at_message_stop_and_late_events_are_ignored() {
    let full = tool_stream(&["{\"a\":1}"]);
    let input = full.replace(
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "",
    ) + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":9,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n";
    let (events, end) = run_str(&input);
    assert_eq!(end, Ok(()));
    assert_eq!(
        block_done(&events),
        vec![(
            ContentBlock::tool_use("toolu_1", "Bash", json!({"a":1})),
            None
        )]
    );
    assert!(matches!(events.last(), Some(StreamEvent::MessageDone(_))));
}

#[test]
fn delta_for_a_block_that_never_started_is_a_protocol_error() {
    let full = tool_stream(&[]);
    let head = &full[..full.find("event: content_block_start").unwrap_or(0)];
    let input = format!(
        "{head}event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{{\"type\":\"text_delta\",\"text\":\"x\"}}}}\n\n"
    );
    assert_eq!(
        run_str(&input).1,
        Err(ApiError::Protocol {
            message: "event for content block 3, which never started".into()
        })
    );
}
