//! The OpenAI-compatible routes of the mock: the same scripted [`MessageReply`]
//! streamed as Chat Completions chunks (`POST /v1/chat/completions`) or as
//! Responses events (`POST /v1/responses`), and errors in OpenAI's body shape.
//!
//! Chat: a role chunk, `reasoning_content` chunks for thinking, `content`
//! chunks for text, per tool call a chunk with its `id` and name then its
//! `arguments` in 7-byte fragments, a chunk with the `finish_reason`, the usage
//! chunk (only when the request set `stream_options.include_usage`), `[DONE]`.
//! Responses: `response.created`, per block `output_item.added` → deltas →
//! `output_item.done`, then `response.completed` (or `response.incomplete` for
//! a `max_tokens` stop) with usage.

use serde_json::{Value, json};

use crate::reply::{Block, MessageReply};
use crate::sse::{JSON_CHUNK_BYTES, SseEvent, TEXT_CHUNK_CHARS, byte_chunks, char_chunks};
use crate::wire::MessageMeta;

/// Which OpenAI API a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    Chat,
    Responses,
}

/// The finish reason an Anthropic stop reason becomes.
fn finish_reason(stop_reason: &str) -> &'static str {
    match stop_reason {
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        "refusal" => "content_filter",
        _ => "stop",
    }
}

pub(crate) fn events(
    api: Api,
    reply: &MessageReply,
    meta: &MessageMeta,
    request: &Value,
) -> Vec<SseEvent> {
    match api {
        Api::Chat => {
            let usage = request["stream_options"]["include_usage"] == json!(true);
            chat_events(reply, meta, usage)
        }
        Api::Responses => responses_events(reply, meta),
    }
}

fn chat_events(reply: &MessageReply, meta: &MessageMeta, include_usage: bool) -> Vec<SseEvent> {
    let chunk = |delta: Value, finish: Option<&str>| {
        SseEvent::new(
            "",
            json!({
                "id": meta.id, "object": "chat.completion.chunk", "created": 0, "model": meta.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }),
        )
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    let mut calls = 0;
    for block in &reply.blocks {
        match block {
            Block::Text(text) | Block::CitedText { text, .. } => {
                for part in char_chunks(text, TEXT_CHUNK_CHARS) {
                    events.push(chunk(json!({"content": part}), None));
                }
            }
            Block::Thinking { thinking, .. } => {
                for part in char_chunks(thinking, TEXT_CHUNK_CHARS) {
                    events.push(chunk(json!({"reasoning_content": part}), None));
                }
            }
            Block::ToolUse {
                id,
                name,
                input_json,
            } => {
                let call = |function: Value, first: bool| {
                    let mut call = json!({"index": calls, "function": function});
                    if first {
                        call["id"] = json!(id);
                        call["type"] = json!("function");
                    }
                    chunk(json!({"tool_calls": [call]}), None)
                };
                events.push(call(json!({"name": name, "arguments": ""}), true));
                for part in byte_chunks(input_json, JSON_CHUNK_BYTES) {
                    events.push(call(json!({"arguments": part}), false));
                }
                calls += 1;
            }
            Block::ServerToolUse { .. } | Block::ServerToolResult(_) => {}
        }
    }
    let finish = finish_reason(&reply.effective_stop_reason());
    events.push(chunk(json!({}), Some(finish)));
    if include_usage {
        let u = &meta.usage;
        let prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
        events.push(SseEvent::new(
            "",
            json!({
                "id": meta.id, "object": "chat.completion.chunk", "created": 0, "model": meta.model,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": u.output_tokens,
                    "total_tokens": prompt + u.output_tokens,
                    "prompt_tokens_details": {"cached_tokens": u.cache_read_input_tokens},
                },
            }),
        ));
    }
    events.push(SseEvent::new("", Value::String("[DONE]".into())));
    events
}

