//! Step 4 of seed 004: `getMessagesAfterCompactBoundary`.
//!
//! After a compaction the summary replaces everything before the boundary; the UI
//! may keep the older messages for scrollback, but the model must not see them (it
//! would summarise them again). tack's protocol `Message` has no boundary marker
//! yet — the compaction issue adds it — so today every message is after the
//! (absent) boundary and this is a pass-through.

use tack_protocol::Message;

/// The messages the model may see: those after the last compact boundary.
pub fn messages_after_compact_boundary(messages: Vec<Message>) -> Vec<Message> {
    messages
}
