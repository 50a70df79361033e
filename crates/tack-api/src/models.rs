//! What tack knows about each Claude model: context window, output cap, prices.
//!
//! Sources, by row: the current models (`claude-opus-5-5`, `claude-sonnet-5-5`,
//! `claude-haiku-5-5`, `claude-fable-5-2`), `claude-sonnet-4-5`'s limits and the
//! unknown-model figures are Claude Code 2.1.328's, measured on the scripted
//! server (issue 37, 2026-12): the `model` it sends, `total_cost_usd` for fixed
//! token counts, `contextWindow` and `maxOutputTokens`. The older rows come from
//! the errors spec §6 (pricing and models pages dated 2026-08-21/22) and are kept
//! for ids given explicitly. Re-check before relying on the figures for billing.
//! The aliases that name these models are in [`crate::aliases`].

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
    /// Prompt-cache write with the default 5-minute TTL.
    pub cache_write_5m: f64,
    /// Prompt-cache write with the 1-hour TTL.
    pub cache_write_1h: f64,
    /// Cache hits and refreshes.
    pub cache_read: f64,
}

/// A dearer rate for a request whose prompt is long: above `above` prompt
/// tokens (input + cache writes + cache reads of that one request,
/// [`tack_protocol::Usage::total_input`]), input and output cost these
/// prices instead; cache prices stay as they are (Claude Code's table gives
/// only the two).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LongPrompt {
    pub above: u64,
    pub input: f64,
    pub output: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelInfo {
    /// The canonical id (alias) of the model family, e.g. `claude-sonnet-4-5`.
    pub id: &'static str,
    /// Context window in tokens.
    pub context_window: u64,
    pub max_output_tokens: u64,
    pub prices: Prices,
    /// The long-prompt tier, for the models that have one.
    pub long_prompt: Option<LongPrompt>,
}

/// The model a session uses when none is named, and whose rates a model
/// missing from the table is charged at (Claude Code 2.1.328's).
pub const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// The model's data, matching `model` by family: `claude-sonnet-4-5-20250929`,
/// `claude-sonnet-4-5`, `anthropic.claude-sonnet-4-5-20250929-v1:0` and
/// `claude-opus-4-6[1m]` all resolve; an unknown (or newer minor) version is `None`.
pub fn model_info(model: &str) -> Option<ModelInfo> {
    let model = model.to_ascii_lowercase();
    MODELS
        .iter()
        .find(|(family, _)| matches_family(&model, family))
        .or_else(|| {
            // `openai/gpt-4.1-2025-04-14`: the id after the provider prefix.
            let id = model.rsplit('/').next().unwrap_or(&model);
            OTHER_MODELS.iter().find(|(family, _)| {
                id.strip_prefix(family)
                    .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric()))
            })
        })
        .map(|(_, info)| *info)
}

/// Every model family tack knows, in the table's order (newest first): what a
/// front end offers to switch to.
pub fn known_models() -> impl Iterator<Item = ModelInfo> {
    MODELS.iter().map(|(_, info)| *info)
}

/// Context window assumed for a model missing from the table, what stream-json
/// reports as its `contextWindow` (Claude Code 2.1.328's: 1M).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 1_000_000;
/// Output cap assumed for a model missing from the table (stream-json's
/// `maxOutputTokens`, and its requests' `max_tokens`): Claude Code's 32k, the
/// lowest cap of the Claude 4 families, so a request sized by it is accepted
/// by any of them.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u64 = 32_000;

/// A model's context window and output cap, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLimits {
    pub context_window: u64,
    pub max_output_tokens: u64,
    /// False when the model is not in tack's table and the figures are
    /// [`DEFAULT_CONTEXT_WINDOW`] / [`DEFAULT_MAX_OUTPUT_TOKENS`]: fine to show,
    /// not to size context management by.
    pub known: bool,
}

/// The limits of `model` (matched as in [`model_info`]); for an unknown model
/// 1,000,000 / 32,000 with `known: false`. The one place the unknown-model
/// defaults are decided.
pub fn model_limits(model: &str) -> ModelLimits {
    match model_info(model) {
        Some(info) => ModelLimits {
            context_window: info.context_window,
            max_output_tokens: info.max_output_tokens,
            known: true,
        },
        None => ModelLimits {
            context_window: DEFAULT_CONTEXT_WINDOW,
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            known: false,
        },
    }
}

