//! `providers` and `modelPrices`: other model APIs and what their models cost.
//!
//! ```json
//! {"providers": {"local": {"api": "openai-chat", "baseUrl": "http://127.0.0.1:8080/v1",
//!                          "apiKeyEnv": "LOCAL_KEY", "headers": {"X-Team": "a"},
//!                          "extraBody": {"top_k": 20}}},
//!  "modelPrices": {"local/qwen3-coder": {"input": 0.5, "output": 1.5}},
//!  "model": "local/qwen3-coder"}
//! ```
//!
//! A model named `<provider>/<id>` goes to that provider. The key is never in
//! settings: `apiKeyEnv` names the environment variable holding it. Both maps
//! merge by key (the highest source's entry wins whole). An untrusted
//! workspace's own files may not set `providers`: a repository could otherwise
//! send the conversation, and a key, to a server of its choosing.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

/// Which wire API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderApi {
    /// The Anthropic Messages API (at another base URL).
    Anthropic,
    /// OpenAI Chat Completions (`/chat/completions`): local servers, most hosts.
    OpenaiChat,
    /// OpenAI Responses (`/responses`).
    OpenaiResponses,
    Bedrock,
    Vertex,
}

impl ProviderApi {
    /// As written in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderApi::Anthropic => "anthropic",
            ProviderApi::OpenaiChat => "openai-chat",
            ProviderApi::OpenaiResponses => "openai-responses",
            ProviderApi::Bedrock => "bedrock",
            ProviderApi::Vertex => "vertex",
        }
    }
}

/// One entry of `providers`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Provider {
    pub api: ProviderApi,
    /// Up to the version path (`http://127.0.0.1:8080/v1`); the API's own
    /// default when unset. An absolute `http` or `https` URL with a host,
    /// checked when the settings are read.
    #[serde(default, deserialize_with = "http_url")]
    pub base_url: Option<String>,
    /// The environment variable holding the key; none: no credentials sent.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Sent with every request.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Merged into every request body, over tack's own fields (server options:
    /// `chat_template_kwargs`, `reasoning_effort`, `top_k`, `tool_choice`...),
    /// but never the fields the client owns (`model`, `messages`, `input`, `stream`).
    #[serde(default, deserialize_with = "extra_body")]
    pub extra_body: serde_json::Map<String, serde_json::Value>,
}

/// A `baseUrl`: refused as invalid settings (the file, the line and
/// `providers.NAME.baseUrl` named) unless tack can send requests there.
fn http_url<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let Some(text) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    check_http_url(&text).map_err(D::Error::custom)?;
    Ok(Some(text))
}

/// Whether tack can send requests to `text` (an http or https URL with a
/// host), or why not: a provider's `baseUrl`, `OPENAI_BASE_URL`.
pub fn check_http_url(text: &str) -> Result<(), String> {
    match url::Url::parse(text) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => Ok(()),
        Ok(_) => Err(format!("`{text}` is not an http or https URL")),
        Err(e) => Err(format!("`{text}` is not a URL ({e})")),
    }
}

/// Request fields tack sets itself: an `extraBody` that set them would turn
/// the streaming client off, or send another model or conversation.
const CLIENT_OWNED: [&str; 4] = ["model", "messages", "input", "stream"];

/// An `extraBody`: refused as invalid settings if it sets a [`CLIENT_OWNED`] field.
fn extra_body<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<serde_json::Map<String, serde_json::Value>, D::Error> {
    let body = serde_json::Map::deserialize(d)?;
    match CLIENT_OWNED.iter().find(|k| body.contains_key(**k)) {
        Some(key) => Err(D::Error::custom(format!(
            "`{key}` is set by tack for every request ({}); remove it",
            CLIENT_OWNED.join(", ")
        ))),
        None => Ok(body),
    }
}

/// One entry of `modelPrices`: USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelPrice {
    pub input: f64,
    pub output: f64,
    /// Cached input read; `input` when unset.
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Cache writes; `input` when unset.
    #[serde(default)]
    pub cache_write: Option<f64>,
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::{Scope, Settings, Source};

    fn settings(layers: &[(Scope, &str)]) -> Result<Settings, crate::ConfigError> {
        Settings::from_layers(
            layers.iter().map(|(scope, text)| {
                (
                    Source::file(*scope, format!("/s/{scope:?}.json"), "/s"),
                    text.to_string(),
                )
            }),
            None,
        )
    }

    #[test]
    fn providers_and_prices_merge_by_key_without_warnings() {
        let user = r#"{"providers": {"local": {"api": "openai-chat", "baseUrl": "http://127.0.0.1:8080/v1", "apiKeyEnv": "LOCAL_KEY", "headers": {"X-Team": "a"}},
                                     "oai": {"api": "openai-responses"}},
                       "modelPrices": {"local/qwen": {"input": 1, "output": 2}}}"#;
        let flag = r#"{"providers": {"oai": {"api": "openai-chat", "extraBody": {"top_k": 20}}},
                       "modelPrices": {"oai/gpt": {"input": 1.5, "output": 6, "cacheRead": 0.1, "cacheWrite": 2}}}"#;
        let s = settings(&[(Scope::User, user), (Scope::Flag, flag)]).unwrap();
        let expected: BTreeMap<String, Provider> = [
            (
                "local".to_owned(),
                Provider {
                    api: ProviderApi::OpenaiChat,
                    base_url: Some("http://127.0.0.1:8080/v1".into()),
                    api_key_env: Some("LOCAL_KEY".into()),
                    headers: [("X-Team".to_owned(), "a".to_owned())].into(),
                    extra_body: serde_json::Map::new(),
                },
            ),
            (
                "oai".to_owned(),
                Provider {
                    api: ProviderApi::OpenaiChat,
                    base_url: None,
                    api_key_env: None,
                    headers: BTreeMap::new(),
                    extra_body: [("top_k".to_owned(), serde_json::json!(20))]
                        .into_iter()
                        .collect(),
                },
            ),
        ]
        .into();
        assert_eq!(s.providers(), &expected);
        let prices: BTreeMap<String, ModelPrice> = [
            (
                "local/qwen".to_owned(),
                ModelPrice {
                    input: 1.0,
                    output: 2.0,
                    cache_read: None,
                    cache_write: None,
                },
            ),
            (
                "oai/gpt".to_owned(),
                ModelPrice {
                    input: 1.5,
                    output: 6.0,
                    cache_read: Some(0.1),
                    cache_write: Some(2.0),
                },
            ),
        ]
        .into();
        assert_eq!(s.model_prices(), &prices);
        assert_eq!(s.warnings(), &[]);
    }

    #[test]
    fn an_unknown_api_or_field_is_an_error_naming_the_key() {
        for text in [
            r#"{"providers": {"x": {"api": "gemini"}}}"#,
            r#"{"providers": {"x": {"api": "openai-chat", "apiKey": "sk-no"}}}"#,
        ] {
            let e = settings(&[(Scope::User, text)]).unwrap_err().to_string();
            assert!(e.contains("providers.x"), "{e}");
        }
    }
}
