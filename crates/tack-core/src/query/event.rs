//! What `query()` yields.

use std::time::Duration;

use serde_json::Value;
use tack_api::ApiError;
use tack_protocol::{Message, SseEvent, StopReason, Usage};
use tack_tool::ToolProgress;

use super::state::Transition;
use super::terminal::Terminal;
use crate::compact::{CompactTrigger, CompactedEvent};

/// One event of the loop, for a UI, an SDK consumer or the stream-json writer.
///
/// Per iteration, in order: `RequestStart`, then `Compacted` / `CompactFailed`
/// if autocompact ran, then `Retry`* and `Stream`* (raw partials) interleaved
/// with `ToolProgress` of tools already running (a `ModelFallback` or a
/// `Tombstone` restarts this part for a retried request), then
/// `AssistantMessage`, then `ToolProgress`*, then `ToolResults` if the message had
/// tool_use blocks; or, when the iteration ends without tool use, any of
/// `MetaMessage` / `Compacted` a recovery adds. The stream ends with exactly one
/// `Terminal`.
///
/// `AssistantMessage`, `ToolResults` and `MetaMessage` are the messages appended
/// to the conversation, in conversation order; `Compacted` replaces the whole
/// conversation with its messages. A consumer that applies them to its own
/// transcript has exactly what the loop sends next (microcompact's clearing
/// aside, which is recomputed from the history each time).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// The response streamed so far is void (streaming fallback, or a
    /// max_output_tokens escalation retrying the request): drop it from the
    /// display and, if it was recorded, from the transcript. `message_id` is the
    /// API id (`msg_...`) of its `message_start`, which is what stream consumers
    /// saw (empty if the stream died before it); `uuid` is the transcript id the
    /// loop had reserved for it. A voided response was never yielded as an
    /// `AssistantMessage`, so there is normally nothing to remove from a
    /// transcript; its thinking signatures are never sent back.
    Tombstone { uuid: String, message_id: String },
    /// After repeated overloaded (529) errors the loop switched to the fallback
    /// model for the rest of this query and retries the request with it.
    ModelFallback { from: String, to: String },
    /// The compact boundary: the conversation was summarised and is replaced by
    /// `messages` (the `Session` persists a boundary record and these messages).
    Compacted(CompactedEvent),
    /// An autocompaction failed; the loop carries on with the history as is.
    /// At `consecutive_failures` = 3 autocompact stops trying for the session.
    CompactFailed {
        trigger: CompactTrigger,
        consecutive_failures: u32,
        error: String,
    },
    /// A user message the loop itself appended to the conversation (Claude
    /// Code's `isMeta`): the max_output_tokens "resume directly" request, a Stop
    /// hook's blocking reason, a token-budget nudge.
    MetaMessage { uuid: String, message: Message },
    /// The loop ended. Always the last event.
    Terminal(Terminal),
}

/// A complete assistant message and what came with it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AssistantMessageEvent {
    /// Transcript id (from `QueryDeps::new_id`).
    pub uuid: String,
    pub message: Message,
    /// The API's message id (`msg_...`); empty if the stream was cut before `message_start`.
    pub id: String,
    pub model: String,
    /// The API's request id for the response (`requestId` in transcripts),
    /// when the client reported one.
    pub request_id: Option<String>,
    pub usage: Usage,
    /// `None` when the message was cut short by an abort.
    pub stop_reason: Option<StopReason>,
    /// Time from sending the request to the end of the response.
    pub api_duration: Duration,
}

/// The tool results of one iteration, as one user message.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolResultInfo {
    pub tool_use_id: String,
    pub tool_name: String,
    pub is_error: bool,
    /// The tool's structured output, if it produced one.
    pub structured: Option<Value>,
}
