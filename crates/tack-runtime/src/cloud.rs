//! Claude Code's switches for Anthropic models on the cloud platforms:
//! `CLAUDE_CODE_USE_BEDROCK` and `CLAUDE_CODE_USE_VERTEX` make Bedrock or Vertex
//! the default provider, configured from the environment and the AWS / gcloud
//! files (never instance metadata: nothing is probed on the network at start).

use std::path::{Path, PathBuf};

use tack_api::{AwsAuth, AwsCredentials, BedrockConfig, GoogleAuth, Platform, VertexConfig};

use crate::place::Env;

/// A cloud platform is selected but cannot be configured: what is missing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CloudError(pub String);

/// A cloud platform the environment selects, and where its credentials come
/// from (for `tack doctor`: names and paths, never secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudPlatform {
    pub platform: Platform,
    pub credentials: String,
}

impl CloudPlatform {
    /// One line for `tack doctor`: the platform and where requests go.
    pub fn describe(&self) -> String {
        match &self.platform {
            Platform::Bedrock(b) => {
                format!("Amazon Bedrock, region {} ({})", b.region, b.endpoint())
            }
            Platform::Vertex(v) => {
                let base = v.base_url.as_deref().unwrap_or("Google's endpoint");
                format!(
                    "Google Vertex AI, project {}, region {} ({base})",
                    v.project_id, v.region
                )
            }
            Platform::Anthropic => "Anthropic API".to_owned(),
        }
    }
}

