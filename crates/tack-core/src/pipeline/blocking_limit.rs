//! Step 10 of seed 004: the blocking-limit check. When the prompt cannot fit in the
//! context window (less a buffer left for a manual `/compact`), refuse to send it
//! and end the loop with `Terminal::BlockingLimit` rather than wait for a 400.
//!
//! It must stand down right after a compaction (usage figures are stale), for
//! compaction's own queries (they would deadlock), and when reactive compaction or
//! context collapse will handle the overflow themselves.

use tack_api::estimate_messages;
use tack_protocol::Message;

/// Tokens kept free for a manual `/compact` (MANUAL_COMPACT_BUFFER_TOKENS).
pub const MANUAL_COMPACT_BUFFER_TOKENS: u64 = 3_000;

/// The result of the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockingLimit {
    /// Send the request.
    Below,
    /// Do not: `estimated_tokens` would not fit under `limit`.
    AtLimit { estimated_tokens: u64, limit: u64 },
}

/// What the check needs besides the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockingLimitInput {
    /// The context window of the model; `None` disables the check.
    pub context_window: Option<u64>,
    /// Tokens the earlier stages removed from the messages.
    pub tokens_freed: u64,
    /// A stage just compacted, or collapse manages the context: skip the check.
    pub exempt: bool,
}

/// Checks `messages` against the hard ceiling.
pub fn check_blocking_limit(messages: &[Message], input: BlockingLimitInput) -> BlockingLimit {
    let Some(window) = input.context_window else {
        return BlockingLimit::Below;
    };
    if input.exempt {
        return BlockingLimit::Below;
    }
    let limit = window.saturating_sub(MANUAL_COMPACT_BUFFER_TOKENS);
    let estimated_tokens = estimate_messages(messages).saturating_sub(input.tokens_freed);
    if estimated_tokens >= limit {
        BlockingLimit::AtLimit {
            estimated_tokens,
            limit,
        }
    } else {
        BlockingLimit::Below
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_blocks_only_at_the_limit_and_only_when_not_exempt() {
        let messages = vec![Message::user_text("x".repeat(40_000))];
        let tokens = estimate_messages(&messages); // ~10k
        let input = |window, exempt| BlockingLimitInput {
            context_window: Some(window),
            tokens_freed: 0,
            exempt,
        };
        assert_eq!(
            check_blocking_limit(&messages, input(100_000, false)),
            BlockingLimit::Below
        );
        assert_eq!(
            check_blocking_limit(&messages, input(tokens + 3_000, false)),
            BlockingLimit::AtLimit {
                estimated_tokens: tokens,
                limit: tokens
            }
        );
        assert_eq!(
            check_blocking_limit(&messages, input(tokens + 3_001, false)),
            BlockingLimit::Below
        );
        assert_eq!(
            check_blocking_limit(&messages, input(tokens, true)),
            BlockingLimit::Below
        );
    }
}
