//! Step 9 of seed 004: autocompact, summarising the history with one model call
//! when it nears the effective context window (window - 13k). Injectable through
//! [`crate::deps::QueryDeps::autocompact`], whose default calls
//! [`autocompact_if_needed`]. Three consecutive failures open the circuit breaker
//! for the rest of the session. A pass-through until the compaction issue.

use tack_protocol::Message;

/// Autocompact's memory across iterations (`autoCompactTracking` in the seeds).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AutoCompactTracking {
    /// A compaction happened in this query.
    pub compacted: bool,
    /// Iterations since the last compaction.
    pub turns_since_compact: u32,
    /// Failed attempts in a row; at 3 autocompact stops trying.
    pub consecutive_failures: u32,
}

/// What autocompact did.
#[derive(Debug, Clone, PartialEq)]
pub struct AutocompactOutcome {
    pub messages: Vec<Message>,
    /// True if the history was just replaced by a summary (usage figures from the
    /// last response are then stale, so the blocking-limit check is skipped).
    pub compacted: bool,
    pub tracking: Option<AutoCompactTracking>,
}

/// Compacts if the history is over the autocompact threshold.
pub fn autocompact_if_needed(
    messages: Vec<Message>,
    tracking: Option<AutoCompactTracking>,
) -> AutocompactOutcome {
    AutocompactOutcome {
        messages,
        compacted: false,
        tracking,
    }
}
