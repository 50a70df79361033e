//! The model of a session and the request settings that follow from it.

use tack_api::aliases::{Alias, Family, alias};
use tack_core::QueryConfig;
use tack_permissions::PermissionMode;
use tack_protocol::ThinkingConfig;

use tack_config::Settings;

use crate::options::SessionOptions;
use crate::place::Env;

/// The model when neither a flag, `ANTHROPIC_MODEL` nor settings name one,
/// and no `ANTHROPIC_DEFAULT_MODEL` / `ANTHROPIC_DEFAULT_OPUS_MODEL` pins it.
pub const DEFAULT_MODEL: &str = tack_api::DEFAULT_MODEL;

/// The aliases (`tack_api::aliases`) as the environment pins them, read once
/// at start-up. Precedence, decided here:
///
/// - no model named, or `default`: `ANTHROPIC_DEFAULT_MODEL` (itself an alias
///   or an id), else `ANTHROPIC_DEFAULT_OPUS_MODEL`, else [`DEFAULT_MODEL`];
/// - `opus`, `best`, `opus[1m]`, and `opusplan` in plan mode:
///   `ANTHROPIC_DEFAULT_OPUS_MODEL`, else `claude-opus-5-5`;
/// - `sonnet`, `sonnet[1m]`, and `opusplan` outside plan mode:
///   `ANTHROPIC_DEFAULT_SONNET_MODEL`, else `claude-sonnet-5-5`;
/// - `haiku`, `haiku[1m]`: `ANTHROPIC_DEFAULT_HAIKU_MODEL`, else
///   `claude-haiku-5-5`; `fable`: `ANTHROPIC_DEFAULT_FABLE_MODEL`, else
///   `claude-fable-5-2`;
/// - anything else is a model id, sent as given.
///
/// (`ANTHROPIC_MODEL` names the session's model like `--model` does, below
/// the flag: see [`session_model_name`].)
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelAliases {
    default: Option<String>,
    opus: Option<String>,
    sonnet: Option<String>,
    haiku: Option<String>,
    fable: Option<String>,
}

impl ModelAliases {
    pub fn from_env(env: &Env) -> ModelAliases {
        ModelAliases {
            default: env.get("ANTHROPIC_DEFAULT_MODEL"),
            opus: env.get(Family::Opus.env_var()),
            sonnet: env.get(Family::Sonnet.env_var()),
            haiku: env.get(Family::Haiku.env_var()),
            fable: env.get(Family::Fable.env_var()),
        }
    }

    /// The model id `name` stands for; `planning`: the session is in plan
    /// mode (what `opusplan` follows).
    pub fn resolve(&self, name: &str, planning: bool) -> String {
        match alias(name) {
            None => name.to_owned(),
            Some(Alias::Default) => match &self.default {
                Some(d) if alias(d) != Some(Alias::Default) => self.resolve(d, planning),
                _ => self.family(Family::Opus),
            },
            Some(Alias::Family(family)) => self.family(family),
            Some(Alias::OpusPlan) if planning => self.family(Family::Opus),
            Some(Alias::OpusPlan) => self.family(Family::Sonnet),
        }
    }

    fn family(&self, family: Family) -> String {
        let pinned = match family {
            Family::Opus => &self.opus,
            Family::Sonnet => &self.sonnet,
            Family::Haiku => &self.haiku,
            Family::Fable => &self.fable,
        };
        pinned.clone().unwrap_or_else(|| family.model().to_owned())
    }
}

/// Resolves an alias to its model id with no environment pins and outside
/// plan mode; anything else is an id.
pub fn resolve_model(name: &str) -> String {
    ModelAliases::default().resolve(name, false)
}

/// The name the session's model is chosen by, before aliases: `--model`,
/// else `ANTHROPIC_MODEL`, else settings' `model`, else `default`.
pub fn session_model_name(options: &SessionOptions, env: &Env, settings: &Settings) -> String {
    options
        .request
        .model
        .clone()
        .or_else(|| env.get("ANTHROPIC_MODEL"))
        .or_else(|| settings.model().map(str::to_owned))
        .unwrap_or_else(|| "default".to_owned())
}

