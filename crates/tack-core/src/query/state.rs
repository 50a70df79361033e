//! The loop's state across iterations, and why the last iteration continued.

use tack_protocol::Message;

use crate::compact::{AutocompactTracking, UsageMark};

/// Why the previous iteration did not end the loop (seed 002's 7 continue sites).
///
/// Carried into the next iteration in the loop's `State` and reported in
/// `LoopEvent::RequestStart`, so tests assert that a path fired without looking at
/// message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Transition {
    /// Normal: tool results need a follow-up model call.
    NextTurn,
    /// The prompt was too long; reactive compaction ran; retry.
    ReactiveCompactRetry,
    /// The prompt was too long; context collapse drained its staged collapses;
    /// retry. Never taken: tack has no context collapse (autocompact covers
    /// it). Kept so the seeds' 7 continue sites, and Claude Code's names for
    /// them, are all here for consumers that match on them.
    CollapseDrainRetry,
    /// Output hit the default max_tokens; retry once with the escalated cap (8k → 64k).
    MaxOutputTokensEscalate,
    /// Output hit max_tokens again; a "resume directly" message was injected (≤ 3 times).
    MaxOutputTokensRecovery,
    /// A Stop hook blocked the end of the turn and injected its error for the model.
    StopHookBlocking,
    /// The model stopped early relative to its token budget; continue.
    TokenBudgetContinuation,
}

impl Transition {
    /// The name Claude Code uses (`next_turn`, `reactive_compact_retry`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Transition::NextTurn => "next_turn",
            Transition::ReactiveCompactRetry => "reactive_compact_retry",
            Transition::CollapseDrainRetry => "collapse_drain_retry",
            Transition::MaxOutputTokensEscalate => "max_output_tokens_escalate",
            Transition::MaxOutputTokensRecovery => "max_output_tokens_recovery",
            Transition::StopHookBlocking => "stop_hook_blocking",
            Transition::TokenBudgetContinuation => "token_budget_continuation",
        }
    }
}

/// Everything that changes between iterations. Replaced whole at every continue
/// site (each builds a complete new `State`), so no stale value leaks from one
/// recovery path into the next.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The conversation the next iteration starts from. The iteration moves it
    /// through the compaction tiers into `messages_for_query` and only appends
    /// to that.
    pub messages: Vec<Message>,
    /// Model round-trips in this query, from 1.
    pub turn_count: u32,
    /// max_output_tokens recoveries so far (at most 3); not the turn count.
    pub max_output_tokens_recovery_count: u32,
    /// Reactive compaction was tried in this turn (at most once).
    pub has_attempted_reactive_compact: bool,
    /// max_tokens for the next request when escalated.
    pub max_output_tokens_override: Option<u32>,
    /// A Stop hook's blocking error is being answered (passed to the hooks, which
    /// must not block again because of it).
    pub stop_hook_active: bool,
    /// Autocompact's circuit breaker and counters (session-wide: seeded from
    /// `QueryParams::autocompact_tracking`).
    pub auto_compact_tracking: AutocompactTracking,
    /// Output tokens and continuations for the token budget.
    pub token_budget: TokenBudgetTracker,
    /// The last response's real usage, for the context-size estimate; `None`
    /// after a compaction (the figures are stale) and before the first response.
    pub last_usage: Option<UsageMark>,
    /// Why the previous iteration continued; `None` on the first.
    pub transition: Option<Transition>,
}

impl State {
    /// The state of the first iteration.
    pub fn initial(messages: Vec<Message>, max_output_tokens_override: Option<u32>) -> Self {
        State {
            messages,
            turn_count: 1,
            max_output_tokens_recovery_count: 0,
            has_attempted_reactive_compact: false,
            max_output_tokens_override,
            stop_hook_active: false,
            auto_compact_tracking: AutocompactTracking::default(),
            token_budget: TokenBudgetTracker::default(),
            last_usage: None,
            transition: None,
        }
    }
}

/// Output so far and continuations, carried in `State` for the token-budget
/// continuation (`recovery/token_budget.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenBudgetTracker {
    /// Output tokens of every response in this query.
    pub output_tokens: u64,
    pub continuations: u32,
    /// `output_tokens` when the last continuation was sent.
    pub output_at_last_continuation: u64,
}

impl TokenBudgetTracker {
    /// After a response with `output_tokens`.
    pub fn record(self, output_tokens: u64) -> Self {
        TokenBudgetTracker {
            output_tokens: self.output_tokens + output_tokens,
            ..self
        }
    }
}
