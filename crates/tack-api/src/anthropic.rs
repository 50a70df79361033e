//! The Anthropic Messages API over reqwest: headers, the retry loop, the idle
//! watchdog and cancellation around a [`StreamDecoder`].

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Once};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use tack_protocol::MessagesRequest;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::classify::{Classified, classify_response};
use crate::cloud::google::TokenCache;
use crate::{
    ApiError, Auth, BedrockConfig, ClientConfig, ModelClient, Platform, StreamDecoder, StreamEvent,
    VertexConfig, retry,
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
    http: reqwest::Client,
    config: ClientConfig,
    messages_url: String,
    count_tokens_url: String,
    /// Vertex's access token, shared by the clones.
    tokens: TokenCache,
}

static CRYPTO_PROVIDER: Once = Once::new();

impl AnthropicClient {
    /// Builds the client (TLS via rustls/ring, HTTP/2 when the server offers it;
    /// root certificates read on the first handshake: [`crate::tls`]).
    /// Fails only on an unusable configuration (a header value that is not valid
    /// HTTP), never on the network.
    pub fn new(config: ClientConfig) -> Result<Self, ApiError> {
        CRYPTO_PROVIDER.call_once(|| {
            // Err means another provider is installed already: fine.
            let _ = rustls::crypto::ring::default_provider().install_default();
        });
        let https = match &config.platform {
            Platform::Anthropic => config.base_url.starts_with("https:"),
            Platform::Bedrock(b) => b.endpoint().starts_with("https:"),
            Platform::Vertex(v) => v.base_url.as_ref().is_none_or(|u| u.starts_with("https:")),
        };
        let tls = crate::tls::client_config(https)
            .map_err(|e| config_error(&format!("cannot set up TLS: {e}")))?;
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .default_headers(default_headers(&config)?)
            .user_agent(concat!("tack/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.connect_timeout)
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(90))
            .build()
            .map_err(|e| config_error(&format!("cannot build the HTTP client: {}", chain(&e))))?;
        let base = config.base_url.trim_end_matches('/');
        let messages_url = format!("{base}/v1/messages");
        let count_tokens_url = format!("{base}/v1/messages/count_tokens");
        Ok(AnthropicClient {
            inner: Arc::new(Inner {
                http,
                config,
                messages_url,
                count_tokens_url,
                tokens: TokenCache::default(),
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
    /// like [`ModelClient::stream`], silently.
    /// Bedrock and Vertex have no such endpoint here: an `InvalidRequest` error.
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
        let policy = &self.inner.config.retry;
        let never = CancellationToken::new();
        let mut retries = 0;
        loop {
            let failure = match self.send(&self.inner.count_tokens_url, &body, &never).await {
                Ok(response) => {
                    let read =
                        tokio::time::timeout(self.inner.config.request_timeout, response.bytes());
                    match read.await {
                        Ok(Ok(bytes)) => {
                            #[derive(Deserialize)]
                            struct Count {
                                input_tokens: u64,
                            }
                            return serde_json::from_slice::<Count>(&bytes)
                                .map(|c| c.input_tokens)
                                .map_err(|e| ApiError::Protocol {
                                    message: format!("bad count_tokens response: {e}"),
                                });
                        }
                        Ok(Err(e)) => connection(&e),
                        Err(_) => timed_out(self.inner.config.request_timeout),
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

    /// One POST. A non-2xx answer is read and classified.
    async fn send(
        &self,
        url: &str,
        body: &Bytes,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, Classified> {
        let config = &self.inner.config;
        let inner = &self.inner;
        let request = async {
            let request = inner.http.post(url).body(body.clone());
            let platform = &config.platform;
            crate::cloud::authorize(platform, &inner.tokens, &inner.http, request, url, body)
                .await?
                .send()
                .await
                .map_err(|e| connection(&e))
        };
        let response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled()),
            r = tokio::time::timeout(config.request_timeout, request) => match r {
                Ok(Ok(response)) => response,
                Ok(Err(failure)) => return Err(failure),
                Err(_) => return Err(timed_out(config.request_timeout)),
            },
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let body = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled()),
            r = tokio::time::timeout(config.idle_timeout, response.bytes()) => match r {
                Ok(Ok(body)) => body,
                // The status is what matters; classify with what we have.
                Ok(Err(_)) | Err(_) => Bytes::new(),
            },
        };
        Err(classify_response(status, &headers, &body))
    }
}

impl ModelClient for AnthropicClient {
    fn stream(
        &self,
        mut request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        request.stream = Some(true);
        let config = &self.inner.config;
        let prepared = crate::cloud::prepare(&config.platform, &request, &config.betas)
            .unwrap_or_else(|| {
                serde_json::to_vec(&request)
                    .map(|body| (self.inner.messages_url.clone(), Bytes::from(body)))
                    .map_err(|e| config_error(&format!("cannot serialise the request: {e}")))
            });
        let (phase, url, body) = match prepared {
            Ok((url, body)) => (Phase::Send, url, body),
            Err(error) => (
                Phase::Fail(Classified {
                    error,
                    retry: false,
                }),
                String::new(),
                Bytes::new(),
            ),
        };
        let idle_timeout = self.inner.config.idle_timeout;
        let driver = Driver {
            client: self.clone(),
            url,
            body,
            cancelled: Box::pin(cancel.clone().cancelled_owned()),
            cancel,
            idle: None,
            idle_timeout,
            last_byte: Instant::now(),
            retries: 0,
            phase,
            pending: VecDeque::new(),
        };
        futures::stream::unfold(driver, |mut driver| async move {
            let item = driver.next().await?;
            Some((item, driver))
        })
        .boxed()
    }
}

/// One streamed request, across its attempts.
struct Driver {
    client: AnthropicClient,
    /// Where this request goes (on Bedrock and Vertex the model is in the path).
    url: String,
    body: Bytes,
    cancel: CancellationToken,
    /// `cancel.cancelled()`, registered once rather than per body chunk.
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    /// The idle watchdog. It is not reset per chunk (a timer-wheel operation);
    /// when it fires early it is re-armed from `last_byte`. Created on the first
    /// response (a `Sleep` needs the runtime, which `stream()` may be called outside).
    idle: Option<Pin<Box<Sleep>>>,
    idle_timeout: Duration,
    last_byte: Instant,
    /// Retries done so far.
    retries: u32,
    phase: Phase,
    /// Events ready for the consumer.
    pending: VecDeque<StreamEvent>,
}

enum Phase {
    Send,
    Wait(Duration),
    Streaming(Box<Attempt>),
    /// The attempt failed; retry or end, once `pending` is drained.
    Fail(Classified),
    Done,
}

struct Attempt {
    response: reqwest::Response,
    decoder: StreamDecoder,
    /// Events of an attempt held back until it produces content, so a retried
    /// attempt leaves no trace but the `Retry` event.
    held: VecDeque<StreamEvent>,
    committed: bool,
}

enum Read {
    Chunk(Bytes),
    Eof,
    Failed(ApiError),
}

impl Driver {
    async fn next(&mut self) -> Option<Result<StreamEvent, ApiError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                if self.cancel.is_cancelled() {
                    return self.end(ApiError::Cancelled);
                }
                return Some(Ok(event));
            }
            match std::mem::replace(&mut self.phase, Phase::Done) {
                Phase::Done => return None,
                Phase::Send => {
                    let client = &self.client;
                    match client.send(&self.url, &self.body, &self.cancel).await {
                        Ok(response) => {
                            self.last_byte = Instant::now();
                            let deadline = self.last_byte + self.idle_timeout;
                            match &mut self.idle {
                                Some(idle) => idle.as_mut().reset(deadline),
                                None => {
                                    self.idle = Some(Box::pin(tokio::time::sleep_until(deadline)))
                                }
                            }
                            self.phase = Phase::Streaming(Box::new(Attempt {
                                response,
                                decoder: match client.inner.config.platform {
                                    Platform::Bedrock(_) => StreamDecoder::event_stream(),
                                    Platform::Anthropic | Platform::Vertex(_) => {
                                        StreamDecoder::new()
                                    }
                                },
                                held: VecDeque::new(),
                                committed: false,
                            }));
                        }
                        Err(failure) => self.phase = Phase::Fail(failure),
                    }
                }
                Phase::Wait(delay) => {
                    tokio::select! {
                        biased;
                        () = &mut self.cancelled => return self.end(ApiError::Cancelled),
                        () = tokio::time::sleep(delay) => self.phase = Phase::Send,
                    }
                }
                Phase::Streaming(mut attempt) => {
                    let read = self.read(&mut attempt.response).await;
                    let out = if attempt.committed {
                        &mut self.pending
                    } else {
                        &mut attempt.held
                    };
                    let result = match read {
                        Read::Chunk(chunk) => attempt.decoder.feed(&chunk, out),
                        Read::Eof => attempt.decoder.finish(out),
                        Read::Failed(error) => Err(error),
                    };
                    if !attempt.committed && attempt.decoder.has_content() {
                        attempt.committed = true;
                        self.pending.append(&mut attempt.held);
                    }
                    self.phase = match result {
                        Err(ApiError::Cancelled) => return self.end(ApiError::Cancelled),
                        Err(error) => {
                            let retry = !attempt.committed && error.is_retryable();
                            Phase::Fail(Classified { error, retry })
                        }
                        Ok(()) if attempt.decoder.is_finished() => Phase::Done,
                        Ok(()) => Phase::Streaming(attempt),
                    };
                }
                Phase::Fail(Classified { error, retry }) => {
                    let max_retries = self.client.inner.config.retry.max_retries;
                    if !retry || self.retries >= max_retries || matches!(error, ApiError::Cancelled)
                    {
                        return self.end(error);
                    }
                    self.retries += 1;
                    let policy = &self.client.inner.config.retry;
                    let delay = retry::delay(policy, self.retries, error.retry_after());
                    self.phase = Phase::Wait(delay);
                    return Some(Ok(StreamEvent::Retry {
                        attempt: self.retries,
                        max_retries,
                        delay,
                        error,
                    }));
                }
            }
        }
    }

    /// The next body chunk, under the idle watchdog and the cancellation token.
    async fn read(&mut self, response: &mut reqwest::Response) -> Read {
        let idle = self.idle.get_or_insert_with(|| {
            Box::pin(tokio::time::sleep_until(self.last_byte + self.idle_timeout))
        });
        loop {
            tokio::select! {
                biased;
                () = &mut self.cancelled => return Read::Failed(ApiError::Cancelled),
                r = response.chunk() => {
                    self.last_byte = Instant::now();
                    return match r {
                        Ok(Some(chunk)) => Read::Chunk(chunk),
                        Ok(None) => Read::Eof,
                        Err(e) => Read::Failed(connection(&e).error),
                    };
                }
                () = idle.as_mut() => {
                    let deadline = self.last_byte + self.idle_timeout;
                    if Instant::now() >= deadline {
                        return Read::Failed(ApiError::IdleTimeout(self.idle_timeout));
                    }
                    idle.as_mut().reset(deadline);
                }
            }
        }
    }

    fn end(&mut self, error: ApiError) -> Option<Result<StreamEvent, ApiError>> {
        self.phase = Phase::Done;
        self.pending.clear();
        Some(Err(error))
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
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    for (name, v) in &config.extra_headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| config_error(&format!("invalid custom header name `{name}`")))?;
        headers.insert(name, value(v, "custom header value")?);
    }
    Ok(headers)
}

fn config_error(message: &str) -> ApiError {
    ApiError::InvalidRequest {
        message: message.to_owned(),
        request_id: None,
    }
}

fn cancelled() -> Classified {
    Classified {
        error: ApiError::Cancelled,
        retry: false,
    }
}

fn timed_out(after: Duration) -> Classified {
    Classified {
        error: ApiError::Connection {
            message: format!("no response within {after:?}"),
        },
        retry: true,
    }
}

fn connection(e: &reqwest::Error) -> Classified {
    Classified {
        error: ApiError::Connection { message: chain(e) },
        retry: true,
    }
}

/// An error with its sources: reqwest's own message rarely says what went wrong.
fn chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = s.source();
    }
    message
}
