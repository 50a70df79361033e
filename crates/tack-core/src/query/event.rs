//! What `query()` yields.

use std::time::Duration;

use serde_json::Value;
use tack_api::ApiError;
use tack_protocol::{Message, SseEvent, StopReason, Usage};
use tack_tool::ToolProgress;

use super::state::Transition;
use super::terminal::Terminal;

/// One event of the loop, for a UI, an SDK consumer or the stream-json writer.
///
/// Per iteration, in order: `RequestStart`, then `Retry`* and `Stream`* (raw
/// partials) interleaved with `ToolProgress` of tools already running, then
/// `AssistantMessage`, then `ToolProgress`*, then `ToolResults` if the message had
/// tool_use blocks. The stream ends with exactly one `Terminal`.
///
/// `AssistantMessage` and `ToolResults` are the messages appended to the
/// conversation, in conversation order: a consumer that appends them to its own
/// transcript has exactly what the loop sends next (before compaction).
#[derive(Debug, Clone, PartialEq)]
pub enum LoopEvent {
    /// A model request is about to be sent (seed 004 step 3, `stream_request_start`).
    RequestStart {
        model: String,
        /// The iteration's turn count (from 1).
        turn_count: u32,
        /// Why the previous iteration continued; `None` for the first request.
        transition: Option<Transition>,
    },
    /// A raw SSE event: text / thinking / tool-input deltas as they arrive.
    Stream(SseEvent),
    /// The client will retry the request after `delay`.
    Retry {
        attempt: u32,
        max_retries: u32,
        delay: Duration,
        error: ApiError,
    },
    /// A complete assistant message, appended to the conversation.
    AssistantMessage(AssistantMessageEvent),
    /// The user message carrying this iteration's tool results, appended to the
    /// conversation.
    ToolResults(ToolResultsEvent),
    /// Progress of a running tool (never sent to the model).
    ToolProgress(ToolProgress),
    /// The message with this uuid, already yielded, is void (streaming fallback):
    /// remove it from display and transcript.
    Tombstone { uuid: String },
    /// The loop ended. Always the last event.
    Terminal(Terminal),
}

/// A complete assistant message and what came with it.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantMessageEvent {
    /// Transcript id (from `QueryDeps::new_id`).
    pub uuid: String,
    pub message: Message,
    /// The API's message id (`msg_...`); empty if the stream was cut before `message_start`.
    pub id: String,
    pub model: String,
    pub usage: Usage,
    /// `None` when the message was cut short by an abort.
    pub stop_reason: Option<StopReason>,
    /// Time from sending the request to the end of the response.
    pub api_duration: Duration,
}

/// The tool results of one iteration, as one user message.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultsEvent {
    /// Transcript id (from `QueryDeps::new_id`).
    pub uuid: String,
    /// Role user; one `tool_result` block per tool_use, in tool_use order, then any
    /// attachments.
    pub message: Message,
    /// Per tool call, in the same order.
    pub results: Vec<ToolResultInfo>,
}

/// What SDK consumers get besides the tool_result block (`toolUseResult`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultInfo {
    pub tool_use_id: String,
    pub tool_name: String,
    pub is_error: bool,
    /// The tool's structured output, if it produced one.
    pub structured: Option<Value>,
}
