//! Step 8 of seed 004: context collapse, condensing runs of tool_use / tool_result
//! pairs. Feature-flagged in Claude Code (autocompact stands down when it is on);
//! its "drain" is also the first answer to a prompt-too-long error
//! (`Transition::CollapseDrainRetry`). A pass-through until the compaction issue.

use tack_protocol::Message;

/// What collapse did.
#[derive(Debug, Clone, PartialEq)]
pub struct CollapseOutcome {
    pub messages: Vec<Message>,
    /// True if collapse manages the context (autocompact and the blocking-limit
    /// check then stand down).
    pub active: bool,
}

/// Applies staged collapses if the context needs it.
pub fn apply_collapses_if_needed(messages: Vec<Message>) -> CollapseOutcome {
    CollapseOutcome {
        messages,
        active: false,
    }
}
