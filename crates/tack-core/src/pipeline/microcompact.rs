//! Step 7 of seed 004: microcompact, clearing the content of stale tool results
//! (old Read / Bash output) without a model call, through
//! [`crate::deps::QueryDeps::microcompact`], whose default calls [`microcompact`]
//! (the pure tier in [`crate::compact::microcompact`]).
//!
//! Trigger and retention come from [`super::limits`]: it runs once the estimated
//! context passes half the autocompact threshold and keeps the 8 most recent
//! compactable results. Clearing rewrites the prompt prefix (one cache write), so
//! it happens in batches: after a batch the context is well below the trigger
//! again and the prefix stays stable until the next crossing.

use tack_protocol::Message;

use crate::compact::microcompact::{self as tier, MicrocompactConfig};

/// What microcompact did.
#[derive(Debug, Clone, PartialEq)]
pub struct MicrocompactOutcome {
    pub messages: Vec<Message>,
    /// Results whose content was replaced by the placeholder.
    pub results_cleared: usize,
    pub tokens_freed: u64,
}

/// Clears stale tool results if the history is over `config.trigger_tokens`.
pub fn microcompact(messages: Vec<Message>, config: &MicrocompactConfig) -> MicrocompactOutcome {
    match tier::microcompact(&messages, config, &super::estimate_message) {
        Some(out) => MicrocompactOutcome {
            messages: out.messages,
            results_cleared: out.results_cleared,
            tokens_freed: out.tokens_freed,
        },
        None => MicrocompactOutcome {
            messages,
            results_cleared: 0,
            tokens_freed: 0,
        },
    }
}
