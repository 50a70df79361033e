//! What every HTTP model client shares: the reqwest client (TLS, HTTP/2,
//! TCP_NODELAY), one POST with its error classified, and the streamed request
//! across attempts — the retry loop, the idle watchdog and cancellation around a
//! wire-format decoder ([`Decode`]). The Anthropic and OpenAI clients differ only
//! in headers, URL, error bodies and the decoder.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Once};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::assemble::StreamDecoder;
use crate::body::{Capped, ERROR_BODY_LIMIT, read_capped, size};
use crate::classify::Classified;
use crate::error::ApiError;
use crate::event::StreamEvent;
use crate::retry::{self, RetryPolicy};
use tack_sys::error_text::chain;

/// A response body's bytes → [`StreamEvent`]s, one per attempt.
pub(crate) trait Decode: Send + 'static {
    /// Consumes `chunk`, appending every event it completes to `out`.
    fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError>;
    /// End of the byte stream: an error unless the message ended.
    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError>;
    /// Whether content has arrived (from then on a failure is not retried).
    fn has_content(&self) -> bool;
    /// Whether the message ended.
    fn is_finished(&self) -> bool;
}

impl Decode for StreamDecoder {
    fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        StreamDecoder::feed(self, chunk, out)
    }
    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        StreamDecoder::finish(self, out)
    }
    fn has_content(&self) -> bool {
        StreamDecoder::has_content(self)
    }
    fn is_finished(&self) -> bool {
        StreamDecoder::is_finished(self)
    }
}

/// Authentication added to each request just before it is sent (Bedrock's
/// SigV4 signs the body; Vertex's token may need refreshing first).
pub(crate) trait Authorize: Send + Sync + std::fmt::Debug {
    fn authorize<'a>(
        &'a self,
        http: &'a reqwest::Client,
        request: reqwest::RequestBuilder,
        url: &'a str,
        body: &'a [u8],
    ) -> futures::future::BoxFuture<'a, Result<reqwest::RequestBuilder, Classified>>;
}

/// A non-2xx answer (status, headers, body) → the error and whether to retry.
pub(crate) type Classifier = fn(u16, &HeaderMap, &[u8]) -> Classified;

/// The HTTP side of a model client. Shared (in an `Arc`) by its streams.
#[derive(Debug)]
pub(crate) struct Transport {
    http: reqwest::Client,
    pub(crate) retry: RetryPolicy,
    idle_timeout: Duration,
    pub(crate) request_timeout: Duration,
    classify: Classifier,
    authorize: Option<Arc<dyn Authorize>>,
}

static CRYPTO_PROVIDER: Once = Once::new();

/// Timeouts and retries of a transport.
pub(crate) struct Limits {
    pub retry: RetryPolicy,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
    pub connect_timeout: Duration,
}