/// `family` occurs in `model`, followed by nothing, a date (`-20250929`), the
/// `-0` alias suffix or a non-version suffix (`-latest`, `-v1:0`, `[1m]`, `@…`),
/// but not by another version number (`opus-4` must not match `opus-4-1`).
fn matches_family(model: &str, family: &str) -> bool {
    model.match_indices(family).any(|(pos, _)| {
        let before = model[..pos].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
            return false;
        }
        let rest = &model[pos + family.len()..];
        let Some(rest) = rest.strip_prefix('-') else {
            return !rest.starts_with(|c: char| c.is_ascii_alphanumeric());
        };
        let segment = rest
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        if segment.bytes().all(|b| b.is_ascii_digit()) {
            segment.len() == 8 || segment == "0"
        } else {
            true
        }
    })
}

const fn prices(input: f64, output: f64) -> Prices {
    // The table's cache prices are exactly these multiples of the input price.
    Prices {
        input,
        output,
        cache_write_5m: input * 1.25,
        cache_write_1h: input * 2.0,
        cache_read: input * 0.1,
    }
}

/// Prices given one by one: input, output, cache write 5m and 1h, cache read.
const fn listed(input: f64, output: f64, write_5m: f64, write_1h: f64, read: f64) -> Prices {
    Prices {
        input,
        output,
        cache_write_5m: write_5m,
        cache_write_1h: write_1h,
        cache_read: read,
    }
}

const fn info(
    id: &'static str,
    context_window: u64,
    max_output_tokens: u64,
    prices: Prices,
) -> ModelInfo {
    ModelInfo {
        id,
        context_window,
        max_output_tokens,
        prices,
        long_prompt: None,
    }
}

const K: u64 = 1_000;
const M: u64 = 1_000_000;

/// Family pattern → data. First match wins, so no pattern may match another's ids
/// (guaranteed by [`matches_family`]'s version rule).
pub(crate) const MODELS: &[(&str, ModelInfo)] = &[
    // Claude Code 2.1.328's models (issue 37, 2026-12): cache prices as
    // measured, not derived from the input price.
    (
        "opus-5-5",
        info(
            "claude-opus-5-5",
            M,
            128 * K,
            listed(4.0, 20.0, 5.0, 8.0, 0.2),
        ),
    ),
    (
        "sonnet-5-5",
        info(
            "claude-sonnet-5-5",
            M,
            128 * K,
            listed(2.0, 10.0, 2.5, 4.0, 0.1),
        ),
    ),
    (
        "haiku-5-5",
        ModelInfo {
            long_prompt: Some(LongPrompt {
                above: 100 * K,
                input: 0.5,
                output: 2.5,
            }),
            ..info(
                "claude-haiku-5-5",
                M,
                128 * K,
                listed(0.1, 0.5, 0.125, 0.2, 0.01),
            )
        },
    ),
    (
        "fable-5-2",
        info(
            "claude-fable-5-2",
            M,
            128 * K,
            listed(8.0, 40.0, 10.0, 16.0, 0.2),
        ),
    ),
    (
        "opus-5",
        info("claude-opus-5", M, 128 * K, prices(5.0, 25.0)),
    ),
    // Context and output cap of Sonnet 5 are not in the spec; assumed as Sonnet 4.6.
    (
        "sonnet-5",
        info("claude-sonnet-5", M, 128 * K, prices(2.0, 10.0)),
    ),
    (
        "opus-4-8",
        info("claude-opus-4-8", M, 128 * K, prices(5.0, 25.0)),
    ),
    (
        "opus-4-7",
        info("claude-opus-4-7", M, 128 * K, prices(5.0, 25.0)),
    ),
    (
        "opus-4-6",
        info("claude-opus-4-6", M, 128 * K, prices(5.0, 25.0)),
    ),
    (
        "opus-4-5",
        info("claude-opus-4-5", 200 * K, 64 * K, prices(5.0, 25.0)),
    ),
    (
        "opus-4-1",
        info("claude-opus-4-1", 200 * K, 32 * K, prices(15.0, 75.0)),
    ),
    (
        "opus-4",
        info("claude-opus-4-0", 200 * K, 32 * K, prices(15.0, 75.0)),
    ),
    (
        "sonnet-4-6",
        info("claude-sonnet-4-6", M, 128 * K, prices(3.0, 15.0)),
    ),
    (
        "sonnet-4-5",
        // Output cap: Claude Code 2.1.328 reports (and asks for) 32k.
        info("claude-sonnet-4-5", 200 * K, 32 * K, prices(3.0, 15.0)),
    ),
    (
        "sonnet-4",
        info("claude-sonnet-4-0", 200 * K, 64 * K, prices(3.0, 15.0)),
    ),
    (
        "haiku-4-5",
        info("claude-haiku-4-5", 200 * K, 64 * K, prices(1.0, 5.0)),
    ),
    (
        "3-5-haiku",
        info("claude-3-5-haiku", 200 * K, 8 * K, prices(0.8, 4.0)),
    ),
];

