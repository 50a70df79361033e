//! Anthropic models on Amazon Bedrock: the `invoke-with-response-stream` URL and
//! body, SigV4 signing (the `aws-sigv4` crate) or a Bedrock API key, model ids
//! as Claude Code maps them, and the event-stream payloads turned back into the
//! Messages API's events.

use std::borrow::Cow;
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use percent_encoding::{AsciiSet, utf8_percent_encode};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::cloud::RESERVED;
use crate::cloud::event_stream::Message;
use crate::decode::decode;
use crate::error::ApiError;
use crate::sse::Frame;
use tack_protocol::SseEvent;

/// The body's API version on Bedrock (the Anthropic SDKs' value).
pub const BEDROCK_ANTHROPIC_VERSION: &str = "bedrock-2023-05-31";

/// Where and how to reach Bedrock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BedrockConfig {
    /// The signing region, and the default endpoint's.
    pub region: String,
    /// `ANTHROPIC_BEDROCK_BASE_URL`; else `https://bedrock-runtime.{region}.amazonaws.com`.
    pub base_url: Option<String>,
    pub auth: AwsAuth,
}

/// How requests to Bedrock are authenticated.
#[derive(Clone, PartialEq, Eq)]
pub enum AwsAuth {
    /// SigV4 with these keys.
    SigV4(AwsCredentials),
    /// A Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`): `Authorization: Bearer`, no signing.
    Bearer(String),
    /// No authentication (`CLAUDE_CODE_SKIP_BEDROCK_AUTH`: a gateway signs).
    None,
}

#[derive(Clone, PartialEq, Eq)]
pub struct AwsCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for AwsAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AwsAuth::SigV4(credentials) => f.debug_tuple("SigV4").field(credentials).finish(),
            AwsAuth::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            AwsAuth::None => f.write_str("None"),
        }
    }
}

impl std::fmt::Debug for AwsCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AwsCredentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"<redacted>")
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

impl BedrockConfig {
    pub fn endpoint(&self) -> String {
        match &self.base_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("https://bedrock-runtime.{}.amazonaws.com", self.region),
        }
    }

    /// The streaming URL for `model` (a Bedrock id, an ARN, or a first-party id mapped
    /// by [`bedrock_model_id`]); the id is path-encoded with `:` kept (an ARN's `/`
    /// becomes `%2F`), as the SDKs do.
    pub(crate) fn stream_url(&self, model: &str) -> String {
        const PATH_ID: &AsciiSet = &RESERVED.remove(b':');
        let id = bedrock_model_id(model, &self.region);
        format!(
            "{}/model/{}/invoke-with-response-stream",
            self.endpoint(),
            utf8_percent_encode(&id, PATH_ID)
        )
    }
}

/// The request body Bedrock takes: the Messages body without `model` and
/// `stream`, with `anthropic_version` and the betas as `anthropic_beta`.
pub(crate) fn body(mut body: Map<String, Value>, betas: &[String]) -> Map<String, Value> {
    body.remove("model");
    body.remove("stream");
    body.insert("anthropic_version".into(), BEDROCK_ANTHROPIC_VERSION.into());
    if !betas.is_empty() {
        body.insert("anthropic_beta".into(), betas.to_vec().into());
    }
    body
}

/// First-party model families and the date of the snapshot Claude Code pins on
/// the cloud platforms; families not listed (newer ones) have undated ids there.
pub(crate) const DATED_FAMILIES: &[(&str, &str)] = &[
    ("claude-opus-4-5", "20251101"),
    ("claude-sonnet-4-5", "20250929"),
    ("claude-haiku-4-5", "20251001"),
    ("claude-opus-4-1", "20250805"),
    ("claude-opus-4", "20250514"),
    ("claude-sonnet-4", "20250514"),
    ("claude-3-7-sonnet", "20250219"),
    ("claude-3-5-haiku", "20241022"),
];

