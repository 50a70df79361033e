//! Step 6 of seed 004: HISTORY_SNIP, removing whole old turns from the middle of
//! the history (keeping the first user message and the recent turns, never
//! separating a tool_use from its tool_result), with zero model calls.
//!
//! Feature-flagged in Claude Code and off by default here
//! (`QueryConfig::snip`): it runs before autocompact, so when it is on it
//! answers first and autocompact only runs when snipping cannot free enough.
//! It fires above the autocompact threshold and cuts to
//! [`super::limits::SNIP_TARGET_PERCENT`] of it, keeping at least
//! [`super::limits::SNIP_KEEP_RECENT`] messages.

use tack_protocol::Message;

use crate::compact::snip as tier;

/// What snipping did.
#[derive(Debug, Clone, PartialEq)]
pub struct SnipOutcome {
    pub messages: Vec<Message>,
    /// Estimated tokens removed; the blocking-limit check subtracts them because
    /// the last response's usage still counts them.
    pub tokens_freed: u64,
}

/// Snips the history if `tokens` (the loop's context size, see
/// [`super::limits::token_count_with_estimation`]) is over `trigger_tokens`,
/// removing enough to bring it to `target_tokens`; `None` thresholds (snip off,
/// or no known window) leave it alone.
pub fn snip_if_needed(
    messages: Vec<Message>,
    tokens: u64,
    thresholds: Option<(u64, u64)>,
    keep_recent: usize,
) -> SnipOutcome {
    let unchanged = |messages| SnipOutcome {
        messages,
        tokens_freed: 0,
    };
    let Some((trigger_tokens, target_tokens)) = thresholds else {
        return unchanged(messages);
    };
    if tokens <= trigger_tokens {
        return unchanged(messages);
    }
    // The tier measures messages only: aim to free the same amount.
    let to_free = tokens - target_tokens;
    let target = tack_api::estimate_messages(&messages).saturating_sub(to_free);
    match tier::snip(&messages, target, keep_recent, &super::estimate_message) {
        Some(out) => SnipOutcome {
            messages: out.messages,
            tokens_freed: out.tokens_freed,
        },
        None => unchanged(messages),
    }
}
