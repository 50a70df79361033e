//! The Anthropic Messages API: headers, URLs and `count_tokens`; the streamed
//! request itself is the shared [`Transport`]'s around a [`StreamDecoder`].

use std::sync::Arc;

use bytes::Bytes;
use futures::stream::BoxStream;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde::Deserialize;
use tack_protocol::{ContentBlock, MessagesRequest};
use tokio_util::sync::CancellationToken;

use crate::ModelClient;
use crate::assemble::StreamDecoder;
use crate::body::{ERROR_BODY_LIMIT, read_capped, size};
use crate::classify::{Classified, classify_response};
use crate::cloud::Platform;
use crate::cloud::bedrock::BedrockConfig;
use crate::cloud::google::TokenCache;
use crate::cloud::vertex::VertexConfig;
use crate::config::{Auth, ClientConfig};
use crate::error::ApiError;
use crate::event::StreamEvent;
use crate::retry;
use crate::transport::{
    Authorize, Limits, Transport, add_common_headers, config_error, connection, timed_out,
};

/// The HTTP client for the Anthropic API (or anything speaking it at
/// `base_url`). Cheap to clone: clones share one connection pool, so build one
/// per process.
#[derive(Clone, Debug)]
pub struct AnthropicClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    transport: Arc<Transport>,
    config: ClientConfig,
    messages_url: Arc<str>,
    count_tokens_url: String,
}

impl AnthropicClient {
    /// Builds the client (TLS via rustls/ring, HTTP/2 when the server offers it;
    /// root certificates read on the first handshake: [`crate::tls`]).
    /// Fails only on an unusable configuration (a header value that is not valid
    /// HTTP), never on the network.
    pub fn new(config: ClientConfig) -> Result<Self, ApiError> {
        let limits = Limits {
            retry: config.retry.clone(),
            idle_timeout: config.idle_timeout,
            request_timeout: config.request_timeout,
            connect_timeout: config.connect_timeout,
        };
        let https = match &config.platform {
            Platform::Anthropic => config.base_url.starts_with("https:"),
            Platform::Bedrock(b) => b.endpoint().starts_with("https:"),
            Platform::Vertex(v) => v.base_url.as_ref().is_none_or(|u| u.starts_with("https:")),
        };
        let mut transport =
            Transport::new(https, default_headers(&config)?, limits, classify_response)?;
        if config.platform != Platform::Anthropic {
            transport = transport.authorized_by(Arc::new(PlatformAuth {
                platform: config.platform.clone(),
                tokens: TokenCache::default(),
            }));
        }
        let base = config.base_url.trim_end_matches('/');
        let messages_url = format!("{base}/v1/messages").into();
        let count_tokens_url = format!("{base}/v1/messages/count_tokens");
        Ok(AnthropicClient {
            inner: Arc::new(Inner {
                transport: Arc::new(transport),
                config,
                messages_url,
                count_tokens_url,
            }),
        })
    }

    /// A client for Anthropic models on Amazon Bedrock (default timeouts and retries).
    pub fn bedrock(bedrock: BedrockConfig) -> Result<Self, ApiError> {
        AnthropicClient::new(ClientConfig {
            platform: Platform::Bedrock(bedrock),
            ..ClientConfig::default()
        })
    }

    /// A client for Anthropic models on Google Vertex AI (default timeouts and retries).
    pub fn vertex(vertex: VertexConfig) -> Result<Self, ApiError> {
        AnthropicClient::new(ClientConfig {
            platform: Platform::Vertex(vertex),
            ..ClientConfig::default()
        })
    }

    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// The exact input token count of `request` under its model's tokenizer
    /// (`POST /v1/messages/count_tokens`; free, separately rate limited). Retries
    /// like [`ModelClient::stream`], silently. Bedrock and Vertex have no such
    /// endpoint here: an `InvalidRequest` error.
    pub async fn count_tokens(&self, request: &MessagesRequest) -> Result<u64, ApiError> {
        if self.inner.config.platform != Platform::Anthropic {
            return Err(config_error(&format!(
                "token counting is not available on {}",
                self.inner.config.platform.name()
            )));
        }
        const FIELDS: &[&str] = &[
            "model",
            "messages",
            "system",
            "tools",
            "tool_choice",
            "thinking",
            "cache_control",
            "output_config",
            "context_management",
            "mcp_servers",
        ];
        let mut body = match serde_json::to_value(request) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) | Err(_) => return Err(config_error("request does not serialise to an object")),
        };
        body.retain(|k, _| FIELDS.contains(&k.as_str()));
        let body = Bytes::from(serde_json::Value::Object(body).to_string());
        let transport = &self.inner.transport;
        let policy = &transport.retry;
        let never = CancellationToken::new();
        let mut retries = 0;
        loop {
            let failure = match transport
                .send(&self.inner.count_tokens_url, &body, &never)
                .await
            {
                Ok(mut response) => {
                    let read = read_capped(&mut response, ERROR_BODY_LIMIT);
                    match tokio::time::timeout(transport.request_timeout, read).await {
                        Ok(Ok(body)) => {
                            #[derive(Deserialize)]
                            struct Count {
                                input_tokens: u64,
                            }
                            if body.truncated {
                                return Err(ApiError::Protocol {
                                    message: format!(
                                        "count_tokens response larger than {}",
                                        size(ERROR_BODY_LIMIT)
                                    ),
                                });
                            }
                            return serde_json::from_slice::<Count>(&body.bytes)
                                .map(|c| c.input_tokens)
                                .map_err(|e| ApiError::Protocol {
                                    message: format!("bad count_tokens response: {e}"),
                                });
                        }
                        Ok(Err(e)) => connection(&e),
                        Err(_) => timed_out(transport.request_timeout),
                    }
                }
                Err(failure) => failure,
            };
            if !failure.retry || retries >= policy.max_retries {
                return Err(failure.error);
            }
            retries += 1;
            tokio::time::sleep(retry::delay(policy, retries, failure.error.retry_after())).await;
        }
    }
}

