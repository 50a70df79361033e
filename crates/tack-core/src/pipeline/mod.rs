//! The per-iteration message-preparation stages of the loop, one file per stage, in
//! the order `query()` runs them (seed 002, "消息准备 pipeline 有严格的顺序"):
//!
//! 1. [`compact_boundary`]   — only what follows the last compact boundary
//! 2. [`tool_result_budget`] — oversized tool results replaced (before microcompact:
//!    cached microcompact looks only at tool_use ids, so the two compose)
//! 3. [`snip`]               — strategy-based removal of old history
//! 4. [`microcompact`]       — clearing stale tool results, no model call
//! 5. [`collapse`]           — context collapse (autocompact stands down if it runs)
//! 6. [`autocompact`]        — summarisation by the model, with a circuit breaker
//! 7. [`blocking_limit`]     — refuse to send a prompt that cannot fit
//!
//! After the model call and the tools, [`attachments`] adds what the model should
//! see with the tool results. [`limits`] says where each tier fires.
//!
//! Cheap to expensive: each stage may free enough tokens that the next does not
//! fire. Every stage takes the messages by value and hands them back, so the
//! history is moved through the pipeline, never deep-cloned. Context collapse is
//! a documented stub (see [`collapse`]).

pub mod attachments;
pub mod autocompact;
pub mod blocking_limit;
pub mod collapse;
pub mod compact_boundary;
pub mod limits;
pub mod microcompact;
pub mod snip;
pub mod tool_result_budget;

/// tack-api's token estimate of one message (the `compact` tiers' `Estimate`).
pub(crate) fn estimate_message(message: &tack_protocol::Message) -> u64 {
    tack_api::estimate_messages(std::slice::from_ref(message))
}
