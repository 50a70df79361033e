//! `QueryDeps`: what the loop calls that tests want to replace.
//!
//! # The model
//! `query()` never talks to HTTP, compaction or an id generator directly; it goes
//! through one `Arc<dyn QueryDeps>` given in [`crate::query::QueryParams`]. Loop
//! tests implement [`QueryDeps::call_model`] with a scripted stream and keep the
//! defaults for the rest; production uses [`ProductionDeps`] around the Anthropic
//! client. (Seed 004: "tests can inject fakes directly instead of spyOn-per-module".)
//!
//! The loop pulls the stream returned by `call_model` to its end (or until the
//! cancellation token fires, when it drops it), and calls the other methods at most
//! once per iteration, in the order of the compaction tiers (`compact/`).
//!
//! The summarisation call of a compaction (`autocompact` in the seeds' deps, also
//! used by reactive and manual compaction) is [`QueryDeps::summarize`]; its
//! default sends the request through [`QueryDeps::call_model`], so a scripted
//! fake model answers summaries the same way it answers turns, and the testkit
//! server records them.

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use tack_api::{ApiError, ModelClient, StreamEvent};
use tack_protocol::{Message, MessagesRequest};
use tokio_util::sync::CancellationToken;

use crate::compact::{
    CompactDeps, CompactError, MicrocompactConfig, MicrocompactOutcome, extract_summary,
    microcompact_if_needed,
};

/// The injectable dependencies of the loop; see the module docs.
pub trait QueryDeps: Send + Sync {
    /// Streams one model response for `request` (step 11). Must end soon after
    /// `cancel` fires.
    fn call_model(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>>;

    /// Step 7: tool result clearing, no model call.
    fn microcompact(
        &self,
        messages: Vec<Message>,
        config: MicrocompactConfig,
    ) -> BoxFuture<'_, MicrocompactOutcome> {
        Box::pin(std::future::ready(microcompact_if_needed(
            messages, &config,
        )))
    }

    /// Step 9 (and reactive / manual compaction): sends the summarisation
    /// `request` and returns the summary text (inside `<summary>` if tagged).
    /// The default streams it through [`QueryDeps::call_model`]; retries of that
    /// call are not reported.
    fn summarize(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<String, CompactError>> {
        let mut stream = self.call_model(request, cancel);
        Box::pin(async move {
            while let Some(event) = stream.next().await {
                match event.map_err(CompactError::Api)? {
                    StreamEvent::MessageDone(response) => {
                        let text: String = Message::assistant(response.content).text();
                        return extract_summary(&text).ok_or(CompactError::EmptySummary);
                    }
                    StreamEvent::Retry { .. }
                    | StreamEvent::RequestId(_)
                    | StreamEvent::Sse(_)
                    | StreamEvent::BlockDone { .. } => {}
                }
            }
            Err(CompactError::Api(ApiError::Connection {
                message: "the summary stream ended before the message was complete".into(),
            }))
        })
    }

    /// A fresh id for a message the loop creates (transcript uuid).
    fn new_id(&self) -> String {
        uuid::Uuid::new_v4().to_string()
    }
}

/// A compaction's calls are the loop's: `compact` takes them as a
/// [`CompactDeps`] so that it does not depend on this module.
impl<D: QueryDeps + ?Sized> CompactDeps for D {
    fn summarize(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<String, CompactError>> {
        QueryDeps::summarize(self, request, cancel)
    }

    fn new_id(&self) -> String {
        QueryDeps::new_id(self)
    }
}

/// The real dependencies: a model client, the built-in compaction stages, v4 uuids.
#[derive(Clone)]
pub struct ProductionDeps {
    client: Arc<dyn ModelClient>,
}

impl ProductionDeps {
    pub fn new(client: Arc<dyn ModelClient>) -> Self {
        ProductionDeps { client }
    }
}

impl QueryDeps for ProductionDeps {
    fn call_model(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        self.client.stream(request, cancel)
    }
}
