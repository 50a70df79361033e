//! Step 4 of seed 004: `getMessagesAfterCompactBoundary`.
//!
//! After a compaction the summary replaces everything before the boundary; the UI
//! may keep the older messages for scrollback, but the model must not see them (it
//! would summarise them again). In tack the boundary is not a message: a
//! compaction yields `LoopEvent::Compacted` and replaces the history (the loop's
//! state and the `Session`'s) with the post-compact messages, which start at the
//! summary. The history the loop receives therefore always begins after the last
//! boundary, and this stage is the identity by construction.

use tack_protocol::Message;

/// The messages the model may see: those after the last compact boundary.
pub fn messages_after_compact_boundary(messages: Vec<Message>) -> Vec<Message> {
    messages
}
