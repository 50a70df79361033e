//! Credentials: `ANTHROPIC_AUTH_TOKEN`, else `ANTHROPIC_API_KEY`, else the
//! settings' `apiKeyHelper` (Claude Code's order); with `CLAUDE_CODE_USE_BEDROCK`
//! or `CLAUDE_CODE_USE_VERTEX`, the platform's own (`cloud.rs`). Resolved before the
//! transcript is opened: a failing helper, or no credentials at all, stops the
//! session before anything is written or sent.

use std::path::Path;

use tack_api::{Auth, ClientConfig};

use crate::place::Env;

/// Why no client could be configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error(
        "no credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), or an apiKeyHelper command in settings"
    )]
    Missing,
    #[error("{0}")]
    Helper(String),
    /// A cloud platform is selected but cannot be configured.
    #[error("{0}")]
    Cloud(String),
}

/// The client configuration and where its key came from (`apiKeySource`).
pub(crate) async fn client_config(
    env: &Env,
    api_key_helper: Option<String>,
    cwd: &Path,
) -> Result<(ClientConfig, &'static str), AuthError> {
    let mut config = ClientConfig::from_env(|k| env.get(k));
    if let Some(cloud) = crate::cloud::cloud_platform(env).map_err(|e| AuthError::Cloud(e.0))? {
        config.platform = cloud.platform;
        // Claude Code reports no API key source on Bedrock and Vertex.
        return Ok((config, "none"));
    }
    if config.auth != Auth::None {
        return Ok((config, "ANTHROPIC_API_KEY"));
    }
    let Some(command) = api_key_helper else {
        return Err(AuthError::Missing);
    };
    let key = tack_config::run_api_key_helper(&command, cwd, tack_config::API_KEY_HELPER_TIMEOUT)
        .await
        .map_err(|e| AuthError::Helper(e.to_string()))?;
    config.auth = Auth::Both(key);
    Ok((config, "apiKeyHelper"))
}
