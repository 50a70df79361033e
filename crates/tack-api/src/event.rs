use std::time::Duration;

use futures::{Stream, StreamExt};
use tack_protocol::{ContentBlock, MessageResponse, SseEvent};

use crate::error::ApiError;

/// What [`crate::ModelClient::stream`] yields, in this order:
/// `Retry*` → `RequestId`? → (`Sse` | `BlockDone`)* → `MessageDone`.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The last attempt failed with a retryable error before any content; the
    /// client waits `delay` and tries again. `attempt` counts from 1.
    Retry {
        attempt: u32,
        max_retries: u32,
        delay: Duration,
        error: ApiError,
    },
    /// The answering attempt's request id (the `request-id` response header;
    /// `x-request-id` on servers that name it so), before its first content.
    /// Transcripts carry it as `requestId`: usage readers count a message
    /// once per (`message.id`, `requestId`).
    RequestId(String),
    /// A raw SSE event as received (text/thinking/tool-input deltas for live display).
    Sse(SseEvent),
    /// The block at `index` is complete. For `tool_use` the input has been parsed
    /// from the streamed fragments; if that failed, `input_error` says why, and
    /// the block's `input` is `{}` — the tool must not be run.
    BlockDone {
        index: usize,
        block: ContentBlock,
        input_error: Option<ToolInputError>,
    },
    /// The whole message (content, stop_reason, final usage).
    MessageDone(MessageResponse),
}

/// The whole message a stream ends with, read to the end (retries, raw events
/// and finished blocks skipped): for side requests that want only the answer.
/// `Ok(None)` when the stream ended without one; its error when it failed.
pub async fn final_message(
    stream: impl Stream<Item = Result<StreamEvent, ApiError>>,
) -> Result<Option<MessageResponse>, ApiError> {
    let mut stream = std::pin::pin!(stream);
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::MessageDone(message) => return Ok(Some(message)),
            StreamEvent::Retry { .. }
            | StreamEvent::RequestId(_)
            | StreamEvent::Sse(_)
            | StreamEvent::BlockDone { .. } => {}
        }
    }
    Ok(None)
}

/// The model streamed tool input that is not a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON in the input of tool `{name}` ({id}): {message}; received: {raw}")]
pub struct ToolInputError {
    pub id: String,
    pub name: String,
    /// The concatenated `partial_json` text exactly as received.
    pub raw: String,
    pub message: String,
}
