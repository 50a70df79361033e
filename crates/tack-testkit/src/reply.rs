//! The scripted replies and their builders: what the server answers to one
//! `POST /v1/messages`.

use std::time::Duration;

use serde_json::Value;

/// One scripted answer, consumed by exactly one `POST /v1/messages`.
///
/// Build it with the constructors below; a [`MessageReply`] (from [`Reply::message`])
/// converts with `.into()`. [`Reply::header`], [`Reply::retry_after`] and
/// [`Reply::retry_after_ms`] add response headers to either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A successful message: SSE when the request asked for `"stream": true`,
    /// otherwise one JSON Message object.
    Message(MessageReply),
    /// An HTTP error with the API's JSON error body.
    Error(ErrorReply),
}

impl Reply {
    /// Starts a successful message; add blocks and options, then `.into()`.
    pub fn message() -> MessageReply {
        MessageReply::default()
    }

    /// One text block, `stop_reason: "end_turn"`.
    pub fn text(text: &str) -> Reply {
        Reply::message().text(text).into()
    }

    /// One `tool_use` block, `stop_reason: "tool_use"`.
    pub fn tool_use(id: &str, name: &str, input: Value) -> Reply {
        Reply::message().tool_use(id, name, input).into()
    }

    /// An HTTP error: `status` with body
    /// `{"type":"error","error":{"type":error_type,"message":message},"request_id":"req_mock_N"}`.
    pub fn http_error(status: u16, error_type: &str, message: &str) -> Reply {
        Reply::Error(ErrorReply::new(status, error_type, message))
    }

    /// 529 `overloaded_error` "Overloaded".
    pub fn overloaded() -> Reply {
        Reply::http_error(529, "overloaded_error", "Overloaded")
    }

    /// 429 `rate_limit_error` with a `retry-after` header of `retry_after_secs`.
    pub fn rate_limited(retry_after_secs: u64) -> Reply {
        Reply::http_error(
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization",
        )
        .retry_after(retry_after_secs)
    }

    /// 400 `invalid_request_error` "prompt is too long: {actual} tokens > {limit} maximum".
    pub fn prompt_too_long(actual: u64, limit: u64) -> Reply {
        Reply::http_error(
            400,
            "invalid_request_error",
            &format!("prompt is too long: {actual} tokens > {limit} maximum"),
        )
    }

    /// Adds a response header (sent in addition to the ones the server always sets).
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        let headers = match &mut self {
            Reply::Message(m) => &mut m.headers,
            Reply::Error(e) => &mut e.headers,
        };
        headers.push((name.to_ascii_lowercase(), value.to_owned()));
        self
    }

    /// Adds `retry-after: {secs}`.
    pub fn retry_after(self, secs: u64) -> Reply {
        self.header("retry-after", &secs.to_string())
    }

    /// Adds `retry-after-ms: {ms}`.
    pub fn retry_after_ms(self, ms: u64) -> Reply {
        self.header("retry-after-ms", &ms.to_string())
    }
}

impl From<MessageReply> for Reply {
    fn from(message: MessageReply) -> Reply {
        Reply::Message(message)
    }
}

/// An HTTP error reply; built by [`Reply::http_error`] and its shorthands.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReply {
    pub(crate) status: u16,
    pub(crate) error_type: String,
    pub(crate) message: String,
    pub(crate) headers: Vec<(String, String)>,
}

impl ErrorReply {
    pub(crate) fn new(status: u16, error_type: &str, message: &str) -> ErrorReply {
        ErrorReply {
            status,
            error_type: error_type.to_owned(),
            message: message.to_owned(),
            headers: Vec::new(),
        }
    }
}

