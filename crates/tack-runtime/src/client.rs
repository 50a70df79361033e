//! The model client, built on a blocking thread while start-up goes on.
//!
//! Building the HTTPS client reads the system's root certificates (every file in
//! `/etc/ssl/certs` on Debian), a few milliseconds that nothing else needs: the
//! transcript, settings and git context do not. Started first and awaited by the
//! first request, that work overlaps the rest of start-up instead of preceding it.

use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt;
use futures::stream::{self, BoxStream, StreamExt};
use tack_api::{AnthropicClient, ApiError, ClientConfig, ModelClient, StreamEvent};
use tack_protocol::MessagesRequest;
use tokio::sync::OnceCell;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

type Built = Result<AnthropicClient, ApiError>;

pub struct DeferredClient {
    inner: Arc<Inner>,
}

struct Inner {
    client: OnceCell<Built>,
    pending: Mutex<Option<Pending>>,
}

/// The client being built, or the settings to build it from on first use.
enum Pending {
    Building(JoinHandle<Built>),
    Later(Box<ClientConfig>),
}

impl DeferredClient {
    /// Starts building the client; must be called within a tokio runtime.
    pub fn spawn(config: ClientConfig) -> DeferredClient {
        let handle = tokio::task::spawn_blocking(move || AnthropicClient::new(config));
        DeferredClient::with(Pending::Building(handle))
    }

    /// Builds the client only when the first request needs it (a client a
    /// session may never use, such as auto mode's classifier).
    pub fn on_first_use(config: ClientConfig) -> DeferredClient {
        DeferredClient::with(Pending::Later(Box::new(config)))
    }

    fn with(pending: Pending) -> DeferredClient {
        DeferredClient {
            inner: Arc::new(Inner {
                client: OnceCell::new(),
                pending: Mutex::new(Some(pending)),
            }),
        }
    }
}

impl Inner {
    async fn get(&self) -> Built {
        self.client
            .get_or_init(|| async {
                let pending = self
                    .pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                let handle = match pending {
                    Some(Pending::Building(handle)) => Some(handle),
                    Some(Pending::Later(config)) => Some(tokio::task::spawn_blocking(move || {
                        AnthropicClient::new(*config)
                    })),
                    None => None,
                };
                match handle {
                    Some(handle) => handle.await.unwrap_or_else(|e| {
                        Err(ApiError::Connection {
                            message: format!("setting up the HTTP client failed: {e}"),
                        })
                    }),
                    // Unreachable: the cell is initialised by whoever took the handle.
                    None => Err(ApiError::Connection {
                        message: "the HTTP client is not available".into(),
                    }),
                }
            })
            .await
            .clone()
    }
}

impl ModelClient for DeferredClient {
    fn stream(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        let inner = self.inner.clone();
        async move {
            match inner.get().await {
                Ok(client) => client.stream(request, cancel),
                Err(error) => stream::iter([Err(error)]).boxed(),
            }
        }
        .flatten_stream()
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::Message;
    use tack_testkit::{MockServer, Reply, Script};

    /// The text of `client`'s answer to one request.
    async fn answer(client: &DeferredClient) -> Vec<tack_protocol::ContentBlock> {
        let request = MessagesRequest::new("m", 10, vec![Message::user_text("hi")]);
        let events: Vec<_> = client
            .stream(request, CancellationToken::new())
            .collect()
            .await;
        let Some(Ok(StreamEvent::MessageDone(done))) = events.last() else {
            panic!("no message: {events:?}");
        };
        done.content.clone()
    }

    async fn server(replies: &[&str]) -> (MockServer, ClientConfig) {
        let server = MockServer::start(Script::new(replies.iter().map(|r| Reply::text(r))))
            .await
            .unwrap();
        let config = ClientConfig {
            base_url: server.base_url(),
            ..ClientConfig::default()
        };
        (server, config)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn streams_through_the_client_once_it_is_built() {
        let (server, config) = server(&["a", "b"]).await;
        let client = DeferredClient::spawn(config);
        for expected in ["a", "b"] {
            assert_eq!(
                answer(&client).await,
                vec![tack_protocol::ContentBlock::text(expected)]
            );
        }
        assert_eq!(server.requests().len(), 2);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_client_built_on_first_use_serves_requests() {
        let (server, config) = server(&["late"]).await;
        let client = DeferredClient::on_first_use(config);
        assert_eq!(
            answer(&client).await,
            vec![tack_protocol::ContentBlock::text("late")]
        );
        assert_eq!(server.requests().len(), 1);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_bad_config_fails_every_request_with_the_error() {
        let config = ClientConfig {
            extra_headers: vec![("bad header".into(), "x".into())],
            ..ClientConfig::default()
        };
        let client = DeferredClient::spawn(config);
        for _ in 0..2 {
            let request = MessagesRequest::new("m", 10, vec![Message::user_text("hi")]);
            let events: Vec<_> = client
                .stream(request, CancellationToken::new())
                .collect()
                .await;
            assert!(matches!(events.as_slice(), [Err(_)]), "{events:?}");
        }
    }
}
