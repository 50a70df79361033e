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
//! once per iteration, in pipeline order.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use tack_api::{ApiError, ModelClient, StreamEvent};
use tack_protocol::{Message, MessagesRequest};
use tokio_util::sync::CancellationToken;

use crate::pipeline::autocompact::{self, AutoCompactTracking, AutocompactOutcome};
use crate::pipeline::microcompact::{self, MicrocompactOutcome};

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
    fn microcompact(&self, messages: Vec<Message>) -> BoxFuture<'_, MicrocompactOutcome> {
        Box::pin(std::future::ready(microcompact::microcompact(messages)))
    }

    /// Step 9: summarisation when the history nears the context window.
    fn autocompact(
        &self,
        messages: Vec<Message>,
        tracking: Option<AutoCompactTracking>,
    ) -> BoxFuture<'_, AutocompactOutcome> {
        Box::pin(std::future::ready(autocompact::autocompact_if_needed(
            messages, tracking,
        )))
    }

    /// A fresh id for a message the loop creates (transcript uuid).
    fn new_id(&self) -> String {
        uuid::Uuid::new_v4().to_string()
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
