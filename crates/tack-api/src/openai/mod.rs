//! OpenAI-compatible model APIs: Chat Completions (`/chat/completions`, which
//! every local server speaks) and Responses (`/responses`, OpenAI's own).
//!
//! [`OpenAiClient`] is a [`ModelClient`]: it maps a [`MessagesRequest`] to the
//! API's body (`chat_request.rs`, `responses_request.rs`) and the API's stream
//! back to the Anthropic-shaped [`StreamEvent`]s (`chat_stream.rs`,
//! `responses_stream.rs`, both through `synth.rs`), over the same transport as
//! the Anthropic client (retries, idle watchdog, cancellation, TLS).

mod chat_request;
mod chat_stream;
mod errors;
mod parts;
mod responses_request;
mod responses_stream;
mod synth;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{self, HeaderMap, HeaderValue};
use tack_protocol::MessagesRequest;
use tokio_util::sync::CancellationToken;

use crate::ModelClient;
use crate::error::ApiError;
use crate::event::StreamEvent;
use crate::retry::RetryPolicy;
use crate::transport::{Limits, Transport, add_common_headers, config_error};
use chat_request::{MaxTokensField, chat_body};
use chat_stream::ChatDecoder;
use responses_request::responses_body;
use responses_stream::ResponsesDecoder;

/// Which OpenAI API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenAiApi {
    /// `POST {base}/chat/completions`.
    Chat,
    /// `POST {base}/responses`.
    Responses,
}

/// Everything an [`OpenAiClient`] needs, passed in (nothing is read from the
/// environment here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// The provider's name, for error messages (`local` in `local/qwen3`).
    pub provider: String,
    pub api: OpenAiApi,
    /// Up to and including the version path: `https://host/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer`; `None` sends no credentials (local servers).
    pub api_key: Option<String>,
    pub headers: Vec<(String, String)>,
    /// Merged into every request body, over the mapped fields.
    pub extra_body: serde_json::Map<String, serde_json::Value>,
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
    pub connect_timeout: Duration,
}

impl OpenAiConfig {
    pub fn new(provider: impl Into<String>, api: OpenAiApi, base_url: impl Into<String>) -> Self {
        OpenAiConfig {
            provider: provider.into(),
            api,
            base_url: base_url.into(),
            api_key: None,
            headers: Vec::new(),
            extra_body: serde_json::Map::new(),
            retry: RetryPolicy::default(),
            idle_timeout: Duration::from_secs(90),
            request_timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// A client for one OpenAI-compatible provider. Cheap to clone.
#[derive(Clone, Debug)]
pub struct OpenAiClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    transport: Arc<Transport>,
    provider: String,
    api: OpenAiApi,
    url: Arc<str>,
    max_tokens_field: MaxTokensField,
    extra_body: serde_json::Map<String, serde_json::Value>,
}

impl OpenAiClient {
    /// Fails only on an unusable configuration (a header that is not valid HTTP).
    pub fn new(config: OpenAiConfig) -> Result<Self, ApiError> {
        let limits = Limits {
            retry: config.retry.clone(),
            idle_timeout: config.idle_timeout,
            request_timeout: config.request_timeout,
            connect_timeout: config.connect_timeout,
        };
        let https = config.base_url.starts_with("https:");
        let transport = Transport::new(https, headers(&config)?, limits, errors::classify_openai)?;
        let base = config.base_url.trim_end_matches('/');
        let url = match config.api {
            OpenAiApi::Chat => format!("{base}/chat/completions"),
            OpenAiApi::Responses => format!("{base}/responses"),
        };
        let max_tokens_field = if base.contains("openai.com") {
            MaxTokensField::MaxCompletionTokens
        } else {
            MaxTokensField::MaxTokens
        };
        Ok(OpenAiClient {
            inner: Arc::new(Inner {
                transport: Arc::new(transport),
                provider: config.provider,
                api: config.api,
                url: url.into(),
                max_tokens_field,
                extra_body: config.extra_body,
            }),
        })
    }
}

impl ModelClient for OpenAiClient {
    fn stream(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        let inner = &self.inner;
        let mut body = match inner.api {
            OpenAiApi::Chat => chat_body(&request, inner.max_tokens_field),
            OpenAiApi::Responses => responses_body(&request),
        };
        if let Some(body) = body.as_object_mut() {
            body.extend(inner.extra_body.clone());
        }
        let body = serde_json::to_vec(&body)
            .map(Bytes::from)
            .map_err(|e| config_error(&format!("cannot serialise the request: {e}")));
        let url = inner.url.clone();
        let stream = match inner.api {
            OpenAiApi::Chat => inner
                .transport
                .stream(url, body, cancel, ChatDecoder::default),
            OpenAiApi::Responses => {
                inner
                    .transport
                    .stream(url, body, cancel, ResponsesDecoder::default)
            }
        };
        let model = format!("{}/{}", inner.provider, request.model);
        let provider = inner.provider.clone();
        let tools = !request.tools.is_empty();
        stream
            .map(move |item| item.map_err(|e| named(e, &model, &provider, tools)))
            .boxed()
    }
}

/// Errors that name where the user can fix them: the key of this provider, and
/// a request with tools that the server refused over them (which model cannot
/// call tools and where it was configured, not the server's words alone).
fn named(error: ApiError, model: &str, provider: &str, tools: bool) -> ApiError {
    match error {
        ApiError::Authentication { message } => ApiError::Authentication {
            message: format!(
                "{message}; provider `{provider}` takes its key from the variable its \
                 `apiKeyEnv` setting names"
            ),
        },
        ApiError::InvalidRequest {
            message,
            request_id,
        } if tools && errors::mentions_tools(&message) => ApiError::InvalidRequest {
            message: format!(
                "model `{model}` cannot call tools here (the server said: {message}). \
                 tack needs a model with tool calling: choose another model, or fix provider \
                 `{provider}` in the `providers` setting (its server may need tool calling \
                 turned on)"
            ),
            request_id,
        },
        other => other,
    }
}

fn headers(config: &OpenAiConfig) -> Result<HeaderMap, ApiError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = &config.api_key {
        let mut v = HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| config_error("invalid credential"))?;
        v.set_sensitive(true);
        headers.insert(header::AUTHORIZATION, v);
    }
    add_common_headers(&mut headers, &config.headers)?;
    Ok(headers)
}