/// A successful message under construction; see [`Reply::message`].
///
/// Blocks appear in the order they are added. Everything not set explicitly is
/// derived: the model echoes the request, usage comes from the prompt-cache
/// simulation, the stop reason follows the blocks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MessageReply {
    pub(crate) blocks: Vec<Block>,
    pub(crate) stop_reason: Option<String>,
    pub(crate) usage: Option<(u64, u64)>,
    pub(crate) cache: Option<(u64, u64)>,
    pub(crate) usage_fields: Vec<(String, Value)>,
    pub(crate) model: Option<String>,
    pub(crate) pacing: Duration,
    pub(crate) block_gap: Duration,
    pub(crate) stall: Option<(usize, Duration)>,
    pub(crate) end: Option<StreamEnd>,
    pub(crate) headers: Vec<(String, String)>,
}

/// A content block of a scripted message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Text(String),
    Thinking {
        thinking: String,
        signature: String,
    },
    /// `input_json` is the exact text streamed as `input_json_delta`s; it may be
    /// malformed on purpose (see [`MessageReply::raw_tool_input`]).
    ToolUse {
        id: String,
        name: String,
        input_json: String,
    },
    /// A text block whose `citations` stream as `citations_delta`s before the text.
    CitedText {
        text: String,
        citations: Vec<Value>,
    },
    /// A `server_tool_use` block: the API's own tool call, its input streamed
    /// like a client tool's.
    ServerToolUse {
        id: String,
        name: String,
        input_json: String,
    },
    /// A server tool result block (`web_search_tool_result`, ...): the whole JSON
    /// object, which arrives complete in `content_block_start`.
    ServerToolResult(Value),
}

/// How a faulty stream ends early; `after` counts SSE events already sent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StreamEnd {
    Cut {
        after: usize,
    },
    Error {
        after: usize,
        error_type: String,
        message: String,
    },
}

impl MessageReply {
    /// Adds a text block, streamed as several `text_delta` chunks.
    pub fn text(mut self, text: &str) -> Self {
        self.blocks.push(Block::Text(text.to_owned()));
        self
    }

    /// Adds a thinking block: `thinking_delta` chunks, then one `signature_delta`.
    pub fn thinking(mut self, thinking: &str, signature: &str) -> Self {
        self.blocks.push(Block::Thinking {
            thinking: thinking.to_owned(),
            signature: signature.to_owned(),
        });
        self
    }

    /// Adds a `tool_use` block whose compact JSON input is streamed as an empty
    /// `input_json_delta` followed by fragments cut at arbitrary points.
    pub fn tool_use(self, id: &str, name: &str, input: Value) -> Self {
        // Serialising a `Value` cannot fail: its map keys are always strings.
        let input_json = serde_json::to_string(&input).unwrap_or_default();
        self.raw_tool_input(id, name, &input_json)
    }

