//! Turns a [`MessageReply`] into the SSE event sequence of the Messages API and
//! encodes events for the wire.

use bytes::Bytes;
use serde_json::{Value, json};

use crate::reply::{Block, MessageReply};
use crate::wire::{MessageMeta, message_json};

/// Characters per `text_delta` / `thinking_delta`: small enough that every
/// realistic text arrives in several deltas.
pub(crate) const TEXT_CHUNK_CHARS: usize = 12;
/// Bytes per `input_json_delta`: an odd size, so fragments split keys, strings and
/// escapes the way real streams do.
pub(crate) const JSON_CHUNK_BYTES: usize = 7;

/// One SSE event: its name equals the `type` inside `data`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SseEvent {
    pub(crate) name: &'static str,
    pub(crate) data: Value,
}

impl SseEvent {
    pub(crate) fn new(name: &'static str, data: Value) -> SseEvent {
        SseEvent { name, data }
    }

    /// `event: NAME\ndata: {json}\n\n`; without a name just the `data:` line
    /// (Chat Completions), a string's data sent raw (`data: [DONE]`).
    pub(crate) fn encode(&self) -> Bytes {
        let data = match &self.data {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        };
        if self.name.is_empty() {
            return Bytes::from(format!("data: {data}\n\n"));
        }
        Bytes::from(format!("event: {}\ndata: {data}\n\n", self.name))
    }
}

/// The mid-stream `error` event.
pub(crate) fn error_event(error_type: &str, message: &str) -> SseEvent {
    SseEvent::new(
        "error",
        json!({"type": "error", "error": {"type": error_type, "message": message}}),
    )
}

/// The full event sequence of a successful streamed message:
/// `message_start`, `ping`, the blocks, `message_delta`, `message_stop`.
pub(crate) fn message_events(reply: &MessageReply, meta: &MessageMeta) -> Vec<SseEvent> {
    let mut events = vec![
        SseEvent::new(
            "message_start",
            json!({"type": "message_start", "message": message_json(meta, Vec::new(), None, 1)}),
        ),
        SseEvent::new("ping", json!({"type": "ping"})),
    ];
    for (index, block) in reply.blocks.iter().enumerate() {
        push_block_events(&mut events, index, block);
    }
    events.push(SseEvent::new(
        "message_delta",
        json!({
            "type": "message_delta",
            "delta": {"stop_reason": reply.effective_stop_reason(), "stop_sequence": null},
            "usage": {"output_tokens": meta.usage.output_tokens},
        }),
    ));
    events.push(SseEvent::new(
        "message_stop",
        json!({"type": "message_stop"}),
    ));
    events
}

fn push_block_events(events: &mut Vec<SseEvent>, index: usize, block: &Block) {
    let delta = |delta: Value| {
        SseEvent::new(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    };
    let start = match block {
        Block::Text(_) | Block::CitedText { .. } => json!({"type": "text", "text": ""}),
        Block::Thinking { .. } => json!({"type": "thinking", "thinking": "", "signature": ""}),
        Block::ToolUse { id, name, .. } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": {}})
        }
        Block::ServerToolUse { id, name, .. } => {
            json!({"type": "server_tool_use", "id": id, "name": name, "input": {}})
        }
        Block::ServerToolResult(value) => value.clone(),
    };
    events.push(SseEvent::new(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": start}),
    ));
    match block {
        Block::Text(text) => {
            for chunk in char_chunks(text, TEXT_CHUNK_CHARS) {
                events.push(delta(json!({"type": "text_delta", "text": chunk})));
            }
        }
        Block::Thinking {
            thinking,
            signature,
        } => {
            for chunk in char_chunks(thinking, TEXT_CHUNK_CHARS) {
                events.push(delta(json!({"type": "thinking_delta", "thinking": chunk})));
            }
            events.push(delta(
                json!({"type": "signature_delta", "signature": signature}),
            ));
        }
        Block::CitedText { text, citations } => {
            for citation in citations {
                events.push(delta(
                    json!({"type": "citations_delta", "citation": citation}),
                ));
            }
            for chunk in char_chunks(text, TEXT_CHUNK_CHARS) {
                events.push(delta(json!({"type": "text_delta", "text": chunk})));
            }
        }
        Block::ServerToolResult(_) => {}
        Block::ToolUse { input_json, .. } | Block::ServerToolUse { input_json, .. } => {
            // The API opens tool input with an empty fragment; clients must cope.
            events.push(delta(
                json!({"type": "input_json_delta", "partial_json": ""}),
            ));
            for chunk in byte_chunks(input_json, JSON_CHUNK_BYTES) {
                events.push(delta(
                    json!({"type": "input_json_delta", "partial_json": chunk}),
                ));
            }
        }
    }
    events.push(SseEvent::new(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
}

/// Splits into pieces of at most `max_chars` characters.
pub(crate) fn char_chunks(text: &str, max_chars: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .nth(max_chars)
            .map_or(rest.len(), |(i, _)| i);
        chunks.push(&rest[..end]);
        rest = &rest[end..];
    }
    chunks
}

/// Splits into pieces of about `max_bytes` bytes, moving each cut forward to the
/// next character boundary (a delta must be valid UTF-8 JSON).
pub(crate) fn byte_chunks(text: &str, max_bytes: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = max_bytes.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        chunks.push(&rest[..end]);
        rest = &rest[end..];
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_chunks_never_split_a_character() {
        let text = "héllo wörld ✓ done, ünïcode";
        let chunks = char_chunks(text, 5);
        assert_eq!(chunks.concat(), text);
        assert!(chunks.iter().all(|c| c.chars().count() <= 5));
        assert!(chunks.len() > 1);
    }

    #[test]
    fn byte_chunks_cut_on_char_boundaries() {
        let text = r#"{"k": "ααααα✓✓"}"#;
        let chunks = byte_chunks(text, 7);
        assert_eq!(chunks.concat(), text);
        assert!(chunks.len() > 1);
    }

    #[test]
    fn empty_text_has_no_chunks() {
        assert!(char_chunks("", 12).is_empty());
        assert!(byte_chunks("", 7).is_empty());
    }

    #[test]
    fn encodes_one_event() {
        let event = SseEvent::new("ping", json!({"type": "ping"}));
        assert_eq!(event.encode(), "event: ping\ndata: {\"type\":\"ping\"}\n\n");
    }
}
