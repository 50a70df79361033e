//! The model of a session and the request settings that follow from it.

use tack_core::QueryConfig;
use tack_protocol::ThinkingConfig;

use tack_config::Settings;

use crate::options::SessionOptions;
use crate::place::Env;

/// The model when neither a flag, `ANTHROPIC_MODEL` nor settings name one.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// Resolves `sonnet` / `opus` / `haiku` to model ids; anything else is an id.
pub fn resolve_model(name: &str) -> String {
    match name {
        "sonnet" => "claude-sonnet-4-5".into(),
        "opus" => "claude-opus-4-1".into(),
        "haiku" => "claude-haiku-4-5".into(),
        other => other.to_owned(),
    }
}

/// The model a session with `options` starts with: `--model`, else
/// `ANTHROPIC_MODEL`, else settings' `model`, else [`DEFAULT_MODEL`]; aliases
/// resolved. A front end can show it before the session has started.
///
/// An alias takes `ANTHROPIC_DEFAULT_{SONNET,OPUS,HAIKU}_MODEL` when set, and on
/// Bedrock or Vertex the id is the platform's, as Claude Code shows it.
pub fn session_model(options: &SessionOptions, env: &Env, settings: &Settings) -> String {
    let name = options
        .request
        .model
        .clone()
        .or_else(|| env.get("ANTHROPIC_MODEL"))
        .or_else(|| settings.model().map(str::to_owned))
        .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
    let pinned = match name.as_str() {
        "sonnet" => env.get("ANTHROPIC_DEFAULT_SONNET_MODEL"),
        "opus" => env.get("ANTHROPIC_DEFAULT_OPUS_MODEL"),
        "haiku" => env.get("ANTHROPIC_DEFAULT_HAIKU_MODEL"),
        _ => None,
    };
    crate::cloud::platform_model(env, pinned.unwrap_or_else(|| resolve_model(&name)))
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
        }
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
    pub(crate) fn apply(&self, base: &QueryConfig, model: &str) -> QueryConfig {
        let info = tack_api::model_info(model);
        let mut config = QueryConfig {
            model: model.to_owned(),
            ..base.clone()
        };
        config.prompt_caching = self.prompt_caching;
        config.context_window = info.map(|i| i.context_window);
        config.max_tokens = QueryConfig::new(model).max_tokens;
        if let Some(max) = info.map(|i| i.max_output_tokens) {
            config.max_tokens = config.max_tokens.min(max as u32);
        }
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
