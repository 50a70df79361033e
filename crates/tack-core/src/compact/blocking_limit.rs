//! Step 10 of seed 004: the blocking-limit check. With autocompact off, a prompt
//! at or above the effective window minus
//! [`MANUAL_COMPACT_BUFFER_TOKENS`](super::limits::MANUAL_COMPACT_BUFFER_TOKENS)
//! is not sent: the loop ends with `Terminal::BlockingLimit`, leaving room for
//! a manual `/compact`.
//!
//! It stands down (`exempt`) when autocompact is on (autocompact, then reactive
//! compaction on a real 400, handle the overflow) and right after a compaction
//! (usage figures are stale). Compaction's own summary request never goes
//! through the loop, so it cannot deadlock here.

use super::limits::ContextLimits;

/// The result of the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockingLimit {
    /// Send the request.
    Below,
    /// Do not: `estimated_tokens` would not fit under `limit`.
    AtLimit { estimated_tokens: u64, limit: u64 },
}

/// What the check needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockingLimitInput {
    /// The model's limits; `None` (unknown window) disables the check.
    pub limits: Option<ContextLimits>,
    /// The context size after the earlier stages.
    pub estimated_tokens: u64,
    /// Autocompact is on, or a stage just compacted: skip the check.
    pub exempt: bool,
}

/// Checks the prompt against the hard ceiling.
pub fn check_blocking_limit(input: BlockingLimitInput) -> BlockingLimit {
    let Some(limits) = input.limits else {
        return BlockingLimit::Below;
    };
    if input.exempt {
        return BlockingLimit::Below;
    }
    let limit = limits.blocking_limit();
    if input.estimated_tokens >= limit {
        BlockingLimit::AtLimit {
            estimated_tokens: input.estimated_tokens,
            limit,
        }
    } else {
        BlockingLimit::Below
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_check_blocks_only_at_the_limit_and_only_when_not_exempt() {
        let limits = Some(ContextLimits {
            window: 200_000,
            max_output: 64_000,
        });
        let input = |estimated_tokens, exempt| BlockingLimitInput {
            limits,
            estimated_tokens,
            exempt,
        };
        assert_eq!(
            [
                check_blocking_limit(input(176_999, false)),
                check_blocking_limit(input(177_000, false)),
                check_blocking_limit(input(190_000, true)),
                check_blocking_limit(BlockingLimitInput {
                    limits: None,
                    ..input(190_000, false)
                }),
            ],
            [
                BlockingLimit::Below,
                BlockingLimit::AtLimit {
                    estimated_tokens: 177_000,
                    limit: 177_000
                },
                BlockingLimit::Below,
                BlockingLimit::Below,
            ]
        );
    }
}