fn responses_events(reply: &MessageReply, meta: &MessageMeta) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let mut push = |name: &'static str, mut data: Value| {
        data["type"] = json!(name);
        data["sequence_number"] = json!(events.len());
        events.push(SseEvent::new(name, data));
    };
    let response = |status: &str| json!({"id": format!("resp_{}", meta.id), "object": "response", "model": meta.model, "status": status});
    push(
        "response.created",
        json!({"response": response("in_progress")}),
    );
    for (i, block) in reply.blocks.iter().enumerate() {
        let item_id = format!("item_{i}");
        let (item, done) = match block {
            Block::Text(text) | Block::CitedText { text, .. } => {
                let added =
                    json!({"type": "message", "id": item_id, "role": "assistant", "content": []});
                push(
                    "response.output_item.added",
                    json!({"output_index": i, "item": added}),
                );
                for part in char_chunks(text, TEXT_CHUNK_CHARS) {
                    push(
                        "response.output_text.delta",
                        json!({"output_index": i, "item_id": item_id, "content_index": 0, "delta": part}),
                    );
                }
                let content = json!([{"type": "output_text", "text": text, "annotations": []}]);
                ("message", json!({"role": "assistant", "content": content}))
            }
            Block::Thinking { thinking, .. } => {
                let added = json!({"type": "reasoning", "id": item_id, "summary": []});
                push(
                    "response.output_item.added",
                    json!({"output_index": i, "item": added}),
                );
                for part in char_chunks(thinking, TEXT_CHUNK_CHARS) {
                    push(
                        "response.reasoning_summary_text.delta",
                        json!({"output_index": i, "item_id": item_id, "summary_index": 0, "delta": part}),
                    );
                }
                (
                    "reasoning",
                    json!({"summary": [{"type": "summary_text", "text": thinking}]}),
                )
            }
            Block::ToolUse {
                id,
                name,
                input_json,
            } => {
                let added = json!({"type": "function_call", "id": item_id, "call_id": id, "name": name, "arguments": ""});
                push(
                    "response.output_item.added",
                    json!({"output_index": i, "item": added}),
                );
                for part in byte_chunks(input_json, JSON_CHUNK_BYTES) {
                    push(
                        "response.function_call_arguments.delta",
                        json!({"output_index": i, "item_id": item_id, "delta": part}),
                    );
                }
                (
                    "function_call",
                    json!({"call_id": id, "name": name, "arguments": input_json}),
                )
            }
            Block::ServerToolUse { .. } | Block::ServerToolResult(_) => continue,
        };
        let mut item_done = done;
        item_done["type"] = json!(item);
        item_done["id"] = json!(item_id);
        push(
            "response.output_item.done",
            json!({"output_index": i, "item": item_done}),
        );
    }
    let u = &meta.usage;
    let input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    let incomplete = reply.effective_stop_reason() == "max_tokens";
    let mut done = response(if incomplete {
        "incomplete"
    } else {
        "completed"
    });
    done["usage"] = json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": u.cache_read_input_tokens},
        "output_tokens": u.output_tokens,
        "total_tokens": input + u.output_tokens,
    });
    if incomplete {
        done["incomplete_details"] = json!({"reason": "max_output_tokens"});
        push("response.incomplete", json!({"response": done}));
    } else {
        push("response.completed", json!({"response": done}));
    }
    events
}

/// A mid-stream error in the API's shape.
pub(crate) fn error_event(api: Api, error_type: &str, message: &str) -> SseEvent {
    match api {
        Api::Chat => SseEvent::new(
            "",
            json!({"error": {"message": message, "type": error_type, "code": null}}),
        ),
        Api::Responses => SseEvent::new(
            "error",
            json!({"type": "error", "code": error_type, "message": message}),
        ),
    }
}

/// OpenAI's error body. A scripted prompt-too-long becomes OpenAI's
/// context-length error.
pub(crate) fn error_body(error_type: &str, message: &str) -> Value {
    let code = if message.starts_with("prompt is too long") {
        json!("context_length_exceeded")
    } else {
        Value::Null
    };
    json!({"error": {"message": message, "type": error_type, "param": null, "code": code}})
}