/// USD per million tokens of an OpenAI model: cache writes cost the input
/// price (no surcharge), cached input `cached`.
const fn openai(input: f64, cached: f64, output: f64) -> Prices {
    Prices {
        input,
        output,
        cache_write_5m: input,
        cache_write_1h: input,
        cache_read: cached,
    }
}

/// Common hosted non-Claude models, matched by id prefix (after any
/// `provider/`), first match wins: so `-mini`/`-nano` come before their base.
/// Not offered as models to switch to, not used for the unknown-model rate.
/// Approximate: OpenAI's published list prices per million tokens (input /
/// cached input / output) and documented context and output limits as of
/// 2025; override them with the `modelPrices` setting.
pub(crate) const OTHER_MODELS: &[(&str, ModelInfo)] = &[
    (
        "gpt-5-mini",
        info("gpt-5-mini", 400 * K, 128 * K, openai(0.25, 0.025, 2.0)),
    ),
    (
        "gpt-5-nano",
        info("gpt-5-nano", 400 * K, 128 * K, openai(0.05, 0.005, 0.4)),
    ),
    (
        "gpt-5",
        info("gpt-5", 400 * K, 128 * K, openai(1.25, 0.125, 10.0)),
    ),
    (
        "gpt-4.1-mini",
        info("gpt-4.1-mini", 1_047_576, 32_768, openai(0.4, 0.1, 1.6)),
    ),
    (
        "gpt-4.1-nano",
        info("gpt-4.1-nano", 1_047_576, 32_768, openai(0.1, 0.025, 0.4)),
    ),
    (
        "gpt-4.1",
        info("gpt-4.1", 1_047_576, 32_768, openai(2.0, 0.5, 8.0)),
    ),
    (
        "gpt-4o-mini",
        info("gpt-4o-mini", 128 * K, 16_384, openai(0.15, 0.075, 0.6)),
    ),
    (
        "gpt-4o",
        info("gpt-4o", 128 * K, 16_384, openai(2.5, 1.25, 10.0)),
    ),
    (
        "o3-pro",
        info("o3-pro", 200 * K, 100 * K, openai(20.0, 20.0, 80.0)),
    ),
    (
        "o3-mini",
        info("o3-mini", 200 * K, 100 * K, openai(1.1, 0.55, 4.4)),
    ),
    ("o3", info("o3", 200 * K, 100 * K, openai(2.0, 0.5, 8.0))),
    (
        "o4-mini",
        info("o4-mini", 200 * K, 100 * K, openai(1.1, 0.275, 4.4)),
    ),
];

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn resolves_ids_aliases_and_provider_forms() {
        let cases = [
            ("claude-opus-4-8", Some("claude-opus-4-8")),
            ("claude-opus-4-7", Some("claude-opus-4-7")),
            ("claude-opus-4-6[1m]", Some("claude-opus-4-6")),
            ("claude-opus-4-5-20251101", Some("claude-opus-4-5")),
            ("claude-opus-4-1-20250805", Some("claude-opus-4-1")),
            ("claude-opus-4-20250514", Some("claude-opus-4-0")),
            ("claude-opus-4-0", Some("claude-opus-4-0")),
            ("claude-opus-5", Some("claude-opus-5")),
            ("claude-opus-5-5", Some("claude-opus-5-5")),
            ("claude-opus-5-5[1m]", Some("claude-opus-5-5")),
            ("claude-sonnet-5-5", Some("claude-sonnet-5-5")),
            ("claude-haiku-5-5", Some("claude-haiku-5-5")),
            ("claude-fable-5-2", Some("claude-fable-5-2")),
            ("claude-fable-5-3", None),
            ("claude-sonnet-5", Some("claude-sonnet-5")),
            ("claude-sonnet-4-6", Some("claude-sonnet-4-6")),
            ("claude-sonnet-4-5-20250929", Some("claude-sonnet-4-5")),
            (
                "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                Some("claude-sonnet-4-5"),
            ),
            ("claude-sonnet-4@20250514", Some("claude-sonnet-4-0")),
            ("claude-sonnet-4-20250514", Some("claude-sonnet-4-0")),
            ("Claude-Haiku-4-5-20251001", Some("claude-haiku-4-5")),
            ("claude-3-5-haiku-latest", Some("claude-3-5-haiku")),
            ("claude-opus-4-9", None),
            ("claude-sonnet-45", None),
            ("gpt-5", Some("gpt-5")),
            ("openai/gpt-4o-2024-08-06", Some("gpt-4o")),
            ("gpt-9", None),
            ("", None),
        ];
        for (model, expected) in cases {
            assert_eq!(model_info(model).map(|i| i.id), expected, "{model}");
        }
    }

    #[test]
    fn limits_of_a_known_and_an_unknown_model() {
        assert_eq!(
            [
                model_limits("claude-opus-4-1-20250805"),
                model_limits("claude-opus-4-9")
            ],
            [
                ModelLimits {
                    context_window: 200_000,
                    max_output_tokens: 32_000,
                    known: true,
                },
                ModelLimits {
                    context_window: 1_000_000,
                    max_output_tokens: 32_000,
                    known: false,
                },
            ]
        );
        assert_eq!(
            model_limits("claude-sonnet-4-6"),
            ModelLimits {
                context_window: 1_000_000,
                max_output_tokens: 128_000,
                known: true,
            }
        );
    }

    /// Claude Code 2.1.328's table (issue 37), row by row: window, output
    /// cap, the five prices and the long-prompt tier.
    #[test]
    fn current_models_as_claude_code_has_them() {
        let row = |id: &'static str, prices: Prices, long_prompt: Option<LongPrompt>| ModelInfo {
            id,
            context_window: 1_000_000,
            max_output_tokens: 128_000,
            prices,
            long_prompt,
        };
        let got = [
            "claude-opus-5-5",
            "claude-sonnet-5-5",
            "claude-haiku-5-5",
            "claude-fable-5-2",
        ]
        .map(model_info);
        assert_eq!(
            got,
            [
                Some(row(
                    "claude-opus-5-5",
                    listed(4.0, 20.0, 5.0, 8.0, 0.2),
                    None
                )),
                Some(row(
                    "claude-sonnet-5-5",
                    listed(2.0, 10.0, 2.5, 4.0, 0.1),
                    None
                )),
                Some(row(
                    "claude-haiku-5-5",
                    listed(0.1, 0.5, 0.125, 0.2, 0.01),
                    Some(LongPrompt {
                        above: 100_000,
                        input: 0.5,
                        output: 2.5
                    })
                )),
                Some(row(
                    "claude-fable-5-2",
                    listed(8.0, 40.0, 10.0, 16.0, 0.2),
                    None
                )),
            ]
        );
        assert_eq!(
            model_info("claude-sonnet-4-5").map(|i| (i.context_window, i.max_output_tokens)),
            Some((200_000, 32_000))
        );
        assert_eq!(model_info(DEFAULT_MODEL).map(|i| i.id), Some(DEFAULT_MODEL));
    }

    #[test]
    fn table_figures() {
        assert_eq!(
            model_info("claude-sonnet-5"),
            Some(ModelInfo {
                id: "claude-sonnet-5",
                context_window: 1_000_000,
                max_output_tokens: 128_000,
                prices: Prices {
                    input: 2.0,
                    output: 10.0,
                    cache_write_5m: 2.5,
                    cache_write_1h: 4.0,
                    cache_read: 0.2,
                },
                long_prompt: None,
            })
        );
        let haiku = model_info("claude-3-5-haiku-20241022").map(|i| i.prices);
        let expected = Prices {
            input: 0.8,
            output: 4.0,
            cache_write_5m: 1.0,
            cache_write_1h: 1.6,
            cache_read: 0.08,
        };
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let h = haiku.unwrap();
        assert!(
            close(h.cache_write_5m, expected.cache_write_5m)
                && close(h.cache_write_1h, expected.cache_write_1h)
                && close(h.cache_read, expected.cache_read),
            "{h:?}"
        );
    }
}
