//! Step 7 of seed 004: microcompact, clearing the content of stale tool results
//! (old Read / Bash output) without a model call. Injectable through
//! [`crate::deps::QueryDeps::microcompact`], whose default calls [`microcompact`].
//! A pass-through until the compaction issue.

use tack_protocol::Message;

/// What microcompact did.
#[derive(Debug, Clone, PartialEq)]
pub struct MicrocompactOutcome {
    pub messages: Vec<Message>,
    pub tokens_freed: u64,
}

/// Clears stale tool results.
pub fn microcompact(messages: Vec<Message>) -> MicrocompactOutcome {
    MicrocompactOutcome {
        messages,
        tokens_freed: 0,
    }
}
