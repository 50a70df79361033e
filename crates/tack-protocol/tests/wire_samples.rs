//! Round trips against JSON written from the API reference
//! (`shared/spec/anthropic-*.md`): each sample parses into the expected typed
//! value and serialises back to the same JSON.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_protocol::*;

fn round_trip<T>(sample: Value) -> T
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    let typed: T = serde_json::from_value(sample.clone()).expect("sample parses");
    let back = serde_json::to_value(&typed).expect("serialises");
    assert_eq!(back, sample);
    typed
}

#[test]
fn request_with_system_blocks_tools_and_every_input_block() {
    let sample = json!({
        "model": "claude-haiku-4-5",
        "max_tokens": 1024,
        "stream": true,
        "system": [{"type": "text", "text": "You are tack, a coding agent.", "cache_control": {"type": "ephemeral"}}],
        "metadata": {"user_id": "3f6c1b8e-0d2a-4c55-9b1e-7d4a2f0e9c11"},
        "tools": [{
            "name": "Grep",
            "description": "Search file contents with ripgrep regex syntax.",
            "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"], "additionalProperties": false},
            "cache_control": {"type": "ephemeral", "ttl": "1h"}
        }],
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": true},
        "thinking": {"type": "enabled", "budget_tokens": 16000},
        "output_config": {"effort": "high"},
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "Run the tests", "cache_control": {"type": "ephemeral"}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}},
                {"type": "image", "source": {"type": "url", "url": "https://example.org/diagram.png"}}
            ]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "The user wants...", "signature": "EuYBCkQYAiJA"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"},
                {"type": "tool_use", "id": "toolu_01Xq", "name": "Read", "input": {"file_path": "/repo/src/lib.rs"}},
                {"type": "tool_use", "id": "toolu_02Yz", "name": "Read", "input": {"file_path": "/nope"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01Xq", "content": "1\tfn main() {}\n"},
                {"type": "tool_result", "tool_use_id": "toolu_02Yz", "is_error": true,
                 "content": [{"type": "text", "text": "<tool_use_error>File does not exist.</tool_use_error>"}]}
            ]}
        ]
    });
    let req: MessagesRequest = round_trip(sample);
    assert_eq!(req.cache_breakpoints(), 3);
    assert_eq!(
        req.messages[1]
            .tool_uses()
            .map(|(id, _, _)| id)
            .collect::<Vec<_>>(),
        vec!["toolu_01Xq", "toolu_02Yz"]
    );
    assert_eq!(
        req.extra.get("output_config"),
        Some(&json!({"effort": "high"}))
    );
}

#[test]
fn string_content_and_string_system_are_accepted() {
    let req: MessagesRequest = serde_json::from_value(json!({
        "model": "m", "max_tokens": 10, "system": "be brief",
        "messages": [{"role": "user", "content": "List the crates."}]
    }))
    .unwrap();
    assert_eq!(req.system, Some(SystemPrompt::Text("be brief".into())));
    assert_eq!(req.messages, vec![Message::user_text("List the crates.")]);
}

#[test]
fn response_message_round_trips() {
    let sample = json!({
        "id": "msg_01HfQ3mWq7",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "text", "text": "I'll look at the failing test first."},
            {"type": "tool_use", "id": "toolu_01Ab", "name": "Bash",
             "input": {"command": "cargo test -p tack-core 2>&1 | tail -40", "description": "Run core tests"}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {
            "input_tokens": 212, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 18340,
            "output_tokens": 87,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "service_tier": "standard"
        }
    });
    let msg: MessageResponse = round_trip(sample);
    assert_eq!(msg.stop_reason, Some(StopReason::ToolUse));
    assert_eq!(msg.usage.total_input(), 212 + 18340);
}

#[test]
fn unknown_blocks_and_stop_reasons_are_kept_not_rejected() {
    let sample = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_01Q", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01Q", "content": []}
        ],
        "stop_reason": "some_future_reason", "stop_sequence": null,
        "usage": {"input_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}
    });
    let msg: MessageResponse = round_trip(sample);
    assert_eq!(
        msg.stop_reason,
        Some(StopReason::Other("some_future_reason".into()))
    );
    assert!(matches!(msg.content[0], ContentBlock::Unknown(_)));
}

#[test]
fn malformed_known_block_is_an_error_not_an_unknown_block() {
    let err = serde_json::from_value::<ContentBlock>(
        json!({"type": "tool_use", "name": "Read", "input": {}}),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("did not match") || err.to_string().contains("malformed"),
        "{err}"
    );
    assert!(serde_json::from_value::<ContentBlock>(json!({"no_type": 1})).is_err());
}

#[test]
fn null_cache_counters_read_as_zero() {
    let usage: Usage = serde_json::from_value(json!({
        "input_tokens": 5, "output_tokens": 7,
        "cache_creation_input_tokens": null, "cache_read_input_tokens": null
    }))
    .unwrap();
    assert_eq!(
        usage,
        Usage {
            input_tokens: 5,
            output_tokens: 7,
            ..Usage::default()
        }
    );
}

