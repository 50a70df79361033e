//! Streaming fallback (seed 004, the second retry layer): a response stream that
//! fails *after* content was streamed (connection reset, idle timeout, a
//! mid-stream `overloaded_error` / `api_error`) cannot be retried by the client,
//! which only retries before content. The loop then:
//!
//! 1. yields `LoopEvent::Tombstone { uuid, message_id }` for the voided partial
//!    response (the stream consumers saw `message_id`'s events; it was never
//!    yielded as an `AssistantMessage`, so no transcript holds it and its
//!    thinking signatures are never sent back);
//! 2. cancels the tools already started from it; their synthetic results belong
//!    to the voided attempt and are *not* added to the conversation (a tool with
//!    side effects may have done part of its work — the retry may run it again);
//! 3. sends the same request again, streaming, with a fresh executor — at most
//!    [`MAX_STREAMING_FALLBACKS_PER_TURN`] times per iteration, after which the
//!    error ends the loop (`Terminal::ModelError`).

use tack_api::ApiError;

pub const MAX_STREAMING_FALLBACKS_PER_TURN: u32 = 2;

/// True if a stream that failed with `error` after content should be retried.
pub fn should_retry(error: &ApiError, fallbacks_so_far: u32) -> bool {
    fallbacks_so_far < MAX_STREAMING_FALLBACKS_PER_TURN
        && (error.is_retryable() || matches!(error, ApiError::Protocol { .. }))
}
