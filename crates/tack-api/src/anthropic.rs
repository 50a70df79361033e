//! The Anthropic Messages API: headers, URLs and `count_tokens`; the streamed
//! request itself is the shared [`Transport`]'s around a [`StreamDecoder`].

use std::sync::Arc;

use bytes::Bytes;
use futures::stream::BoxStream;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde::Deserialize;
use tack_protocol::{ContentBlock, MessagesRequest};
use tokio_util::sync::CancellationToken;

use crate::classify::classify_response;
use crate::transport::{
    Limits, Transport, add_common_headers, config_error, connection, timed_out,
};
use crate::{ApiError, Auth, ClientConfig, ModelClient, StreamDecoder, StreamEvent, retry};

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
        let https = config.base_url.starts_with("https:");
        let transport =
            Transport::new(https, default_headers(&config)?, limits, classify_response)?;
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

    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// The exact input token count of `request` under its model's tokenizer
    /// (`POST /v1/messages/count_tokens`; free, separately rate limited). Retries
    /// like [`ModelClient::stream`], silently.
    pub async fn count_tokens(&self, request: &MessagesRequest) -> Result<u64, ApiError> {
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
                Ok(response) => {
                    let read = tokio::time::timeout(transport.request_timeout, response.bytes());
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
        let body = serde_json::to_vec(&request)
            .map(Bytes::from)
            .map_err(|e| config_error(&format!("cannot serialise the request: {e}")));
        self.inner
            .transport
            .stream::<StreamDecoder>(self.inner.messages_url.clone(), body, cancel)
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
    match &config.auth {
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
    headers.insert(
        "anthropic-version",
        value(&config.anthropic_version, "anthropic-version")?,
    );
    if !config.betas.is_empty() {
        headers.insert(
            "anthropic-beta",
            value(&config.betas.join(","), "anthropic-beta")?,
        );
    }
    add_common_headers(&mut headers, &config.extra_headers)?;
    Ok(headers)
}
