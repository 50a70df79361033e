//! Where each tier of the pipeline fires, derived from the model's
//! [`ContextLimits`] (window from `QueryConfig::context_window`, else
//! `tack_api::model_info`), and the context-size figure they compare against.
//!
//! For a 200k model with a 64k output cap (effective window 180k):
//!
//! | tier | fires above | figure |
//! | --- | --- | --- |
//! | microcompact | 50% of the autocompact threshold, keeps the 8 newest results | 83.5k |
//! | snip (off by default) | the autocompact threshold, cuts to 75% of it | 167k → 125k |
//! | autocompact | effective window − 13k | 167k |
//! | blocking limit (autocompact off) | effective window − 3k | 177k |

use tack_protocol::Message;

use crate::compact::microcompact::MicrocompactConfig;
use crate::compact::thresholds::ContextLimits;
use crate::query::UsageMark;

/// Microcompact fires above this share of the autocompact threshold.
pub const MICROCOMPACT_TRIGGER_PERCENT: u64 = 50;
/// Compactable tool results microcompact never clears (the newest ones).
pub const MICROCOMPACT_KEEP_RECENT: usize = 8;
/// Snip cuts the history to this share of the autocompact threshold.
pub const SNIP_TARGET_PERCENT: u64 = 75;
/// Messages at the end snip never removes.
pub const SNIP_KEEP_RECENT: usize = 10;

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

/// The context size before the pipeline runs (`tokenCountWithEstimation`): the
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
