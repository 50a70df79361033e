//! Where the context-window limits sit for a model, where each tier fires
//! within them, and the context-size figure the tiers compare against.
//!
//! The limits come from `QueryConfig::context_limits` (window from
//! `QueryConfig::context_window`, else `tack_api::model_limits` for a known
//! model). For a 200k model with a 64k output cap (effective window 180k):
//!
//! | tier | fires above | figure |
//! | --- | --- | --- |
//! | microcompact | 50% of the autocompact threshold, keeps the 8 newest results | 83.5k |
//! | snip (off by default) | the autocompact threshold, cuts to 75% of it | 167k → 125k |
//! | autocompact | effective window − 13k | 167k |
//! | blocking limit (autocompact off) | effective window − 3k | 177k |

use tack_protocol::Message;

use super::microcompact::MicrocompactConfig;

/// Tokens kept free below the autocompact threshold (seed 004 step 9:
/// autocompact fires at the effective window minus 13k).
pub const AUTOCOMPACT_BUFFER_TOKENS: u64 = 13_000;
/// Room left for a manual `/compact` when autocompact is off (seed 004 step 10:
/// MANUAL_COMPACT_BUFFER_TOKENS).
pub const MANUAL_COMPACT_BUFFER_TOKENS: u64 = 3_000;
/// Output reserved for the summary an autocompaction asks for.
pub const SUMMARY_OUTPUT_RESERVE_TOKENS: u64 = 20_000;

/// Microcompact fires above this share of the autocompact threshold.
pub const MICROCOMPACT_TRIGGER_PERCENT: u64 = 50;
/// Compactable tool results microcompact never clears (the newest ones).
pub const MICROCOMPACT_KEEP_RECENT: usize = 8;
/// Snip cuts the history to this share of the autocompact threshold.
pub const SNIP_TARGET_PERCENT: u64 = 75;
/// Messages at the end snip never removes.
pub const SNIP_KEEP_RECENT: usize = 10;

/// The limits of one model's context window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextLimits {
    /// The model's context window (200k, 1M, ...).
    pub window: u64,
    /// The output cap of a request, which must fit in the window too.
    pub max_output: u64,
}

impl ContextLimits {
    /// The window minus room for the model's answer: what the prompt may fill.
    pub fn effective_window(&self) -> u64 {
        self.window
            .saturating_sub(self.max_output.min(SUMMARY_OUTPUT_RESERVE_TOKENS))
    }

    /// Above this many prompt tokens autocompaction runs before the request.
    pub fn autocompact_threshold(&self) -> u64 {
        self.effective_window()
            .saturating_sub(AUTOCOMPACT_BUFFER_TOKENS)
    }

    /// At or above this many prompt tokens (with autocompact off) the loop stops
    /// with `BlockingLimit` instead of sending a request bound to fail.
    pub fn blocking_limit(&self) -> u64 {
        self.effective_window()
            .saturating_sub(MANUAL_COMPACT_BUFFER_TOKENS)
    }
}

/// Microcompact's settings for `limits`.
pub fn microcompact_config(limits: &ContextLimits) -> MicrocompactConfig {
    MicrocompactConfig {
        trigger_tokens: limits.autocompact_threshold() * MICROCOMPACT_TRIGGER_PERCENT / 100,
        keep_recent: MICROCOMPACT_KEEP_RECENT,
    }
}

/// Snip's (trigger, target) for `limits`.
pub fn snip_thresholds(limits: &ContextLimits) -> (u64, u64) {
    let threshold = limits.autocompact_threshold();
    (threshold, threshold * SNIP_TARGET_PERCENT / 100)
}

/// The real size of the prompt as of the last response (Claude Code's
/// `tokenCountWithEstimation` starts from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsageMark {
    /// input + cache read + cache write + output tokens of the last response.
    pub tokens: u64,
    /// How many messages of the loop's history that response covered (its own
    /// assistant message included); later messages are estimated.
    pub messages: usize,
}

/// The context size before the tiers run (`tokenCountWithEstimation`): the
/// last response's real usage plus an estimate of the messages added since, or
/// the estimate alone — whichever is larger, so a response with unrealistic
/// usage (fakes, proxies) never hides a long history.
pub fn token_count_with_estimation(messages: &[Message], last_usage: Option<UsageMark>) -> u64 {
    let estimate = tack_api::estimate_messages(messages);
    match last_usage {
        Some(mark) => {
            let after = &messages[mark.messages.min(messages.len())..];
            estimate.max(mark.tokens + tack_api::estimate_messages(after))
        }
        None => estimate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn limits_of_a_200k_model() {
        let l = ContextLimits {
            window: 200_000,
            max_output: 64_000,
        };
        assert_eq!(
            (
                l.effective_window(),
                l.autocompact_threshold(),
                l.blocking_limit()
            ),
            (180_000, 167_000, 177_000)
        );
    }

    #[test]
    fn small_output_cap_reserves_only_itself_and_tiny_windows_do_not_underflow() {
        let l = ContextLimits {
            window: 200_000,
            max_output: 8_000,
        };
        assert_eq!(l.effective_window(), 192_000);
        let tiny = ContextLimits {
            window: 1_000,
            max_output: 64_000,
        };
        assert_eq!(
            (tiny.autocompact_threshold(), tiny.blocking_limit()),
            (0, 0)
        );
    }

    #[test]
    fn figures_of_a_200k_model() {
        let limits = ContextLimits {
            window: 200_000,
            max_output: 64_000,
        };
        assert_eq!(
            (microcompact_config(&limits), snip_thresholds(&limits)),
            (
                MicrocompactConfig {
                    trigger_tokens: 83_500,
                    keep_recent: 8
                },
                (167_000, 125_250)
            )
        );
    }

    #[test]
    fn usage_plus_estimate_of_later_messages() {
        let messages = vec![
            Message::user_text("a".repeat(400)),
            Message::user_text("b".repeat(400)),
        ];
        let each = tack_api::estimate_messages(&messages[..1]);
        assert_eq!(token_count_with_estimation(&messages, None), 2 * each);
        let mark = UsageMark {
            tokens: 10_000,
            messages: 1,
        };
        assert_eq!(
            token_count_with_estimation(&messages, Some(mark)),
            10_000 + each
        );
        let tiny = UsageMark {
            tokens: 1,
            messages: 5,
        };
        assert_eq!(token_count_with_estimation(&messages, Some(tiny)), 2 * each);
    }
}
