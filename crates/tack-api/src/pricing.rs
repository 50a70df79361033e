//! The USD cost of one response (errors spec §6 formula).
//!
//! Each token category at its price; a request whose prompt (input + cache
//! writes + cache reads of that request) is above a model's long-prompt
//! threshold pays the long-prompt input and output prices
//! ([`crate::models::LongPrompt`]); `inference_geo: "us"` in the response's
//! usage multiplies every token category by 1.1 (web searches are a fee per
//! request and stay as they are).
//!
//! A model missing from tack's table is not free: its cost is estimated at the
//! default model's rates ([`fallback_pricing`], as Claude Code 2.1.328 does),
//! so a `--max-budget-usd` still stops it, and the front end says so once
//! ([`unpriced_model_warning`]).

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use tack_protocol::Usage;

use crate::models::{DEFAULT_MODEL, LongPrompt, Prices, model_info};

/// Prices beyond the built-in table: the `modelPrices` setting (by full model
/// name, `provider/id` included) and providers that cost nothing (a local
/// server: every `name/…` model is free). Installed once per process with
/// [`set_price_book`]; [`cost`] and [`is_priced`] consult it before the table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceBook {
    prices: HashMap<String, Prices>,
    free_providers: Vec<String>,
}

impl PriceBook {
    /// `model`'s prices (exact name, case-insensitive).
    pub fn with_price(mut self, model: &str, prices: Prices) -> Self {
        self.prices.insert(model.to_ascii_lowercase(), prices);
        self
    }

    /// Every model of provider `name` (`name/…`) costs 0.
    pub fn with_free_provider(mut self, name: &str) -> Self {
        self.free_providers
            .push(format!("{}/", name.to_ascii_lowercase()));
        self
    }

    /// The prices this book sets for `model`, if any.
    pub fn prices(&self, model: &str) -> Option<Prices> {
        let model = model.to_ascii_lowercase();
        if let Some(p) = self.prices.get(&model) {
            return Some(*p);
        }
        self.free_providers
            .iter()
            .any(|prefix| model.starts_with(prefix.as_str()))
            .then_some(Prices {
                input: 0.0,
                output: 0.0,
                cache_write_5m: 0.0,
                cache_write_1h: 0.0,
                cache_read: 0.0,
            })
    }
}

static BOOK: RwLock<Option<Arc<PriceBook>>> = RwLock::new(None);

/// Installs the process's [`PriceBook`] (the settings of the session; a later
/// call replaces it).
pub fn set_price_book(book: PriceBook) {
    *BOOK.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(book));
}

/// The book's price for `model` (no long-prompt tier), else the built-in
/// table's.
fn prices_of(model: &str) -> Option<(Prices, Option<LongPrompt>)> {
    let book = BOOK.read().unwrap_or_else(PoisonError::into_inner).clone();
    book.and_then(|b| b.prices(model))
        .map(|p| (p, None))
        .or_else(|| model_info(model).map(|info| (info.prices, info.long_prompt)))
}

/// A client-side cost estimate. `known: false` means the model is not in tack's
/// table and `usd` is estimated at [`fallback_pricing`]'s rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    pub usd: f64,
    pub known: bool,
}

/// The model whose rates an unpriced model is charged at (the default model,
/// [`DEFAULT_MODEL`]) and those rates.
pub fn fallback_pricing() -> (&'static str, Prices) {
    let info = model_info(DEFAULT_MODEL);
    // The default model is a row of the table (tested); the fallback of the
    // fallback is free of panics, not of meaning.
    let prices = info.map_or(
        Prices {
            input: 0.0,
            output: 0.0,
            cache_write_5m: 0.0,
            cache_write_1h: 0.0,
            cache_read: 0.0,
        },
        |i| i.prices,
    );
    (DEFAULT_MODEL, prices)
}

/// Whether tack knows `model`'s prices.
pub fn is_priced(model: &str) -> bool {
    prices_of(model).is_some()
}

/// What to tell the user once when `model` has no known price (`None` if it
/// has one).
pub fn unpriced_model_warning(model: &str) -> Option<String> {
    if is_priced(model) {
        return None;
    }
    let (id, p) = fallback_pricing();
    Some(format!(
        "no price known for model \"{model}\": costs are estimated at {id}'s rates \
         (${}/${} per million input/output tokens)",
        p.input, p.output
    ))
}

/// USD per web search request ($10 per 1,000).
const WEB_SEARCH_USD: f64 = 0.01;
/// The token prices' factor for a response served in the US only
/// (`inference_geo: "us"`).
const US_GEO_FACTOR: f64 = 1.1;

