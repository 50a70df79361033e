//! The USD cost of one response (errors spec §6 formula).

use tack_protocol::Usage;

use crate::models::model_info;

/// A client-side cost estimate. `known: false` means the model is not in tack's
/// table and `usd` is 0: show it as unknown, do not trust it as free.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    pub usd: f64,
    pub known: bool,
}

/// USD per web search request ($10 per 1,000).
const WEB_SEARCH_USD: f64 = 0.01;

/// The cost of `usage` on `model`. Cache writes are priced by TTL when the
/// `cache_creation` split is present, otherwise all at the 5-minute rate.
pub fn cost(model: &str, usage: &Usage) -> Cost {
    let Some(info) = model_info(model) else {
        return Cost {
            usd: 0.0,
            known: false,
        };
    };
    let p = info.prices;
    let (write_5m, write_1h) = match usage.cache_creation {
        Some(split) if split.ephemeral_5m_input_tokens + split.ephemeral_1h_input_tokens > 0 => (
            split.ephemeral_5m_input_tokens,
            split.ephemeral_1h_input_tokens,
        ),
        _ => (usage.cache_creation_input_tokens, 0),
    };
    let per_million = usage.input_tokens as f64 * p.input
        + write_5m as f64 * p.cache_write_5m
        + write_1h as f64 * p.cache_write_1h
        + usage.cache_read_input_tokens as f64 * p.cache_read
        + usage.output_tokens as f64 * p.output;
    let searches = usage.server_tool_use.map_or(0, |s| s.web_search_requests);
    Cost {
        usd: per_million / 1_000_000.0 + searches as f64 * WEB_SEARCH_USD,
        known: true,
    }
}

#[cfg(test)]
mod tests {
    use tack_protocol::CacheCreation;
    use tack_protocol::usage::ServerToolUse;

    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn formula_with_and_without_ttl_split() {
        let mut usage = Usage {
            input_tokens: 1_000_000,
            cache_creation_input_tokens: 2_000_000,
            cache_read_input_tokens: 10_000_000,
            output_tokens: 100_000,
            ..Usage::default()
        };
        // Sonnet 4.5: 3 + 2·3.75 + 10·0.30 + 0.1·15 = 15.0
        let c = cost("claude-sonnet-4-5-20250929", &usage);
        assert!(c.known && close(c.usd, 15.0), "{c:?}");

        usage.cache_creation = Some(CacheCreation {
            ephemeral_5m_input_tokens: 1_000_000,
            ephemeral_1h_input_tokens: 1_000_000,
        });
        usage.server_tool_use = Some(ServerToolUse {
            web_search_requests: 3,
            web_fetch_requests: 0,
        });
        // 3 + 3.75 + 6 + 3 + 1.5 + 0.03 = 17.28
        let c = cost("claude-sonnet-4-5", &usage);
        assert!(c.known && close(c.usd, 17.28), "{c:?}");

        // An all-zero split falls back to the aggregate at the 5m rate.
        usage.cache_creation = Some(CacheCreation::default());
        usage.server_tool_use = None;
        assert!(close(cost("claude-sonnet-4-5", &usage).usd, 15.0));
    }

    #[test]
    fn opus_and_haiku_rates() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        assert!(close(cost("claude-opus-4-8", &usage).usd, 30.0));
        assert!(close(cost("claude-opus-4-1", &usage).usd, 90.0));
        assert!(close(cost("claude-haiku-4-5", &usage).usd, 6.0));
    }

    #[test]
    fn unknown_model_is_flagged_not_free() {
        let usage = Usage {
            input_tokens: 5,
            ..Usage::default()
        };
        assert_eq!(
            cost("gpt-9", &usage),
            Cost {
                usd: 0.0,
                known: false
            }
        );
    }
}
