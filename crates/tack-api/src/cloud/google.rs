//! Google application-default credentials, without the metadata server: an
//! `authorized_user` file (refresh-token grant) or a `service_account` key (an
//! RS256 JWT assertion signed with `ring`), exchanged at the file's `token_uri`
//! for an access token that is cached until a minute before it expires.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use percent_encoding::utf8_percent_encode;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::body::{ERROR_BODY_LIMIT, read_capped, size};
use crate::cloud::RESERVED;
use crate::error::ApiError;

/// Google's token endpoint, for files that name none.
const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// A token this close to expiry is refreshed first.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);

/// How requests to Vertex are authenticated.
#[derive(Clone, PartialEq, Eq)]
pub enum GoogleAuth {
    /// `gcloud auth application-default login`'s file.
    AuthorizedUser {
        client_id: String,
        client_secret: String,
        refresh_token: String,
        token_uri: String,
    },
    /// A service account key file.
    ServiceAccount {
        client_email: String,
        private_key_id: Option<String>,
        /// PKCS#8 PEM.
        private_key: String,
        token_uri: String,
    },
    /// No `Authorization` header (`CLAUDE_CODE_SKIP_VERTEX_AUTH`).
    None,
}

impl std::fmt::Debug for GoogleAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GoogleAuth::AuthorizedUser { token_uri, .. } => {
                write!(f, "AuthorizedUser {{ token_uri: {token_uri:?}, .. }}")
            }
            GoogleAuth::ServiceAccount {
                client_email,
                token_uri,
                ..
            } => write!(
                f,
                "ServiceAccount {{ client_email: {client_email:?}, token_uri: {token_uri:?}, .. }}"
            ),
            GoogleAuth::None => f.write_str("None"),
        }
    }
}

impl GoogleAuth {
    /// Parses a credentials file (`type` `authorized_user` or `service_account`).
    pub fn from_json(text: &str) -> Result<GoogleAuth, String> {
        #[derive(Deserialize)]
        struct File {
            #[serde(rename = "type")]
            kind: String,
            client_id: Option<String>,
            client_secret: Option<String>,
            refresh_token: Option<String>,
            client_email: Option<String>,
            private_key_id: Option<String>,
            private_key: Option<String>,
            token_uri: Option<String>,
        }
        let file: File = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let token_uri = file
            .token_uri
            .unwrap_or_else(|| DEFAULT_TOKEN_URI.to_owned());
        let missing = |field: &str| format!("`{}` credentials without `{field}`", file.kind);
        match file.kind.as_str() {
            "authorized_user" => Ok(GoogleAuth::AuthorizedUser {
                client_id: file.client_id.clone().ok_or_else(|| missing("client_id"))?,
                client_secret: file
                    .client_secret
                    .clone()
                    .ok_or_else(|| missing("client_secret"))?,
                refresh_token: file
                    .refresh_token
                    .clone()
                    .ok_or_else(|| missing("refresh_token"))?,
                token_uri,
            }),
            "service_account" => Ok(GoogleAuth::ServiceAccount {
                client_email: file
                    .client_email
                    .clone()
                    .ok_or_else(|| missing("client_email"))?,
                private_key_id: file.private_key_id.clone(),
                private_key: file
                    .private_key
                    .clone()
                    .ok_or_else(|| missing("private_key"))?,
                token_uri,
            }),
            other => Err(format!(
                "credentials of type `{other}` are not supported (authorized_user or service_account)"
            )),
        }
    }
}

/// The cached access token of one client.
#[derive(Debug, Default)]
pub(crate) struct TokenCache {
    token: Mutex<Option<(String, Instant)>>,
}

impl TokenCache {
    /// A valid access token: the cached one, or a new one from the token endpoint.
    /// Concurrent callers wait for one exchange.
    pub(crate) async fn get(
        &self,
        http: &reqwest::Client,
        auth: &GoogleAuth,
    ) -> Result<Option<String>, ApiError> {
        if *auth == GoogleAuth::None {
            return Ok(None);
        }
        let mut cached = self.token.lock().await;
        if let Some((token, expires)) = &*cached
            && Instant::now() + EXPIRY_MARGIN < *expires
        {
            return Ok(Some(token.clone()));
        }
        let (token_uri, form) = grant(auth, SystemTime::now())?;
        let (token, lifetime) = exchange(http, token_uri, &form).await?;
        *cached = Some((token.clone(), Instant::now() + lifetime));
        Ok(Some(token))
    }
}

