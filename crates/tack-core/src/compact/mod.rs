//! Context management: the tiers that keep the conversation inside the model's
//! window, cheapest first (seed 003; seed 004 steps 4-10). One file per tier,
//! holding its trigger, its pure function over messages and its effect:
//!
//! | step | tier | file | model calls |
//! | --- | --- | --- | --- |
//! | 4 | after the compact boundary | none: a compaction replaces the history | 0 |
//! | 5 | tool result budget | `tool_result_budget.rs` (results to disk) | 0 |
//! | 6 | HISTORY_SNIP (off by default) | `snip.rs` | 0 |
//! | 7 | microcompact | `microcompact.rs` | 0 |
//! | 8 | context collapse | not implemented: autocompact covers it | - |
//! | 9 | autocompact (and reactive and manual `/compact`) | `autocompact.rs` | 1 |
//! | 10 | blocking limit (autocompact off) | `blocking_limit.rs` | 0 |
//!
//! Where each tier fires for a model is `limits.rs` ([`ContextLimits`]). Each
//! tier can bring the context under the next tier's trigger, which is why the
//! order matters: the tier that costs a model call only runs when the free ones
//! were not enough.
//! The loop (`query/mod.rs`) runs them in this order; the stages take the
//! messages by value and hand them back, so the history is moved, never
//! deep-cloned.
//!
//! # Imports run one way
//! `compact` uses `context`, `request` and `executor` (to build the summary
//! request and budget tool results) and nothing of `query`, `deps` or
//! `session`, which all use it. What a compaction calls at run time (the
//! summary model call, fresh ids) comes in as a parameter, the
//! `CompactDeps` trait that every `QueryDeps` implements. The shared types of
//! the loop's events ([`CompactedEvent`], [`CompactTrigger`]) live here and are
//! re-exported from `query`. `tests/module_graph.rs` checks the direction.

mod autocompact;
mod blocking_limit;
mod limits;
mod microcompact;
mod snip;
mod tool_result_budget;

pub use autocompact::COMPACT_SUMMARY_PREFIX;
pub use autocompact::{AutocompactTracking, CompactError, CompactTrigger, CompactedEvent};
pub use limits::ContextLimits;
pub use microcompact::{CLEARED_PLACEHOLDER, MicrocompactConfig, MicrocompactOutcome};
pub use tool_result_budget::ToolResultBudget;

pub(crate) use autocompact::{
    CompactDeps, SummarySettings, autocompact, compact_history, extract_summary, should_autocompact,
};
pub(crate) use blocking_limit::{BlockingLimit, BlockingLimitInput, check_blocking_limit};
pub(crate) use limits::{
    SNIP_KEEP_RECENT, UsageMark, microcompact_config, snip_thresholds, token_count_with_estimation,
};
pub(crate) use microcompact::microcompact_if_needed;
pub(crate) use snip::{SnipOutcome, snip_if_needed};
pub(crate) use tool_result_budget::apply_message_budget;

use tack_protocol::{ContentBlock, Message, Role};

/// Token estimate for one message; the stages pass [`estimate_message`], tests
/// their own.
pub(crate) type Estimate<'a> = &'a dyn Fn(&Message) -> u64;

/// tack-api's token estimate of one message.
pub(crate) fn estimate_message(message: &Message) -> u64 {
    tack_api::estimate_messages(std::slice::from_ref(message))
}

/// True for a user message that carries tool results (the second half of a
/// tool_use/tool_result pair, which must never be separated from the first).
pub(crate) fn is_tool_result_message(m: &Message) -> bool {
    m.role == Role::User
        && m.content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
}
