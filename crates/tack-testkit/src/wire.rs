//! JSON bodies shared by the streaming and non-streaming paths: the Message
//! object, its usage, and the error body.

use serde_json::{Value, json};

use crate::reply::{Block, MessageReply};

/// Token counts reported for one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Usage {
    pub(crate) input_tokens: u64,
    pub(crate) cache_creation_input_tokens: u64,
    pub(crate) cache_read_input_tokens: u64,
    pub(crate) output_tokens: u64,
}

/// What the server decided for one message besides its content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MessageMeta {
    pub(crate) id: String,
    pub(crate) model: String,
    pub(crate) usage: Usage,
    /// Usage fields set or replaced by the script ([`MessageReply::usage_field`]).
    pub(crate) usage_fields: Vec<(String, Value)>,
}

/// The `usage` object, with `output_tokens` given separately because
/// `message_start` carries a provisional value, and the script's own fields
/// over the derived ones.
pub(crate) fn usage_json(meta: &MessageMeta, output_tokens: u64) -> Value {
    let usage = &meta.usage;
    let mut json = json!({
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "cache_creation": {
            "ephemeral_5m_input_tokens": usage.cache_creation_input_tokens,
            "ephemeral_1h_input_tokens": 0,
        },
        "output_tokens": output_tokens,
        "service_tier": "standard",
    });
    for (name, value) in &meta.usage_fields {
        json[name.as_str()] = value.clone();
    }
    json
}

/// The Message object with the given content and stop reason (`null` for
/// `message_start`).
pub(crate) fn message_json(
    meta: &MessageMeta,
    content: Vec<Value>,
    stop_reason: Option<String>,
    output_tokens: u64,
) -> Value {
    json!({
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "model": meta.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": usage_json(meta, output_tokens),
    })
}

/// The complete non-streaming response body.
pub(crate) fn complete_message_json(reply: &MessageReply, meta: &MessageMeta) -> Value {
    let content = reply.blocks.iter().map(complete_block_json).collect();
    message_json(
        meta,
        content,
        Some(reply.effective_stop_reason()),
        meta.usage.output_tokens,
    )
}

fn complete_block_json(block: &Block) -> Value {
    match block {
        Block::Text(text) => json!({"type": "text", "text": text}),
        Block::Thinking {
            thinking,
            signature,
        } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        Block::ToolUse {
            id,
            name,
            input_json,
        } => {
            // Deliberately malformed input stays visible as a JSON string, so a
            // non-streaming client fails the same way a streaming one would.
            let input = serde_json::from_str::<Value>(input_json)
                .unwrap_or_else(|_| Value::String(input_json.clone()));
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        Block::CitedText { text, citations } => {
            json!({"type": "text", "text": text, "citations": citations})
        }
        Block::ServerToolUse {
            id,
            name,
            input_json,
        } => {
            let input = serde_json::from_str::<Value>(input_json).unwrap_or(Value::Null);
            json!({"type": "server_tool_use", "id": id, "name": name, "input": input})
        }
        Block::ServerToolResult(value) => value.clone(),
    }
}

/// The API's error body.
pub(crate) fn error_body(error_type: &str, message: &str, request_id: &str) -> Value {
    json!({
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    })
}

/// The HTTP status the API uses for an error type (for errors that a streamed
/// reply carries in an `error` event but a non-streaming one must send as a status).
pub(crate) fn status_for_error_type(error_type: &str) -> u16 {
    match error_type {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "billing_error" => 402,
        "permission_error" => 403,
        "not_found_error" => 404,
        "conflict_error" => 409,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => 500,
    }
}