/// The family and snapshot date of a first-party id (`claude-sonnet-4-5`,
/// `claude-sonnet-4-5-20250929`, `claude-opus-4-0`): the id's own date, else the
/// one Claude Code pins; `None` for anything that is not a first-party id.
pub(crate) fn first_party(model: &str) -> Option<(String, Option<String>)> {
    // Claude Code's `[1m]` context suffix is not part of any platform id.
    let model = model.split('[').next().unwrap_or(model);
    if !model.starts_with("claude-") || model.contains(['.', '@', '/', ':']) {
        return None;
    }
    let (family, own_date) = match model.rsplit_once('-') {
        Some((family, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => {
            (family, Some(date.to_owned()))
        }
        _ => (model, None),
    };
    let family = family.strip_suffix("-latest").unwrap_or(family);
    let family = family.strip_suffix("-0").unwrap_or(family);
    let date = own_date.or_else(|| {
        DATED_FAMILIES
            .iter()
            .find(|(f, _)| *f == family)
            .map(|(_, d)| (*d).to_owned())
    });
    Some((family.to_owned(), date))
}

/// Claude Code's Bedrock id for `model`: a first-party id becomes the
/// cross-region inference profile of the region's geography
/// (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`); a Bedrock id or ARN passes through.
pub fn bedrock_model_id(model: &str, region: &str) -> String {
    let Some((family, date)) = first_party(model) else {
        return model.to_owned();
    };
    let geo = match region.split('-').next() {
        Some("eu") => "eu",
        Some("ap") => "apac",
        _ => "us",
    };
    match date {
        Some(date) => format!("{geo}.anthropic.{family}-{date}-v1:0"),
        None => format!("{geo}.anthropic.{family}-v1"),
    }
}

/// SigV4 headers (`authorization`, `x-amz-date`, `x-amz-security-token`) for a
/// POST of `body` to `url` with `headers`, signed for `bedrock` in `region` at `time`.
pub(crate) fn sign(
    credentials: &AwsCredentials,
    region: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    time: SystemTime,
) -> Result<Vec<(&'static str, String)>, ApiError> {
    use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings};
    let identity = aws_credential_types::Credentials::new(
        &credentials.access_key_id,
        &credentials.secret_access_key,
        credentials.session_token.clone(),
        None,
        "tack",
    )
    .into();
    let failed = |e: &dyn std::fmt::Display| ApiError::InvalidRequest {
        message: format!("cannot sign the Bedrock request: {e}"),
        request_id: None,
    };
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("bedrock")
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| failed(&e))?
        .into();
    let request = SignableRequest::new(
        "POST",
        url,
        headers.iter().copied(),
        SignableBody::Bytes(body),
    )
    .map_err(|e| failed(&e))?;
    let (instructions, _) = aws_sigv4::http_request::sign(request, &params)
        .map_err(|e| failed(&e))?
        .into_parts();
    let (headers, _) = instructions.into_parts();
    Ok(headers
        .into_iter()
        .map(|h| (h.name(), h.value().to_owned()))
        .collect())
}

/// One event-stream message → the Anthropic event it carries (`None` for
/// messages that carry none), or the error an exception frame reports.
pub(crate) fn event(message: &Message) -> Result<Option<SseEvent>, ApiError> {
    match message.header(":message-type") {
        Some("event") => {}
        Some("exception") => {
            let kind = message.header(":exception-type").unwrap_or("exception");
            return Err(aws_error(kind, &error_message(&message.payload)));
        }
        Some("error") => {
            let kind = message.header(":error-code").unwrap_or("error");
            let text = message.header(":error-message").unwrap_or("");
            return Err(aws_error(kind, text));
        }
        _ => return Ok(None),
    }
    #[derive(Deserialize)]
    struct Chunk<'a> {
        #[serde(borrow)]
        bytes: Option<Cow<'a, str>>,
    }
    #[derive(Deserialize)]
    struct Typed<'a> {
        #[serde(rename = "type", borrow)]
        kind: Cow<'a, str>,
    }
    let bad = |what: &str| ApiError::Protocol {
        message: format!("Bedrock event: {what}"),
    };
    let chunk: Chunk<'_> =
        serde_json::from_slice(&message.payload).map_err(|e| bad(&e.to_string()))?;
    let Some(bytes) = chunk.bytes else {
        return Ok(None);
    };
    let data = base64::engine::general_purpose::STANDARD
        .decode(bytes.as_bytes())
        .map_err(|e| bad(&e.to_string()))?;
    let typed: Typed<'_> = serde_json::from_slice(&data).map_err(|e| bad(&e.to_string()))?;
    decode(Frame {
        event: typed.kind.as_bytes(),
        data: &data,
    })
}

/// The `message` of an AWS error body (`message` or `Message`), else the body.
pub(crate) fn error_message(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Body {
        #[serde(alias = "Message")]
        message: String,
    }
    serde_json::from_slice::<Body>(body).map_or_else(
        |_| String::from_utf8_lossy(body).trim().to_owned(),
        |b| b.message,
    )
}

/// An AWS error by its type (`ThrottlingException`, `validationException`, ...):
/// the same class the Messages API's status would give.
pub(crate) fn aws_error(kind: &str, message: &str) -> ApiError {
    let kind = kind.split(':').next().unwrap_or(kind);
    let message = format!("{kind}: {message}");
    let server = |status| ApiError::Server {
        status,
        retry_after: None,
        message: message.clone(),
    };
    match kind.to_ascii_lowercase().as_str() {
        // No hint from the server: retried with backoff (`Some(ZERO)`, see `retry::delay`).
        "throttlingexception" | "servicequotaexceededexception" => ApiError::RateLimited {
            retry_after: Some(Duration::ZERO),
            message,
        },
        "serviceunavailableexception" | "modelnotreadyexception" => server(503),
        "modeltimeoutexception" => server(504),
        "internalserverexception" | "modelstreamerrorexception" => server(500),
        "validationexception" => crate::classify::invalid_request(message, None),
        "accessdeniedexception" => ApiError::Permission { message },
        "unrecognizedclientexception" | "expiredtokenexception" => {
            ApiError::Authentication { message }
        }
        "resourcenotfoundexception" => ApiError::NotFound { message },
        _ => ApiError::Other {
            status: 200,
            message,
        },
    }
}

#[cfg(test)]
#[path = "bedrock_tests.rs"]
mod tests;
