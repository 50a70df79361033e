//! Withheld errors and the recovery paths of the continue decision, one file per
//! path (seed 002, "错误恢复"; seed 000's decision tree).
//!
//! A recoverable failure (prompt too long, output cut at max_tokens) is
//! *withheld* — not shown — while the loop tries to recover; only if every
//! recovery fails is it surfaced. Each recovery builds a whole new [`State`]
//! with its [`Transition`]:
//!
//! - [`max_output_tokens`]: escalate 8k → 64k once, then "resume directly" ≤ 3
//!   times ([`Transition::MaxOutputTokensEscalate`],
//!   [`Transition::MaxOutputTokensRecovery`]);
//! - [`reactive_compact`]: reactive compaction once per turn
//!   ([`Transition::ReactiveCompactRetry`]; seed 004's collapse drain before
//!   it, [`Transition::CollapseDrainRetry`], has nothing to drain in tack);
//! - [`stop_hooks`]: a blocking Stop hook ([`Transition::StopHookBlocking`]);
//! - [`token_budget`]: continuing short of the budget
//!   ([`Transition::TokenBudgetContinuation`]).
//!
//! Two retry layers act inside step 11 instead, without a new iteration:
//! [`model_fallback`] (repeated 529s → the fallback model) and
//! [`streaming_fallback`] (a stream dying after content → tombstone and retry).

pub mod max_output_tokens;
pub mod model_fallback;
pub mod reactive_compact;
pub mod stop_hooks;
pub mod streaming_fallback;
pub mod token_budget;

use tack_api::ApiError;
use tack_protocol::StopReason;

use super::event::AssistantMessageEvent;
#[allow(unused_imports)] // named in the docs above
use super::state::{State, Transition};

/// A recoverable failure held back from the consumer while recovery is tried.
#[derive(Debug, Clone, PartialEq)]
pub enum Withheld {
    /// The API refused the prompt as too long (HTTP 400 / 413).
    PromptTooLong(ApiError),
    /// The response stopped at max_tokens without a tool_use. The message is not
    /// yielded yet: escalation voids it, the other paths yield it.
    MaxOutputTokens(Box<AssistantMessageEvent>),
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