/// The model a session with `options` starts with ([`session_model_name`]
/// resolved under the environment's pins, [`ModelAliases`]; `opusplan` as
/// the `--permission-mode` flag has it). A front end can show it before the
/// session has started. On Bedrock or Vertex the id is the platform's, as
/// Claude Code shows it.
pub fn session_model(options: &SessionOptions, env: &Env, settings: &Settings) -> String {
    let planning = options.permissions.mode == Some(PermissionMode::Plan);
    model_for(&session_model_name(options, env, settings), env, planning)
}

/// `name` resolved under `env`'s pins, as the platform names it.
pub(crate) fn model_for(name: &str, env: &Env, planning: bool) -> String {
    let model = ModelAliases::from_env(env).resolve(name, planning);
    crate::cloud::platform_model(env, model)
}

/// Environment knobs of the requests (read once at start-up), and the
/// front end's thinking and effort choices.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RequestEnv {
    prompt_caching: bool,
    max_output_tokens: Option<u32>,
    thinking_tokens: Option<u32>,
    /// `RequestOptions::thinking`: beats `MAX_THINKING_TOKENS`.
    thinking: Option<ThinkingConfig>,
    /// `RequestOptions::effort`.
    effort: Option<String>,
    /// The aliases as the environment pins them.
    aliases: ModelAliases,
}

