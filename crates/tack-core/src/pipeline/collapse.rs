//! Step 8 of seed 004: context collapse, condensing runs of tool_use / tool_result
//! pairs. Feature-flagged in Claude Code (autocompact stands down when it is on);
//! its "drain" is also the first answer to a prompt-too-long error
//! (`Transition::CollapseDrainRetry`).
//!
//! **A documented stub in tack**: collapse is never active and has nothing
//! staged to drain, so this stage passes the messages through and the
//! prompt-too-long recovery goes straight to reactive compaction (tested in
//! `query::recovery::reactive_compact`). Microcompact plus autocompact cover
//! the same ground.

use tack_protocol::Message;

/// What collapse did.
#[derive(Debug, Clone, PartialEq)]
pub struct CollapseOutcome {
    pub messages: Vec<Message>,
    /// True if collapse manages the context (autocompact and the blocking-limit
    /// check then stand down). Always false (stub).
    pub active: bool,
}

/// Applies staged collapses if the context needs it (stub: never).
pub fn apply_collapses_if_needed(messages: Vec<Message>) -> CollapseOutcome {
    CollapseOutcome {
        messages,
        active: false,
    }
}

/// Commits every staged collapse at once, for a prompt-too-long retry. `None`:
/// nothing was staged (always, in the stub).
pub fn drain_staged_collapses(messages: &[Message]) -> Option<Vec<Message>> {
    let _ = messages;
    None
}
