//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp 3 no longer
//! ships a client for: an rmcp [`Transport`] over reqwest, so the JSON-RPC
//! layer stays rmcp's.
//!
//! The client GETs the server's URL as an event stream. The first `endpoint`
//! event names (relative to that URL) where to POST client messages; every
//! `message` event carries one server message. POSTs are answered `202
//! Accepted`; the answers to requests arrive on the stream.
//!
//! Nothing the server sends is held whole: the stream is framed by
//! tack-api's SSE framer (an event larger than 16 MiB ends the connection)
//! and a failed POST's body is read to 64 KiB.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tack_api::body::{ERROR_BODY_LIMIT, read_capped};
use tack_api::sse::SseFramer;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::config::RemoteConfig;

/// Why the SSE connection or a POST failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseError {
    #[error("the server answered 401 Unauthorized")]
    Unauthorized,
    #[error("the server answered HTTP {status}{}", if body.is_empty() { String::new() } else { format!(": {body}") })]
    Status { status: u16, body: String },
    #[error("the server answered with content type `{0}`, not an event stream")]
    NotAnEventStream(String),
    #[error("the event stream ended before the server sent its `endpoint` event")]
    NoEndpoint,
    /// An event past the framer's limit.
    #[error("the event stream: {0}")]
    Stream(tack_api::ApiError),
    #[error("the `endpoint` event names `{0}`, which is not a valid URL")]
    BadEndpoint(String),
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Http(#[from] reqwest::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// An open legacy SSE connection.
pub(crate) struct LegacySse {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HashMap<HeaderName, HeaderValue>,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: JoinHandle<()>,
}

impl LegacySse {
    /// Opens the event stream and waits for the `endpoint` event.
    pub(crate) async fn connect(config: &RemoteConfig) -> Result<LegacySse, SseError> {
        let client = super::http::client().map_err(SseError::Config)?;
        let headers = super::http::header_map(&config.headers).map_err(SseError::Config)?;
        let url = reqwest::Url::parse(&config.url)
            .map_err(|e| SseError::Config(format!("`{}` is not a valid URL: {e}", config.url)))?;
        let mut request = client
            .get(url.clone())
            .header(http::header::ACCEPT, "text/event-stream");
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        let response = request.send().await?;
        check_status(response.status(), String::new)?;
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        if !content_type.starts_with("text/event-stream") {
            return Err(SseError::NotAnEventStream(content_type));
        }
        let mut events = Events {
            body: response.bytes_stream().boxed(),
            framer: SseFramer::default(),
            done: false,
        };
        let endpoint = loop {
            match events.next().await {
                Some(Ok((name, data))) if name == "endpoint" => {
                    break url
                        .join(data.trim())
                        .map_err(|_| SseError::BadEndpoint(data))?;
                }
                // Early messages before the endpoint.
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Err(SseError::NoEndpoint),
            }
        };
        let (tx, incoming) = mpsc::channel(256);
        let reader = tokio::spawn(async move {
            while let Some(Ok((name, data))) = events.next().await {
                if name != "message" {
                    continue;
                }
                // A message that does not parse is skipped: the request it
                // answers times out with a clear error instead.
                if let Ok(message) = serde_json::from_str::<ServerJsonRpcMessage>(&data)
                    && tx.send(message).await.is_err()
                {
                    return;
                }
            }
            // Dropping `tx` ends `receive`, which rmcp reads as the transport closing.
        });
        Ok(LegacySse {
            client,
            endpoint,
            headers,
            incoming,
            reader,
        })
    }
}

/// The server's events, framed as they arrive.
struct Events {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    framer: SseFramer,
    done: bool,
}

impl Events {
    /// The next event's name (`message` when unnamed) and data; `None` at
    /// the stream's end, and after an error.
    async fn next(&mut self) -> Option<Result<(String, String), SseError>> {
        loop {
            if let Some(frame) = self.framer.next_frame() {
                let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                return Some(Ok((text(frame.event), text(frame.data))));
            }
            if self.done {
                return None;
            }
            let failed = match self.body.next().await {
                Some(Ok(chunk)) => self.framer.push(&chunk).err().map(SseError::Stream),
                Some(Err(e)) => Some(SseError::Http(e)),
                None => {
                    self.framer.finish();
                    self.done = true;
                    None
                }
            };
            if let Some(e) = failed {
                self.done = true;
                return Some(Err(e));
            }
        }
    }
}

fn check_status(
    status: reqwest::StatusCode,
    body: impl FnOnce() -> String,
) -> Result<(), SseError> {
    if status == reqwest::StatusCode::UNAUTHORIZED {
        return Err(SseError::Unauthorized);
    }
    if !status.is_success() {
        return Err(SseError::Status {
            status: status.as_u16(),
            body: body(),
        });
    }
    Ok(())
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Transport<RoleClient> for LegacySse {
    type Error = SseError;

    fn name() -> Cow<'static, str> {
        "legacy-sse".into()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let mut request = self
            .client
            .post(self.endpoint.clone())
            .timeout(Duration::from_secs(60));
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        async move {
            let body = serde_json::to_vec(&item)?;
            let mut response = request
                .header(http::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await?;
            let status = response.status();
            if status.is_success() {
                return Ok(());
            }
            let read = read_capped(&mut response, ERROR_BODY_LIMIT).await;
            let text = read.map_or_else(
                |_| String::new(),
                |c| String::from_utf8_lossy(&c.bytes).into_owned(),
            );
            check_status(status, || text.chars().take(500).collect())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        self.incoming.close();
        Ok(())
    }
}