/// A token request's form fields.
type Form = Vec<(&'static str, String)>;

/// The token endpoint and the form to post there.
fn grant(auth: &GoogleAuth, now: SystemTime) -> Result<(&str, Form), ApiError> {
    match auth {
        GoogleAuth::AuthorizedUser {
            client_id,
            client_secret,
            refresh_token,
            token_uri,
        } => Ok((
            token_uri,
            vec![
                ("grant_type", "refresh_token".to_owned()),
                ("client_id", client_id.clone()),
                ("client_secret", client_secret.clone()),
                ("refresh_token", refresh_token.clone()),
            ],
        )),
        GoogleAuth::ServiceAccount { token_uri, .. } => Ok((
            token_uri,
            vec![
                (
                    "grant_type",
                    "urn:ietf:params:oauth:grant-type:jwt-bearer".to_owned(),
                ),
                ("assertion", assertion(auth, now)?),
            ],
        )),
        GoogleAuth::None => Err(key_error("no credentials")),
    }
}

async fn exchange(
    http: &reqwest::Client,
    token_uri: &str,
    form: &[(&str, String)],
) -> Result<(String, Duration), ApiError> {
    #[derive(Deserialize)]
    struct Token {
        access_token: String,
        expires_in: Option<u64>,
    }
    let failed = |message: String| ApiError::Authentication {
        message: format!("Google token exchange at {token_uri} failed: {message}"),
    };
    let body: String = form
        .iter()
        .map(|(k, v)| format!("{k}={}", utf8_percent_encode(v, RESERVED)))
        .collect::<Vec<_>>()
        .join("&");
    let mut response = http
        .post(token_uri)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(|e| ApiError::Connection {
            message: format!("Google token endpoint {token_uri}: {e}"),
        })?;
    let status = response.status();
    let body = read_capped(&mut response, ERROR_BODY_LIMIT)
        .await
        .map_err(|e| ApiError::Connection {
            message: format!("Google token endpoint {token_uri}: {e}"),
        })?;
    let bytes = body.bytes;
    if body.truncated && status.is_success() {
        return Err(failed(format!(
            "the answer is larger than {}",
            size(ERROR_BODY_LIMIT)
        )));
    }
    if !status.is_success() {
        return Err(failed(format!(
            "HTTP {}: {}",
            status.as_u16(),
            String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).trim()
        )));
    }
    let token: Token = serde_json::from_slice(&bytes).map_err(|e| failed(e.to_string()))?;
    Ok((
        token.access_token,
        Duration::from_secs(token.expires_in.unwrap_or(3600)),
    ))
}

/// The service account's signed JWT for the token endpoint, issued at `now`.
pub(crate) fn assertion(auth: &GoogleAuth, now: SystemTime) -> Result<String, ApiError> {
    let GoogleAuth::ServiceAccount {
        client_email,
        private_key_id,
        private_key,
        token_uri,
    } = auth
    else {
        return Err(key_error("not a service account"));
    };
    let iat = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut header = json!({"alg": "RS256", "typ": "JWT"});
    if let Some(kid) = private_key_id {
        header["kid"] = kid.clone().into();
    }
    let claims = json!({
        "iss": client_email,
        "scope": SCOPE,
        "aud": token_uri,
        "iat": iat,
        "exp": iat + 3600,
    });
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let signing_input = format!(
        "{}.{}",
        b64.encode(header.to_string()),
        b64.encode(claims.to_string())
    );
    let key = ring::signature::RsaKeyPair::from_pkcs8(&pem_der(private_key)?)
        .map_err(|e| key_error(&e.to_string()))?;
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        signing_input.as_bytes(),
        &mut signature,
    )
    .map_err(|e| key_error(&e.to_string()))?;
    Ok(format!("{signing_input}.{}", b64.encode(signature)))
}

/// The DER inside a `-----BEGIN PRIVATE KEY-----` block.
fn pem_der(pem: &str) -> Result<Vec<u8>, ApiError> {
    let body: String = pem
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("-----"))
        .collect();
    if !pem.contains("BEGIN PRIVATE KEY") {
        return Err(key_error("private_key is not a PKCS#8 PEM block"));
    }
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|e| key_error(&e.to_string()))
}

fn key_error(message: &str) -> ApiError {
    ApiError::Authentication {
        message: format!("service account key: {message}"),
    }
}
