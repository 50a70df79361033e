//! Properties of the stream decoder (SSE bytes → events → the assembled
//! message), through its public API: no input makes it panic, a generated
//! response comes out as it went in whatever the chunking, and tool input that
//! is not JSON is reported with its exact text. `PROPTEST_CASES` raises the
//! case count (see BENCHMARKS.md, "Property-test soak").

use std::collections::VecDeque;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tack_api::{StreamDecoder, StreamEvent};
use tack_protocol::ContentBlock;

fn config(default_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    config
}

/// Feeds `input` cut at `cuts`; the events and the end result.
fn decode(input: &[u8], cuts: &[usize]) -> (Vec<StreamEvent>, Result<(), String>) {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.push(input.len());
    cuts.sort_unstable();
    let mut decoder = StreamDecoder::new();
    let mut out = VecDeque::new();
    let mut from = 0;
    for to in cuts {
        if let Err(e) = decoder.feed(&input[from..to], &mut out) {
            return (out.into(), Err(e.to_string()));
        }
        from = to;
    }
    let end = decoder.finish(&mut out).map_err(|e| e.to_string());
    (out.into(), end)
}

/// A block of a generated response: its deltas as sent.
#[derive(Debug, Clone)]
enum Block {
    Text(Vec<String>),
    Tool {
        id: String,
        name: String,
        input: Map<String, Value>,
        /// Where the serialised input is cut into `partial_json` fragments.
        cuts: Vec<usize>,
    },
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        ".{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        prop::collection::vec(".{0,30}", 0..6).prop_map(Block::Text),
        (
            "toolu_[a-zA-Z0-9]{1,12}",
            "[A-Za-z_]{1,12}",
            prop::collection::btree_map("[a-z_]{1,10}", json_value(), 0..5),
            prop::collection::vec(any::<usize>(), 0..6),
        )
            .prop_map(|(id, name, input, cuts)| Block::Tool {
                id,
                name,
                input: input.into_iter().collect(),
                cuts,
            }),
    ]
}

fn sse(out: &mut String, event: &str, data: Value) {
    out.push_str(&format!("event: {event}\ndata: {data}\n\n"));
}

/// Splits `text` at the char boundaries nearest to `cuts`.
fn fragments(text: &str, cuts: &[usize]) -> Vec<String> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|c| {
            let mut i = c % (text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        })
        .collect();
    at.push(text.len());
    at.sort_unstable();
    let mut from = 0;
    at.into_iter()
        .map(|to| {
            let piece = text[from..to].to_owned();
            from = to;
            piece
        })
        .collect()
}

/// The SSE text of a response with `blocks`, and the content it must assemble to.
fn response(blocks: &[Block]) -> (String, Vec<ContentBlock>) {
    let mut out = String::from(": a comment\n");
    sse(
        &mut out,
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
               "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
               "stop_reason": null, "stop_sequence": null,
               "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    let mut expected = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        match block {
            Block::Text(deltas) => {
                sse(
                    &mut out,
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}}),
                );
                for d in deltas {
                    sse(
                        &mut out,
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": index,
                               "delta": {"type": "text_delta", "text": d}}),
                    );
                }
                expected.push(ContentBlock::text(deltas.concat()));
            }
            Block::Tool {
                id,
                name,
                input,
                cuts,
            } => {
                sse(
                    &mut out,
                    "content_block_start",
                    json!({"type": "content_block_start", "index": index,
                           "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
                );
                let text = Value::Object(input.clone()).to_string();
                for piece in fragments(&text, cuts) {
                    sse(
                        &mut out,
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": index,
                               "delta": {"type": "input_json_delta", "partial_json": piece}}),
                    );
                }
                expected.push(ContentBlock::tool_use(
                    id.clone(),
                    name.clone(),
                    Value::Object(input.clone()),
                ));
            }
        }
        sse(
            &mut out,
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    sse(
        &mut out,
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
               "usage": {"output_tokens": 7}}),
    );
    sse(&mut out, "message_stop", json!({"type": "message_stop"}));
    (out, expected)
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn prop_decoder_never_panics_on_any_bytes(
        input in prop::collection::vec(any::<u8>(), 0..4096),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let _ = decode(&input, &cuts);
    }

    #[test]
    fn prop_decoder_never_panics_on_event_shaped_garbage(
        events in prop::collection::vec(
            (
                prop::sample::select(vec![
                    "message_start", "content_block_start", "content_block_delta",
                    "content_block_stop", "message_delta", "message_stop", "ping", "error", "x",
                ]),
                json_value(),
            ),
            0..12,
        ),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let mut input = String::new();
        for (name, data) in events {
            sse(&mut input, name, data);
        }
        let _ = decode(input.as_bytes(), &cuts);
    }

    #[test]
    fn prop_a_response_assembles_to_what_was_sent_whatever_the_chunking(
        blocks in prop::collection::vec(block(), 0..5),
        cuts in prop::collection::vec(any::<usize>(), 0..24),
    ) {
        let (input, expected) = response(&blocks);
        let (events, end) = decode(input.as_bytes(), &cuts);
        prop_assert_eq!(end, Ok(()));
        // Chunking changes nothing at all.
        let (whole, _) = decode(input.as_bytes(), &[]);
        prop_assert_eq!(&events, &whole);
        let done: Vec<&ContentBlock> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::BlockDone { block, input_error: None, .. } => Some(block),
                _ => None,
            })
            .collect();
        prop_assert_eq!(done, expected.iter().collect::<Vec<_>>());
        match events.last() {
            Some(StreamEvent::MessageDone(message)) => {
                prop_assert_eq!(&message.content, &expected);
                prop_assert_eq!(message.usage.output_tokens, 7);
            }
            other => prop_assert!(false, "last event {:?}", other),
        }
    }

    #[test]
    fn prop_tool_input_that_is_not_an_object_is_reported_with_its_text(
        raw in prop_oneof![".{0,60}", "\\{\"a\": \"[a-z]{0,10}"],
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let is_object = matches!(serde_json::from_str::<Value>(&raw), Ok(Value::Object(_)));
        // An empty input is `{}` by the API's rules.
        prop_assume!(!is_object && !raw.trim().is_empty());
        let mut input = String::new();
        sse(&mut input, "message_start", json!({"type": "message_start", "message": {
            "id": "m", "type": "message", "role": "assistant", "model": "m", "content": [],
            "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}));
        sse(&mut input, "content_block_start", json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}}));
        for piece in fragments(&raw, &cuts) {
            sse(&mut input, "content_block_delta", json!({"type": "content_block_delta",
                "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}));
        }
        sse(&mut input, "content_block_stop", json!({"type": "content_block_stop", "index": 0}));
        let (events, _) = decode(input.as_bytes(), &[]);
        let reported = events.iter().find_map(|e| match e {
            StreamEvent::BlockDone { block, input_error: Some(err), .. } => Some((block, err)),
            _ => None,
        });
        let Some((block, err)) = reported else {
            return Err(TestCaseError::fail(format!("no input error in {events:?}")));
        };
        prop_assert_eq!(&err.raw, &raw);
        prop_assert_eq!(block, &ContentBlock::tool_use("toolu_1", "Bash", json!({})));
    }
}
