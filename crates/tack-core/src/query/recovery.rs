//! Withheld errors and the recovery seams of the continue decision.
//!
//! Seed 002: a recoverable error (prompt too long, output cut at max_tokens) is
//! *withheld* — not shown — while the loop tries to recover; only if every
//! recovery fails is it surfaced. This issue detects both and leaves each recovery
//! a named function returning `None` ("cannot recover"); the recovery issue fills
//! them in, each building a whole new [`State`] with its [`Transition`].

use tack_api::ApiError;
use tack_protocol::StopReason;

use super::state::State;
#[allow(unused_imports)] // named in the docs of the seams below
use super::state::Transition;

/// A recoverable failure held back from the consumer while recovery is tried.
#[derive(Debug, Clone, PartialEq)]
pub enum Withheld {
    /// The API refused the prompt as too long (HTTP 400 / 413).
    PromptTooLong(ApiError),
    /// The response stopped at max_tokens (already yielded: this issue does not hold
    /// the message back yet).
    MaxOutputTokens,
}

/// True if `error` is one the prompt-too-long recoveries may answer.
pub fn is_withheld_prompt_too_long(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::PromptTooLong { .. } | ApiError::RequestTooLarge { .. }
    )
}

/// True if a response that stopped for `stop_reason` is one the max_output_tokens
/// recoveries may continue.
pub fn is_withheld_max_output_tokens(stop_reason: Option<&StopReason>) -> bool {
    matches!(stop_reason, Some(StopReason::MaxTokens))
}

/// Prompt too long, first answer: drain context collapse's staged collapses
/// ([`Transition::CollapseDrainRetry`]).
pub fn try_collapse_drain(state: &State) -> Option<State> {
    let _ = state;
    None
}

/// Prompt too long, second answer: reactive compaction, once per turn
/// ([`Transition::ReactiveCompactRetry`]).
pub fn try_reactive_compact(state: &State) -> Option<State> {
    let _ = state;
    None
}

/// Output cut at max_tokens, first answer: retry with the escalated cap (8k → 64k)
/// ([`Transition::MaxOutputTokensEscalate`]).
pub fn try_escalate_max_output_tokens(state: &State) -> Option<State> {
    let _ = state;
    None
}

/// Output cut at max_tokens again: inject "Resume directly — no recap", at most 3
/// times ([`Transition::MaxOutputTokensRecovery`]).
pub fn try_max_output_tokens_recovery(state: &State) -> Option<State> {
    let _ = state;
    None
}