impl RequestEnv {
    pub(crate) fn from_env(env: &Env) -> RequestEnv {
        RequestEnv {
            prompt_caching: env.get("DISABLE_PROMPT_CACHING").is_none_or(|v| v == "0"),
            max_output_tokens: env
                .get("CLAUDE_CODE_MAX_OUTPUT_TOKENS")
                .and_then(|v| v.parse().ok()),
            thinking_tokens: env
                .get("MAX_THINKING_TOKENS")
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|n| *n > 0),
            thinking: None,
            effort: None,
            aliases: ModelAliases::from_env(env),
        }
    }

    /// The model id `name` stands for under the environment's pins
    /// ([`ModelAliases::resolve`]).
    pub(crate) fn resolve(&self, name: &str, planning: bool) -> String {
        self.aliases.resolve(name, planning)
    }

    /// With the front end's thinking and effort choices.
    pub(crate) fn with_choices(
        mut self,
        thinking: Option<ThinkingConfig>,
        effort: Option<String>,
    ) -> RequestEnv {
        self.thinking = thinking;
        self.effort = effort;
        self
    }

    /// `base` with `model`'s window and output cap and these knobs applied.
    ///
    /// `max_tokens` is what Claude Code asks: the model's output cap (128,000
    /// for the current models, 32,000 for an unknown Claude id), so the loop's
    /// 8k→64k escalation only runs for a model whose cap is above the first
    /// request's (an unknown id: 32k, then 64k). Another provider's model tack
    /// has no figures for (`provider/id`) starts at the loop's 8k default, as
    /// a local server may not take more, and escalates from there.
    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS` wins over both.
    pub(crate) fn apply(&self, base: &QueryConfig, model: &str) -> QueryConfig {
        let info = tack_api::model_info(model);
        let mut config = QueryConfig {
            model: model.to_owned(),
            ..base.clone()
        };
        config.prompt_caching = self.prompt_caching;
        config.context_window = info.map(|i| i.context_window);
        let limits = tack_api::model_limits(model);
        config.max_tokens = match limits.known || !model.contains('/') {
            true => u32::try_from(limits.max_output_tokens).unwrap_or(u32::MAX),
            false => QueryConfig::new(model).max_tokens,
        };
        if let Some(n) = self.max_output_tokens {
            config.max_tokens = n;
            config.max_tokens_configured = true;
        }
        if let Some(n) = self.thinking_tokens {
            config.thinking = Some(ThinkingConfig::Enabled {
                budget_tokens: n,
                display: None,
            });
        }
        if let Some(thinking) = &self.thinking {
            config.thinking = Some(thinking.clone());
        }
        let cap = info.map(|i| u32::try_from(i.max_output_tokens).unwrap_or(u32::MAX));
        fit_thinking(&mut config, self.max_output_tokens.is_none(), cap);
        if let Some(effort) = &self.effort {
            let mut output_config = serde_json::Map::new();
            output_config.insert("effort".into(), serde_json::Value::String(effort.clone()));
            config.request_extra.insert(
                "output_config".into(),
                serde_json::Value::Object(output_config),
            );
        }
        config.fallback_model = base.fallback_model.clone().filter(|m| m != model);
        config
    }
}

/// `max_tokens` with a thinking budget when the user set no cap (Claude Code's:
/// 32,000 with an 8,000 budget).
const THINKING_MAX_TOKENS: u32 = 32_000;
/// The API's smallest thinking budget.
const MIN_THINKING_BUDGET: u32 = 1_024;

/// Makes a thinking request one the API accepts: a budget of at least 1,024
/// and below `max_tokens` (raised when the user set no cap, else the budget
/// shrinks; thinking is dropped when even 1,024 does not fit).
fn fit_thinking(config: &mut QueryConfig, may_raise: bool, model_cap: Option<u32>) {
    let Some(ThinkingConfig::Enabled { budget_tokens, .. }) = &mut config.thinking else {
        return;
    };
    *budget_tokens = (*budget_tokens).max(MIN_THINKING_BUDGET);
    if may_raise {
        let wanted = THINKING_MAX_TOKENS.max(budget_tokens.saturating_add(1));
        config.max_tokens = config
            .max_tokens
            .max(wanted)
            .min(model_cap.unwrap_or(u32::MAX));
    }
    if *budget_tokens >= config.max_tokens {
        *budget_tokens = config.max_tokens.saturating_sub(1);
    }
    if *budget_tokens < MIN_THINKING_BUDGET {
        config.thinking = None;
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn aliases(vars: &[(&str, &str)]) -> ModelAliases {
        ModelAliases::from_env(&Env(vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()))
    }

    #[test]
    fn aliases_with_and_without_the_environment_pins() {
        let names = [
            "default",
            "opus",
            "best",
            "opus[1m]",
            "sonnet",
            "haiku[1m]",
            "fable",
            "my-id",
        ];
        let none = aliases(&[]);
        assert_eq!(
            names.map(|n| none.resolve(n, false)),
            [
                "claude-opus-5-5",
                "claude-opus-5-5",
                "claude-opus-5-5",
                "claude-opus-5-5",
                "claude-sonnet-5-5",
                "claude-haiku-5-5",
                "claude-fable-5-2",
                "my-id"
            ]
        );
        let pinned = aliases(&[
            ("ANTHROPIC_DEFAULT_OPUS_MODEL", "o"),
            ("ANTHROPIC_DEFAULT_SONNET_MODEL", "s"),
            ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "h"),
            ("ANTHROPIC_DEFAULT_FABLE_MODEL", "f"),
        ]);
        assert_eq!(
            names.map(|n| pinned.resolve(n, false)),
            ["o", "o", "o", "o", "s", "h", "f", "my-id"]
        );
        assert_eq!(
            [
                pinned.resolve("opusplan", true),
                pinned.resolve("opusplan", false)
            ],
            ["o", "s"]
        );
        // ANTHROPIC_DEFAULT_MODEL beats the Opus pin for the default only,
        // and may itself be an alias.
        let default = aliases(&[
            ("ANTHROPIC_DEFAULT_MODEL", "haiku"),
            ("ANTHROPIC_DEFAULT_OPUS_MODEL", "o"),
        ]);
        assert_eq!(
            [
                default.resolve("default", false),
                default.resolve("best", false)
            ],
            ["claude-haiku-5-5", "o"]
        );
        let looped = aliases(&[("ANTHROPIC_DEFAULT_MODEL", "default")]);
        assert_eq!(looped.resolve("default", false), "claude-opus-5-5");
    }

    #[test]
    fn max_tokens_is_the_models_cap_unless_the_environment_sets_it() {
        let base = QueryConfig::new("x");
        let plain = RequestEnv::default();
        let capped = RequestEnv::from_env(&Env([(
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS".to_owned(),
            "1000".to_owned(),
        )]
        .into()));
        let got = [
            plain.apply(&base, "claude-opus-5-5").max_tokens,
            plain.apply(&base, "claude-sonnet-4-5").max_tokens,
            plain.apply(&base, "claude-3-5-haiku").max_tokens,
            plain.apply(&base, "claude-unknown-9").max_tokens,
            plain.apply(&base, "local/qwen3").max_tokens,
            capped.apply(&base, "claude-opus-5-5").max_tokens,
        ];
        assert_eq!(got, [128_000, 32_000, 8_000, 32_000, 8_000, 1000]);
    }
}
