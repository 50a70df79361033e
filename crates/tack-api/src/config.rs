use std::time::Duration;

use crate::cloud::Platform;
use crate::retry::RetryPolicy;

/// How the client authenticates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// `x-api-key` (ANTHROPIC_API_KEY).
    ApiKey(String),
    /// `Authorization: Bearer` (ANTHROPIC_AUTH_TOKEN).
    Bearer(String),
    /// Both headers (apiKeyHelper output, as Claude Code sends it).
    Both(String),
    None,
}

/// Everything the HTTP client needs, passed in (never read from the process
/// environment inside the library, so tests stay hermetic). The binary builds it
/// with [`ClientConfig::from_env`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    pub base_url: String,
    pub auth: Auth,
    pub anthropic_version: String,
    pub betas: Vec<String>,
    pub extra_headers: Vec<(String, String)>,
    pub retry: RetryPolicy,
    /// Abort a stream that receives no bytes for this long.
    pub idle_timeout: Duration,
    /// Whole-request timeout (API_TIMEOUT_MS).
    pub request_timeout: Duration,
    pub connect_timeout: Duration,
    /// The Anthropic API, Bedrock or Vertex. On a cloud platform `base_url`,
    /// `auth` and `anthropic_version` are not used (the platform has its own).
    pub platform: Platform,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            base_url: "https://api.anthropic.com".into(),
            auth: Auth::None,
            anthropic_version: "2023-06-01".into(),
            betas: Vec::new(),
            extra_headers: Vec::new(),
            retry: RetryPolicy::default(),
            idle_timeout: Duration::from_secs(90),
            request_timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(10),
            platform: Platform::Anthropic,
        }
    }
}

/// `CLAUDE_CODE_MAX_RETRIES` is capped here, like Claude Code does.
const MAX_RETRIES_CAP: u32 = 15;

impl ClientConfig {
    /// The configuration Claude Code's environment variables describe, read
    /// through `lookup` (pass `|k| std::env::var(k).ok()` in the binary; tests pass
    /// a map). Empty values count as unset; unparsable numbers keep the default.
    ///
    /// - `ANTHROPIC_AUTH_TOKEN` → `Authorization: Bearer` (takes precedence, as in
    ///   Claude Code), else `ANTHROPIC_API_KEY` → `x-api-key`;
    /// - `ANTHROPIC_BASE_URL`; `API_TIMEOUT_MS` (request timeout);
    /// - `CLAUDE_CODE_MAX_RETRIES` (capped at 15);
    /// - `ANTHROPIC_BETAS` (comma-separated); `ANTHROPIC_CUSTOM_HEADERS`
    ///   (`Name: Value` lines).
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> ClientConfig {
        let get = |key: &str| {
            lookup(key)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let auth = match (get("ANTHROPIC_AUTH_TOKEN"), get("ANTHROPIC_API_KEY")) {
            (Some(token), _) => Auth::Bearer(token),
            (None, Some(key)) => Auth::ApiKey(key),
            (None, None) => Auth::None,
        };
        let mut config = ClientConfig {
            auth,
            ..ClientConfig::default()
        };
        if let Some(url) = get("ANTHROPIC_BASE_URL") {
            config.base_url = url;
        }
        if let Some(ms) = get("API_TIMEOUT_MS").and_then(|v| v.parse::<u64>().ok()) {
            config.request_timeout = Duration::from_millis(ms);
        }
        if let Some(n) = get("CLAUDE_CODE_MAX_RETRIES").and_then(|v| v.parse::<u32>().ok()) {
            config.retry.max_retries = n.min(MAX_RETRIES_CAP);
        }
        if let Some(betas) = get("ANTHROPIC_BETAS") {
            config.betas = betas
                .split(',')
                .map(str::trim)
                .filter(|b| !b.is_empty())
                .map(str::to_owned)
                .collect();
        }
        if let Some(headers) = get("ANTHROPIC_CUSTOM_HEADERS") {
            config.extra_headers = headers
                .lines()
                .filter_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    let name = name.trim();
                    (!name.is_empty()).then(|| (name.to_owned(), value.trim().to_owned()))
                })
                .collect();
        }
        config
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use pretty_assertions::assert_eq;

    use super::*;

    fn from(vars: &[(&str, &str)]) -> ClientConfig {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ClientConfig::from_env(|k| map.get(k).cloned())
    }

    #[test]
    fn empty_environment_is_the_default() {
        assert_eq!(from(&[]), ClientConfig::default());
        assert_eq!(from(&[("ANTHROPIC_API_KEY", " ")]), ClientConfig::default());
    }

    #[test]
    fn reads_every_variable() {
        let got = from(&[
            ("ANTHROPIC_API_KEY", "sk-ant-api03-x"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ("API_TIMEOUT_MS", "1500"),
            ("CLAUDE_CODE_MAX_RETRIES", "99"),
            ("ANTHROPIC_BETAS", "a-2025-01-01, b-2025-02-02,,"),
            (
                "ANTHROPIC_CUSTOM_HEADERS",
                "X-Team: tack\nbroken line\nX-Trace: a:b\r\n",
            ),
        ]);
        let expected = ClientConfig {
            base_url: "http://127.0.0.1:9/".into(),
            auth: Auth::ApiKey("sk-ant-api03-x".into()),
            betas: vec!["a-2025-01-01".into(), "b-2025-02-02".into()],
            extra_headers: vec![
                ("X-Team".into(), "tack".into()),
                ("X-Trace".into(), "a:b".into()),
            ],
            retry: RetryPolicy {
                max_retries: 15,
                ..RetryPolicy::default()
            },
            request_timeout: Duration::from_millis(1500),
            ..ClientConfig::default()
        };
        assert_eq!(got, expected);
    }

    #[test]
    fn auth_token_wins_over_api_key() {
        let got = from(&[("ANTHROPIC_API_KEY", "k"), ("ANTHROPIC_AUTH_TOKEN", "t")]);
        assert_eq!(got.auth, Auth::Bearer("t".into()));
        assert_eq!(
            from(&[("CLAUDE_CODE_MAX_RETRIES", "3")]).retry.max_retries,
            3
        );
    }
}