fn flag(env: &Env, key: &str) -> bool {
    env.get(key).is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// The platform `CLAUDE_CODE_USE_BEDROCK` / `CLAUDE_CODE_USE_VERTEX` select
/// (Bedrock first, as in Claude Code), `None` for the Anthropic API.
pub fn cloud_platform(env: &Env) -> Result<Option<CloudPlatform>, CloudError> {
    if flag(env, "CLAUDE_CODE_USE_BEDROCK") {
        return bedrock(env).map(Some);
    }
    if flag(env, "CLAUDE_CODE_USE_VERTEX") {
        return vertex(env).map(Some);
    }
    Ok(None)
}

fn home(env: &Env) -> PathBuf {
    env.get("HOME").map(PathBuf::from).unwrap_or_default()
}

fn aws_profile(env: &Env) -> String {
    env.get("AWS_PROFILE")
        .unwrap_or_else(|| "default".to_owned())
}

fn aws_file(env: &Env, var: &str, name: &str) -> PathBuf {
    env.get(var)
        .map_or_else(|| home(env).join(".aws").join(name), PathBuf::from)
}

/// `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's `region`, else `us-east-1`.
pub(crate) fn aws_region(env: &Env) -> String {
    env.get("AWS_REGION")
        .or_else(|| env.get("AWS_DEFAULT_REGION"))
        .or_else(|| {
            let config = aws_file(env, "AWS_CONFIG_FILE", "config");
            ini_section(&config, &config_section(&aws_profile(env)))?
                .into_iter()
                .find(|(k, _)| k == "region")
                .map(|(_, v)| v)
        })
        .unwrap_or_else(|| "us-east-1".to_owned())
}

fn config_section(profile: &str) -> String {
    if profile == "default" {
        profile.to_owned()
    } else {
        format!("profile {profile}")
    }
}

fn bedrock(env: &Env) -> Result<CloudPlatform, CloudError> {
    let (auth, credentials) = if flag(env, "CLAUDE_CODE_SKIP_BEDROCK_AUTH") {
        (
            AwsAuth::None,
            "none (CLAUDE_CODE_SKIP_BEDROCK_AUTH)".to_owned(),
        )
    } else if let Some(token) = env.get("AWS_BEARER_TOKEN_BEDROCK") {
        (
            AwsAuth::Bearer(token),
            "Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)".to_owned(),
        )
    } else if let (Some(id), Some(secret)) = (
        env.get("AWS_ACCESS_KEY_ID"),
        env.get("AWS_SECRET_ACCESS_KEY"),
    ) {
        let keys = AwsCredentials {
            access_key_id: id,
            secret_access_key: secret,
            session_token: env.get("AWS_SESSION_TOKEN"),
        };
        (
            AwsAuth::SigV4(keys),
            "environment (AWS_ACCESS_KEY_ID)".to_owned(),
        )
    } else {
        profile_keys(env)?
    };
    let platform = Platform::Bedrock(BedrockConfig {
        region: aws_region(env),
        base_url: env.get("ANTHROPIC_BEDROCK_BASE_URL"),
        auth,
    });
    Ok(CloudPlatform {
        platform,
        credentials,
    })
}

/// Static keys of the profile, from the shared credentials file, else the config file.
fn profile_keys(env: &Env) -> Result<(AwsAuth, String), CloudError> {
    let profile = aws_profile(env);
    let files = [
        (
            aws_file(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials"),
            profile.clone(),
        ),
        (
            aws_file(env, "AWS_CONFIG_FILE", "config"),
            config_section(&profile),
        ),
    ];
    for (path, section) in &files {
        let Some(pairs) = ini_section(path, section) else {
            continue;
        };
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        if let (Some(id), Some(secret)) = (get("aws_access_key_id"), get("aws_secret_access_key")) {
            let keys = AwsCredentials {
                access_key_id: id,
                secret_access_key: secret,
                session_token: get("aws_session_token"),
            };
            let from = format!("AWS profile `{profile}` ({})", path.display());
            return Ok((AwsAuth::SigV4(keys), from));
        }
    }
    Err(CloudError(format!(
        "CLAUDE_CODE_USE_BEDROCK is set but there are no AWS credentials: set AWS_ACCESS_KEY_ID and \
         AWS_SECRET_ACCESS_KEY, AWS_BEARER_TOKEN_BEDROCK, or static keys for profile `{profile}` in \
         ~/.aws/credentials (SSO, credential_process and instance metadata are not read)"
    )))
}

/// The `key = value` pairs of `[section]` in an AWS INI file; `None` if the
/// file or the section is missing.
fn ini_section(path: &Path, section: &str) -> Option<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut found = false;
    let mut pairs = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if found {
                break;
            }
            found = name.trim() == section;
            continue;
        }
        if found && let Some((k, v)) = line.split_once('=') {
            pairs.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    found.then_some(pairs)
}

/// `VERTEX_REGION_CLAUDE_*` and the model family each one moves.
const VERTEX_REGIONS: &[(&str, &str)] = &[
    ("VERTEX_REGION_CLAUDE_3_5_HAIKU", "claude-3-5-haiku"),
    ("VERTEX_REGION_CLAUDE_3_7_SONNET", "claude-3-7-sonnet"),
    ("VERTEX_REGION_CLAUDE_4_0_OPUS", "claude-opus-4"),
    ("VERTEX_REGION_CLAUDE_4_0_SONNET", "claude-sonnet-4"),
    ("VERTEX_REGION_CLAUDE_4_1_OPUS", "claude-opus-4-1"),
    ("VERTEX_REGION_CLAUDE_4_5_SONNET", "claude-sonnet-4-5"),
    ("VERTEX_REGION_CLAUDE_4_5_OPUS", "claude-opus-4-5"),
    ("VERTEX_REGION_CLAUDE_HAIKU_4_5", "claude-haiku-4-5"),
    ("VERTEX_REGION_CLAUDE_4_5_HAIKU", "claude-haiku-4-5"),
];

fn vertex(env: &Env) -> Result<CloudPlatform, CloudError> {
    let project_id = env.get("ANTHROPIC_VERTEX_PROJECT_ID").ok_or_else(|| {
        CloudError("CLAUDE_CODE_USE_VERTEX is set but ANTHROPIC_VERTEX_PROJECT_ID is not".into())
    })?;
    let (auth, credentials) = if flag(env, "CLAUDE_CODE_SKIP_VERTEX_AUTH") {
        (
            GoogleAuth::None,
            "none (CLAUDE_CODE_SKIP_VERTEX_AUTH)".to_owned(),
        )
    } else {
        let path = env.get("GOOGLE_APPLICATION_CREDENTIALS").map_or_else(
            || {
                env.get("CLOUDSDK_CONFIG")
                    .map_or_else(|| home(env).join(".config/gcloud"), PathBuf::from)
                    .join("application_default_credentials.json")
            },
            PathBuf::from,
        );
        let failed = |why: String| {
            CloudError(format!(
                "CLAUDE_CODE_USE_VERTEX is set but the Google credentials at {} cannot be used: {why} \
                 (run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS)",
                path.display()
            ))
        };
        let text = std::fs::read_to_string(&path).map_err(|e| failed(e.to_string()))?;
        let auth = GoogleAuth::from_json(&text).map_err(failed)?;
        let kind = match &auth {
            GoogleAuth::ServiceAccount { client_email, .. } => {
                format!("service account {client_email}")
            }
            GoogleAuth::AuthorizedUser { .. } | GoogleAuth::None => "user credentials".to_owned(),
        };
        (auth, format!("{kind} ({})", path.display()))
    };
    let model_regions = VERTEX_REGIONS
        .iter()
        .filter_map(|(var, family)| Some(((*family).to_owned(), env.get(var)?)))
        .collect();
    let platform = Platform::Vertex(VertexConfig {
        project_id,
        region: env
            .get("CLOUD_ML_REGION")
            .unwrap_or_else(|| "us-east5".to_owned()),
        base_url: env.get("ANTHROPIC_VERTEX_BASE_URL"),
        model_regions,
        auth,
    });
    Ok(CloudPlatform {
        platform,
        credentials,
    })
}

/// The id Claude Code shows and sends for `model` on the platform the
/// environment selects (`claude-sonnet-4-5` → `us.anthropic.claude-sonnet-4-5-20250929-v1:0`
/// on Bedrock, `claude-sonnet-4-5@20250929` on Vertex); `model` itself otherwise.
pub(crate) fn platform_model(env: &Env, model: String) -> String {
    if flag(env, "CLAUDE_CODE_USE_BEDROCK") {
        tack_api::bedrock_model_id(&model, &aws_region(env))
    } else if flag(env, "CLAUDE_CODE_USE_VERTEX") {
        tack_api::vertex_model_id(&model)
    } else {
        model
    }
}

#[cfg(test)]
#[path = "cloud_tests.rs"]
mod tests;
