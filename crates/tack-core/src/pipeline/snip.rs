//! Step 6 of seed 004: HISTORY_SNIP, strategy-based removal of old messages from
//! the middle of the history, before anything is summarised. Feature-flagged in
//! Claude Code; a pass-through here until the compaction issue.

use tack_protocol::Message;

/// What snipping did.
#[derive(Debug, Clone, PartialEq)]
pub struct SnipOutcome {
    pub messages: Vec<Message>,
    /// Estimated tokens removed; the blocking-limit check subtracts them because
    /// the last response's usage still counts them.
    pub tokens_freed: u64,
}

/// Snips the history if it is getting long.
pub fn snip_if_needed(messages: Vec<Message>) -> SnipOutcome {
    SnipOutcome {
        messages,
        tokens_freed: 0,
    }
}