impl Transport {
    /// Builds the reqwest client (TLS via rustls/ring, HTTP/2 when the server
    /// offers it; root certificates read on the first handshake: [`crate::tls`]).
    /// Fails only on an unusable configuration, never on the network.
    pub(crate) fn new(
        https: bool,
        headers: HeaderMap,
        limits: Limits,
        classify: Classifier,
    ) -> Result<Transport, ApiError> {
        CRYPTO_PROVIDER.call_once(|| {
            // Err means another provider is installed already: fine.
            let _ = rustls::crypto::ring::default_provider().install_default();
        });
        let tls = crate::tls::client_config(https)
            .map_err(|e| config_error(&format!("cannot set up TLS: {e}")))?;
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .default_headers(headers)
            .user_agent(concat!("tack/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(limits.connect_timeout)
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(90))
            .build()
            .map_err(|e| config_error(&format!("cannot build the HTTP client: {}", chain(&e))))?;
        Ok(Transport {
            http,
            retry: limits.retry,
            idle_timeout: limits.idle_timeout,
            request_timeout: limits.request_timeout,
            classify,
            authorize: None,
        })
    }

    /// Each request is authorized by `authorize` before it is sent.
    pub(crate) fn authorized_by(mut self, authorize: Arc<dyn Authorize>) -> Transport {
        self.authorize = Some(authorize);
        self
    }

    /// One POST. A non-2xx answer is read and classified.
    pub(crate) async fn send(
        &self,
        url: &str,
        body: &Bytes,
        cancel: &CancellationToken,
    ) -> Result<reqwest::Response, Classified> {
        let request = async {
            let mut request = self.http.post(url).body(body.clone());
            if let Some(authorize) = &self.authorize {
                request = authorize.authorize(&self.http, request, url, body).await?;
            }
            request.send().await.map_err(|e| connection(&e))
        };
        let mut response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(cancelled()),
            r = tokio::time::timeout(self.request_timeout, request) => match r {
                Ok(Ok(response)) => response,
                Ok(Err(failure)) => return Err(failure),
                Err(_) => return Err(timed_out(self.request_timeout)),
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
            r = tokio::time::timeout(self.idle_timeout, read_capped(&mut response, ERROR_BODY_LIMIT)) => match r {
                Ok(Ok(body)) => body,
                // The status is what matters; classify with what we have.
                Ok(Err(_)) | Err(_) => Capped { bytes: Vec::new(), truncated: false },
            },
        };
        let mut classified = (self.classify)(status, &headers, &body.bytes);
        if body.truncated
            && let Some(message) = classified.error.message_mut()
        {
            message.push_str(&format!(
                " (the body was cut at {})",
                size(ERROR_BODY_LIMIT)
            ));
        }
        Err(classified)
    }

    /// Streams the answer to `body` POSTed to `url`, decoded by a fresh decoder
    /// (`new_decoder()`) per attempt. `body` is the request, or why it could not be built.
    pub(crate) fn stream<D: Decode>(
        self: &Arc<Self>,
        url: Arc<str>,
        body: Result<Bytes, ApiError>,
        cancel: CancellationToken,
        new_decoder: fn() -> D,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        let (phase, body) = match body {
            Ok(body) => (Phase::Send, body),
            Err(error) => (
                Phase::Fail(Classified {
                    error,
                    retry: false,
                }),
                Bytes::new(),
            ),
        };
        let driver = Driver::<D> {
            transport: self.clone(),
            url,
            body,
            cancelled: Box::pin(cancel.clone().cancelled_owned()),
            cancel,
            idle: None,
            last_byte: Instant::now(),
            retries: 0,
            phase,
            pending: VecDeque::new(),
            new_decoder,
        };
        futures::stream::unfold(driver, |mut driver| async move {
            let item = driver.next().await?;
            Some((item, driver))
        })
        .boxed()
    }
}

/// One streamed request, across its attempts.
struct Driver<D> {
    transport: Arc<Transport>,
    /// A decoder for each attempt.
    new_decoder: fn() -> D,
    url: Arc<str>,
    body: Bytes,
    cancel: CancellationToken,
    /// `cancel.cancelled()`, registered once rather than per body chunk.
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    /// The idle watchdog. It is not reset per chunk (a timer-wheel operation);
    /// when it fires early it is re-armed from `last_byte`. Created on the first
    /// response (a `Sleep` needs the runtime, which `stream()` may be called outside).
    idle: Option<Pin<Box<Sleep>>>,
    last_byte: Instant,
    /// Retries done so far.
    retries: u32,
    phase: Phase<D>,
    /// Events ready for the consumer.
    pending: VecDeque<StreamEvent>,
}

enum Phase<D> {
    Send,
    Wait(Duration),
    Streaming(Box<Attempt<D>>),
    /// The attempt failed; retry or end, once `pending` is drained.
    Fail(Classified),
    Done,
}

struct Attempt<D> {
    response: reqwest::Response,
    decoder: D,
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

impl<D: Decode> Driver<D> {
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
                    let sent = self.transport.send(&self.url, &self.body, &self.cancel);
                    match sent.await {
                        Ok(response) => {
                            self.last_byte = Instant::now();
                            let deadline = self.last_byte + self.transport.idle_timeout;
                            match &mut self.idle {
                                Some(idle) => idle.as_mut().reset(deadline),
                                None => {
                                    self.idle = Some(Box::pin(tokio::time::sleep_until(deadline)))
                                }
                            }
                            // Held with the attempt's events: a retried
                            // attempt's id is never seen.
                            let held = request_id(response.headers())
                                .map(StreamEvent::RequestId)
                                .into_iter()
                                .collect();
                            self.phase = Phase::Streaming(Box::new(Attempt {
                                response,
                                decoder: (self.new_decoder)(),
                                held,
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
                Phase::Streaming(attempt) => self.phase = self.stream_chunk(attempt).await,
                Phase::Fail(Classified { error, retry }) => {
                    let policy = &self.transport.retry;
                    let max_retries = policy.max_retries;
                    if !retry || self.retries >= max_retries || matches!(error, ApiError::Cancelled)
                    {
                        return self.end(error);
                    }
                    self.retries += 1;
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

    /// Reads and decodes one body chunk; the next phase.
    async fn stream_chunk(&mut self, mut attempt: Box<Attempt<D>>) -> Phase<D> {
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
        match result {
            Err(ApiError::Cancelled) => {
                self.pending.clear();
                Phase::Fail(Classified {
                    error: ApiError::Cancelled,
                    retry: false,
                })
            }
            Err(error) => {
                let retry = !attempt.committed && error.is_retryable();
                Phase::Fail(Classified { error, retry })
            }
            Ok(()) if attempt.decoder.is_finished() => Phase::Done,
            Ok(()) => Phase::Streaming(attempt),
        }
    }

    /// The next body chunk, under the idle watchdog and the cancellation token.
    async fn read(&mut self, response: &mut reqwest::Response) -> Read {
        let idle_timeout = self.transport.idle_timeout;
        let idle = self.idle.get_or_insert_with(|| {
            Box::pin(tokio::time::sleep_until(self.last_byte + idle_timeout))
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
                    let deadline = self.last_byte + idle_timeout;
                    if Instant::now() >= deadline {
                        return Read::Failed(ApiError::IdleTimeout(idle_timeout));
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

/// A response's request id: Anthropic's `request-id`, else the
/// `x-request-id` that OpenAI-compatible servers send.
fn request_id(headers: &HeaderMap) -> Option<String> {
    ["request-id", "x-request-id"]
        .iter()
        .find_map(|name| crate::classify::header(headers, name))
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

/// Adds the JSON + SSE content headers and the user's `extra` headers
/// (configuration errors for names or values that are not valid HTTP).
pub(crate) fn add_common_headers(
    headers: &mut HeaderMap,
    extra: &[(String, String)],
) -> Result<(), ApiError> {
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    for (name, v) in extra {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| config_error(&format!("invalid custom header name `{name}`")))?;
        let v = HeaderValue::from_str(v)
            .map_err(|_| config_error(&format!("invalid value of header `{name}`")))?;
        headers.insert(name, v);
    }
    Ok(())
}

/// An error in the client's own configuration (reported as an invalid request).
pub(crate) fn config_error(message: &str) -> ApiError {
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

pub(crate) fn timed_out(after: Duration) -> Classified {
    Classified {
        error: ApiError::Connection {
            message: format!("no response within {after:?}"),
        },
        retry: true,
    }
}

pub(crate) fn connection(e: &reqwest::Error) -> Classified {
    Classified {
        error: ApiError::Connection { message: chain(e) },
        retry: true,
    }
}
