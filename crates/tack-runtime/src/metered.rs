//! The model client of side requests (WebFetch's small-model call, WebSearch's
//! search request): each finished response's usage goes into the session's
//! [`UsageLedger`], so their cost is in the session's totals, `modelUsage`
//! and budget like the loop's own requests.

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use futures::stream::BoxStream;
use tack_api::{ApiError, ModelClient, StreamEvent};
use tack_core::session::UsageLedger;
use tack_protocol::MessagesRequest;
use tokio_util::sync::CancellationToken;

pub(crate) struct MeteredClient {
    inner: Arc<dyn ModelClient>,
    ledger: UsageLedger,
}

impl MeteredClient {
    pub(crate) fn new(inner: Arc<dyn ModelClient>, ledger: UsageLedger) -> MeteredClient {
        MeteredClient { inner, ledger }
    }
}

impl ModelClient for MeteredClient {
    fn stream(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        let ledger = self.ledger.clone();
        let started = Instant::now();
        self.inner
            .stream(request, cancel)
            .inspect(move |event| {
                if let Ok(StreamEvent::MessageDone(message)) = event {
                    ledger.record(&message.model, &message.usage, started.elapsed());
                }
            })
            .boxed()
    }
}