/// The cost of `usage` (one response's) on `model`. Cache writes are priced by
/// TTL when the `cache_creation` split is present, otherwise all at the
/// 5-minute rate; the long-prompt tier and `inference_geo` as the module says.
pub fn cost(model: &str, usage: &Usage) -> Cost {
    let (mut p, known) = match prices_of(model) {
        Some((prices, long)) => {
            let mut p = prices;
            if let Some(long) = long.filter(|l| usage.total_input() > l.above) {
                p.input = long.input;
                p.output = long.output;
            }
            (p, true)
        }
        None => (fallback_pricing().1, false),
    };
    if usage.inference_geo.as_deref() == Some("us") {
        for price in [
            &mut p.input,
            &mut p.output,
            &mut p.cache_write_5m,
            &mut p.cache_write_1h,
            &mut p.cache_read,
        ] {
            *price *= US_GEO_FACTOR;
        }
    }
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
        known,
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

    /// Claude Code 2.1.328's figures (issue 37): 1M input + 1M output, then
    /// the cache categories, the long-prompt tier and the US-only factor.
    #[test]
    fn current_models_cache_tiers_long_prompts_and_geo() {
        let io = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        let cache = Usage {
            cache_creation_input_tokens: 2_000_000,
            cache_creation: Some(CacheCreation {
                ephemeral_5m_input_tokens: 1_000_000,
                ephemeral_1h_input_tokens: 1_000_000,
            }),
            cache_read_input_tokens: 1_000_000,
            ..Usage::default()
        };
        let small = Usage {
            input_tokens: 100_000,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        let long = Usage {
            input_tokens: 60_000,
            cache_read_input_tokens: 40_001,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        let geo = Usage {
            inference_geo: Some("us".into()),
            ..io.clone()
        };
        let got: Vec<(&str, &str, f64)> = [
            ("claude-opus-5-5", "io", &io),
            ("claude-sonnet-5-5", "io", &io),
            ("claude-haiku-5-5", "io", &io),
            ("claude-fable-5-2", "io", &io),
            ("claude-sonnet-4-5", "io", &io),
            ("claude-opus-5-5", "cache", &cache),
            ("claude-sonnet-5-5", "cache", &cache),
            ("claude-haiku-5-5", "cache", &cache),
            ("claude-fable-5-2", "cache", &cache),
            ("claude-haiku-5-5", "100k prompt", &small),
            ("claude-haiku-5-5", "100,001 prompt", &long),
            ("claude-opus-5-5", "us", &geo),
        ]
        .into_iter()
        .map(|(model, what, usage)| {
            let c = cost(model, usage);
            assert!(c.known, "{model}");
            (model, what, (c.usd * 1e6).round() / 1e6)
        })
        .collect();
        assert_eq!(
            got,
            [
                ("claude-opus-5-5", "io", 24.0),
                ("claude-sonnet-5-5", "io", 12.0),
                // 1M prompt tokens: above the 100k threshold.
                ("claude-haiku-5-5", "io", 3.0),
                ("claude-fable-5-2", "io", 48.0),
                ("claude-sonnet-4-5", "io", 18.0),
                ("claude-opus-5-5", "cache", 13.2),
                ("claude-sonnet-5-5", "cache", 6.6),
                ("claude-haiku-5-5", "cache", 0.335),
                ("claude-fable-5-2", "cache", 26.2),
                ("claude-haiku-5-5", "100k prompt", 0.51),
                // 60,000 · 0.5 + 40,001 · 0.01 + 1M · 2.5, per million
                ("claude-haiku-5-5", "100,001 prompt", 2.530_4),
                ("claude-opus-5-5", "us", 26.4),
            ]
        );
    }

    /// Claude Code 2.1.328's own figure (`claude-code-max-tokens.stream.jsonl`
    /// in the spec samples): 25,055 input and 30 output tokens on
    /// claude-opus-5-5 cost $0.10082.
    #[test]
    fn the_sample_result_of_claude_code() {
        let usage = Usage {
            input_tokens: 25_055,
            output_tokens: 30,
            inference_geo: Some(String::new()),
            ..Usage::default()
        };
        let c = cost("claude-opus-5-5", &usage);
        assert!(c.known && close(c.usd, 0.10082), "{c:?}");
    }

    #[test]
    fn unknown_model_is_flagged_and_charged_at_the_dearest_rates() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        let c = cost("gpt-9", &usage);
        assert!(!c.known && close(c.usd, 24.0), "{c:?}");
        assert_eq!(fallback_pricing().0, "claude-opus-5-5");
        assert_eq!(
            unpriced_model_warning("gpt-9").as_deref(),
            Some(
                "no price known for model \"gpt-9\": costs are estimated at claude-opus-5-5's \
                 rates ($4/$20 per million input/output tokens)"
            )
        );
        assert_eq!(unpriced_model_warning("claude-sonnet-4-5"), None);
        assert!(is_priced("claude-haiku-4-5") && !is_priced("gpt-9"));
    }

    #[test]
    fn openai_models_by_prefix_and_a_book_of_settings() {
        let usage = Usage {
            input_tokens: 1_000_000,
            cache_read_input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        // gpt-4.1: 2 + 0.5 + 8; the -mini and a dated id resolve to their own rows.
        for (model, usd) in [
            ("openai/gpt-4.1", 10.5),
            ("gpt-4.1-2025-04-14", 10.5),
            ("openai/gpt-4.1-mini", 2.1),
            ("gpt-5", 11.375),
            ("o4-mini", 5.775),
        ] {
            let c = cost(model, &usage);
            assert!(c.known && close(c.usd, usd), "{model}: {c:?}");
        }
        assert!(!is_priced("gpt-4.10") && !is_priced("local/qwen3"));
        let book = PriceBook::default()
            .with_price(
                "Local/Big",
                Prices {
                    input: 1.0,
                    output: 2.0,
                    cache_write_5m: 1.0,
                    cache_write_1h: 1.0,
                    cache_read: 0.5,
                },
            )
            .with_free_provider("local");
        assert_eq!(book.prices("local/big").map(|p| p.cache_read), Some(0.5));
        assert_eq!(book.prices("local/qwen3").map(|p| p.output), Some(0.0));
        assert_eq!(book.prices("remote/qwen3"), None);
    }
}