    /// Adds a `tool_use` block whose streamed JSON text is `input_json` verbatim,
    /// so tests can send truncated or malformed input.
    pub fn raw_tool_input(mut self, id: &str, name: &str, input_json: &str) -> Self {
        self.blocks.push(Block::ToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            input_json: input_json.to_owned(),
        });
        self
    }

    /// Adds a text block with citations: `content_block_start` with empty text,
    /// one `citations_delta` per citation, then the text in `text_delta` chunks.
    pub fn cited_text(mut self, text: &str, citations: Vec<Value>) -> Self {
        self.blocks.push(Block::CitedText {
            text: text.to_owned(),
            citations,
        });
        self
    }

    /// Adds a `server_tool_use` block (e.g. `web_search`), its input streamed as
    /// `input_json_delta` fragments. It does not make the stop reason `tool_use`:
    /// the API runs server tools itself.
    pub fn server_tool_use(mut self, id: &str, name: &str, input: Value) -> Self {
        self.blocks.push(Block::ServerToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            input_json: serde_json::to_string(&input).unwrap_or_default(),
        });
        self
    }

    /// Adds a `web_search_tool_result` block answering `tool_use_id`, sent whole in
    /// `content_block_start`. `content` is the API's: a list of
    /// `{"type": "web_search_result", "url", "title", ...}` or an error object.
    pub fn web_search_tool_result(mut self, tool_use_id: &str, content: Value) -> Self {
        self.blocks.push(Block::ServerToolResult(serde_json::json!({
            "type": "web_search_tool_result",
            "tool_use_id": tool_use_id,
            "content": content,
        })));
        self
    }

    /// Overrides the stop reason (default: `tool_use` if any tool_use block, else `end_turn`).
    pub fn stop_reason(mut self, stop_reason: &str) -> Self {
        self.stop_reason = Some(stop_reason.to_owned());
        self
    }

    /// Fixes `input_tokens` and `output_tokens` instead of the simulated usage.
    /// Cache fields are then 0 unless [`MessageReply::cache`] sets them.
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Some((input_tokens, output_tokens));
        self
    }

    /// Fixes `cache_creation_input_tokens` and `cache_read_input_tokens`.
    pub fn cache(mut self, creation: u64, read: u64) -> Self {
        self.cache = Some((creation, read));
        self
    }

    /// Sets (or replaces) one field of the message's `usage` object, e.g.
    /// `inference_geo` or the `cache_creation` split by TTL.
    pub fn usage_field(mut self, name: &str, value: Value) -> Self {
        self.usage_fields.push((name.to_owned(), value));
        self
    }

    /// Overrides the model name (default: the request's `model`).
    pub fn model(mut self, model: &str) -> Self {
        self.model = Some(model.to_owned());
        self
    }

    /// Waits this long between consecutive SSE events.
    pub fn pacing(mut self, delay: Duration) -> Self {
        self.pacing = delay;
        self
    }

    /// Waits this long after each `content_block_stop`, so a test can observe a
    /// finished block while the rest of the message is still streaming.
    pub fn block_gap(mut self, delay: Duration) -> Self {
        self.block_gap = delay;
        self
    }

    /// Sends `n_events` SSE events, then closes the connection abruptly (no
    /// `message_stop`, the chunked body is left unterminated). Without streaming,
    /// the JSON body is cut in the middle instead.
    pub fn cut_after(mut self, n_events: usize) -> Self {
        self.end = Some(StreamEnd::Cut { after: n_events });
        self
    }

    /// Sends `n_events` SSE events, then `event: error` with this error, then ends
    /// the stream cleanly. Without streaming, the request fails with the HTTP status
    /// of `error_type` instead.
    pub fn error_event_after(mut self, n_events: usize, error_type: &str, message: &str) -> Self {
        self.end = Some(StreamEnd::Error {
            after: n_events,
            error_type: error_type.to_owned(),
            message: message.to_owned(),
        });
        self
    }

    /// Sends `n_events` SSE events, then nothing for `duration`, then carries on.
    /// Without streaming, the whole response is delayed.
    pub fn stall_after(mut self, n_events: usize, duration: Duration) -> Self {
        self.stall = Some((n_events, duration));
        self
    }

    /// Adds a response header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers
            .push((name.to_ascii_lowercase(), value.to_owned()));
        self
    }

    /// The stop reason that will be sent.
    pub(crate) fn effective_stop_reason(&self) -> String {
        if let Some(reason) = &self.stop_reason {
            return reason.clone();
        }
        let has_tool = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }));
        if has_tool { "tool_use" } else { "end_turn" }.to_owned()
    }

    /// Output tokens when not fixed by [`MessageReply::usage`]: content bytes / 4, at least 1
    /// (the API never reports 0).
    pub(crate) fn estimated_output_tokens(&self) -> u64 {
        let bytes: usize = self
            .blocks
            .iter()
            .map(|b| match b {
                Block::Text(text) => text.len(),
                Block::Thinking { thinking, .. } => thinking.len(),
                Block::ToolUse { input_json, .. } | Block::ServerToolUse { input_json, .. } => {
                    input_json.len()
                }
                Block::CitedText { text, .. } => text.len(),
                Block::ServerToolResult(value) => value.to_string().len(),
            })
            .sum();
        (bytes as u64 / 4).max(1)
    }
}
