//! Anthropic models on the cloud platforms: the same Messages API behind a
//! different URL, body envelope, authentication and (on Bedrock) stream framing.
//!
//! Each platform is a variant of [`Platform`] in [`crate::ClientConfig`], not a
//! client of its own: the retry loop, idle watchdog, cancellation and message
//! assembly of [`crate::AnthropicClient`] are the platform-independent part, and
//! a platform only changes what [`prepare`] and [`authorize`] do and which
//! framing the [`crate::StreamDecoder`] reads. So every platform yields exactly
//! the Anthropic path's [`crate::StreamEvent`] sequence.

pub(crate) mod bedrock;
pub(crate) mod event_stream;
pub(crate) mod google;
pub(crate) mod vertex;

use std::time::SystemTime;

use bytes::Bytes;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};
use serde_json::{Map, Value};
use tack_protocol::MessagesRequest;

use crate::classify::Classified;
use crate::error::ApiError;
use bedrock::{AwsAuth, BedrockConfig};
use google::TokenCache;
use vertex::VertexConfig;

/// Which service the client talks to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Platform {
    /// The Anthropic API (or anything speaking it at `base_url`).
    #[default]
    Anthropic,
    /// Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK`).
    Bedrock(BedrockConfig),
    /// Google Vertex AI (`CLAUDE_CODE_USE_VERTEX`).
    Vertex(VertexConfig),
}

impl Platform {
    /// Claude Code's name for it (`apiProvider`): `firstParty`, `bedrock`, `vertex`.
    pub fn name(&self) -> &'static str {
        match self {
            Platform::Anthropic => "firstParty",
            Platform::Bedrock(_) => "bedrock",
            Platform::Vertex(_) => "vertex",
        }
    }

    /// The model id this platform is sent for `model` (first-party ids mapped as
    /// Claude Code maps them; platform ids pass through).
    pub fn model_id(&self, model: &str) -> String {
        match self {
            Platform::Anthropic => model.to_owned(),
            Platform::Bedrock(b) => bedrock::bedrock_model_id(model, &b.region),
            Platform::Vertex(_) => vertex::vertex_model_id(model),
        }
    }
}

/// URL and body of a streamed request on a cloud platform (`None` for the Anthropic API).
pub(crate) fn prepare(
    platform: &Platform,
    request: &MessagesRequest,
    betas: &[String],
) -> Option<Result<(String, Bytes), ApiError>> {
    let body = || match serde_json::to_value(request) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) | Err(_) => Err(ApiError::InvalidRequest {
            message: "request does not serialise to an object".into(),
            request_id: None,
        }),
    };
    let encode = |map: Map<String, Value>| Bytes::from(Value::Object(map).to_string());
    match platform {
        Platform::Anthropic => None,
        Platform::Bedrock(b) => Some(body().map(|m| {
            (
                b.stream_url(&request.model),
                encode(bedrock::body(m, betas)),
            )
        })),
        Platform::Vertex(v) => {
            Some(body().map(|m| (v.stream_url(&request.model), encode(vertex::body(m)))))
        }
    }
}

/// Adds the platform's authentication to a request about to be sent.
pub(crate) async fn authorize(
    platform: &Platform,
    tokens: &TokenCache,
    http: &reqwest::Client,
    request: reqwest::RequestBuilder,
    url: &str,
    body: &[u8],
) -> Result<reqwest::RequestBuilder, Classified> {
    let classified = |error: ApiError| Classified {
        retry: matches!(error, ApiError::Connection { .. }),
        error,
    };
    match platform {
        Platform::Anthropic
        | Platform::Bedrock(BedrockConfig {
            auth: AwsAuth::None,
            ..
        }) => Ok(request),
        Platform::Bedrock(BedrockConfig {
            auth: AwsAuth::Bearer(token),
            ..
        }) => Ok(request.bearer_auth(token)),
        Platform::Bedrock(BedrockConfig {
            auth: AwsAuth::SigV4(credentials),
            region,
            ..
        }) => {
            let headers = [("content-type", "application/json")];
            let signed = bedrock::sign(credentials, region, url, &headers, body, SystemTime::now())
                .map_err(classified)?;
            Ok(signed.into_iter().fold(request, |request, (name, value)| {
                request.header(name, value)
            }))
        }
        Platform::Vertex(VertexConfig { auth, .. }) => {
            match tokens.get(http, auth).await.map_err(classified)? {
                Some(token) => Ok(request.bearer_auth(token)),
                None => Ok(request),
            }
        }
    }
}

/// What is percent-encoded in a form value or a path segment: every byte but
/// RFC 3986's unreserved characters (letters, digits, `-`, `_`, `.`, `~`).
pub(crate) const RESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