#[test]
fn usage_adds_every_counter_and_applies_cumulative_deltas() {
    let a = Usage {
        input_tokens: 10,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 1000,
        output_tokens: 1,
        cache_creation: Some(CacheCreation {
            ephemeral_5m_input_tokens: 100,
            ephemeral_1h_input_tokens: 0,
        }),
        server_tool_use: None,
        service_tier: Some("standard".into()),
        inference_geo: None,
    };
    let b = Usage {
        input_tokens: 1,
        cache_creation_input_tokens: 2,
        cache_read_input_tokens: 3,
        output_tokens: 4,
        cache_creation: Some(CacheCreation {
            ephemeral_5m_input_tokens: 0,
            ephemeral_1h_input_tokens: 2,
        }),
        server_tool_use: None,
        service_tier: None,
        inference_geo: Some("us".into()),
    };
    assert_eq!(
        a.clone() + &b,
        Usage {
            input_tokens: 11,
            cache_creation_input_tokens: 102,
            cache_read_input_tokens: 1003,
            output_tokens: 5,
            cache_creation: Some(CacheCreation {
                ephemeral_5m_input_tokens: 100,
                ephemeral_1h_input_tokens: 2
            }),
            server_tool_use: None,
            service_tier: Some("standard".into()),
            inference_geo: Some("us".into()),
        }
    );

    let mut snapshot = a.clone();
    snapshot.apply_delta(&DeltaUsage {
        output_tokens: 143,
        input_tokens: Some(12),
        ..DeltaUsage::default()
    });
    snapshot.apply_delta(&DeltaUsage {
        output_tokens: 150,
        ..DeltaUsage::default()
    });
    assert_eq!(
        snapshot,
        Usage {
            input_tokens: 12,
            output_tokens: 150,
            ..a
        }
    );
}

#[test]
fn every_sse_event_type_parses() {
    let cases: Vec<(Value, SseEvent)> = vec![
        (
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_01Wz", "name": "Read", "input": {}}}),
            SseEvent::ContentBlockStart {
                index: 1,
                content_block: ContentBlock::tool_use("toolu_01Wz", "Read", json!({})),
            },
        ),
        (
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            SseEvent::ContentBlockStart {
                index: 0,
                content_block: ContentBlock::Thinking {
                    thinking: String::new(),
                    signature: String::new(),
                },
            },
        ),
        (
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking the"}}),
            SseEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::TextDelta {
                    text: "Checking the".into(),
                },
            },
        ),
        (
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"file_pa"}}),
            SseEvent::ContentBlockDelta {
                index: 1,
                delta: Delta::InputJsonDelta {
                    partial_json: "{\"file_pa".into(),
                },
            },
        ),
        (
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The test name suggests"}}),
            SseEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::ThinkingDelta {
                    thinking: "The test name suggests".into(),
                },
            },
        ),
        (
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}}),
            SseEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::SignatureDelta {
                    signature: "EqQBCgIYAhIM".into(),
                },
            },
        ),
        (
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "MIT License"}}}),
            SseEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::CitationsDelta {
                    citation: json!({"type": "char_location", "cited_text": "MIT License"}),
                },
            },
        ),
        (
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "future_delta", "x": 1}}),
            SseEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::Unknown(json!({"type": "future_delta", "x": 1})),
            },
        ),
        (
            json!({"type": "content_block_stop", "index": 1}),
            SseEvent::ContentBlockStop { index: 1 },
        ),
        (
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 143}}),
            SseEvent::MessageDelta {
                delta: MessageDeltaBody {
                    stop_reason: Some(StopReason::ToolUse),
                    stop_sequence: None,
                    stop_details: None,
                },
                usage: DeltaUsage {
                    output_tokens: 143,
                    ..DeltaUsage::default()
                },
            },
        ),
        (json!({"type": "message_stop"}), SseEvent::MessageStop),
        (json!({"type": "ping"}), SseEvent::Ping),
        (
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            SseEvent::Error {
                error: ApiErrorDetail {
                    kind: "overloaded_error".into(),
                    message: "Overloaded".into(),
                    details: None,
                },
            },
        ),
        (
            json!({"type": "brand_new_event", "a": [1]}),
            SseEvent::Unknown(json!({"type": "brand_new_event", "a": [1]})),
        ),
    ];
    for (sample, expected) in cases {
        let parsed: SseEvent = serde_json::from_value(sample.clone()).expect("event parses");
        assert_eq!(parsed, expected);
    }

    let start: SseEvent = serde_json::from_value(json!({"type": "message_start", "message": {
        "id": "msg_01Tk9", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 2190, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 15872,
                  "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                  "output_tokens": 3, "service_tier": "standard"}}}))
    .unwrap();
    let SseEvent::MessageStart { message } = start else {
        panic!("not a message_start: {start:?}")
    };
    assert_eq!(
        (
            message.id.as_str(),
            message.stop_reason,
            message.usage.cache_read_input_tokens
        ),
        ("msg_01Tk9", None, 15872)
    );
}

#[test]
fn error_body_round_trips_with_details() {
    let body: ApiErrorBody = round_trip(json!({
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "spend cap", "details": {"error_code": "enforced_spend_limit_reached"}},
        "request_id": "req_011CT8pWk5a2bNq7"
    }));
    assert_eq!(body.error.kind, "rate_limit_error");
}

#[test]
fn permission_denied_record_round_trips_in_claude_codes_shape() {
    let sample = json!({
        "type": "system", "subtype": "permission_denied",
        "tool_name": "Bash", "tool_use_id": "toolu_01",
        "message": "Permission to use Bash has been denied because Claude Code is running in don't ask mode.",
        "decision_reason_type": "mode",
        "session_id": "s-1", "uuid": "u-1"
    });
    let record: tack_protocol::stream_json::StreamJsonRecord = round_trip(sample);
    let tack_protocol::stream_json::StreamJsonRecord::System(
        tack_protocol::stream_json::SystemRecord::PermissionDenied(denied),
    ) = record
    else {
        panic!("not a permission_denied record: {record:?}");
    };
    assert_eq!(
        (denied.decision_reason_type.as_deref(), denied.agent_id),
        (Some("mode"), None)
    );
}