impl ModelClient for AnthropicClient {
    fn stream(
        &self,
        mut request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        request.stream = Some(true);
        // Reasoning another provider streamed (kept as thinking without a
        // signature) cannot be verified by this API: it is not sent.
        for message in &mut request.messages {
            message.content.retain(
                |b| !matches!(b, ContentBlock::Thinking { signature, .. } if signature.is_empty()),
            );
        }
        let config = &self.inner.config;
        let prepared = crate::cloud::prepare(&config.platform, &request, &config.betas)
            .map(|p| p.map(|(url, body)| (Arc::<str>::from(url), body)))
            .unwrap_or_else(|| {
                serde_json::to_vec(&request)
                    .map(|body| (self.inner.messages_url.clone(), Bytes::from(body)))
                    .map_err(|e| config_error(&format!("cannot serialise the request: {e}")))
            });
        let (url, body) = match prepared {
            Ok((url, body)) => (url, Ok(body)),
            Err(error) => (self.inner.messages_url.clone(), Err(error)),
        };
        let transport = &self.inner.transport;
        // Bedrock's body is event-stream framed; the events are the same.
        let decoder: fn() -> StreamDecoder = match config.platform {
            Platform::Bedrock(_) => StreamDecoder::event_stream,
            Platform::Anthropic | Platform::Vertex(_) => StreamDecoder::new,
        };
        transport.stream(url, body, cancel, decoder)
    }
}

/// Bedrock's and Vertex's authentication of each request (SigV4, a bearer
/// key, a Google access token cached across requests).
#[derive(Debug)]
struct PlatformAuth {
    platform: Platform,
    tokens: TokenCache,
}

impl Authorize for PlatformAuth {
    fn authorize<'a>(
        &'a self,
        http: &'a reqwest::Client,
        request: reqwest::RequestBuilder,
        url: &'a str,
        body: &'a [u8],
    ) -> futures::future::BoxFuture<'a, Result<reqwest::RequestBuilder, Classified>> {
        Box::pin(crate::cloud::authorize(
            &self.platform,
            &self.tokens,
            http,
            request,
            url,
            body,
        ))
    }
}

fn default_headers(config: &ClientConfig) -> Result<HeaderMap, ApiError> {
    let mut headers = HeaderMap::new();
    let value = |v: &str, what: &str| {
        let mut v =
            HeaderValue::from_str(v).map_err(|_| config_error(&format!("invalid {what}")))?;
        v.set_sensitive(what == "credential");
        Ok::<_, ApiError>(v)
    };
    let first_party = config.platform == Platform::Anthropic;
    match &config.auth {
        _ if !first_party => {}
        Auth::ApiKey(key) => {
            headers.insert("x-api-key", value(key, "credential")?);
        }
        Auth::Bearer(token) => {
            headers.insert(
                header::AUTHORIZATION,
                value(&format!("Bearer {token}"), "credential")?,
            );
        }
        Auth::Both(secret) => {
            headers.insert("x-api-key", value(secret, "credential")?);
            headers.insert(
                header::AUTHORIZATION,
                value(&format!("Bearer {secret}"), "credential")?,
            );
        }
        Auth::None => {}
    }
    if first_party {
        headers.insert(
            "anthropic-version",
            value(&config.anthropic_version, "anthropic-version")?,
        );
    }
    // Bedrock takes the betas in the body.
    if !config.betas.is_empty() && !matches!(config.platform, Platform::Bedrock(_)) {
        headers.insert(
            "anthropic-beta",
            value(&config.betas.join(","), "anthropic-beta")?,
        );
    }
    add_common_headers(&mut headers, &config.extra_headers)?;
    Ok(headers)
}
