//! The runtime's side of the event stream.
//!
//! Unbounded on purpose: what needs backpressure already has it (the loop
//! waits for the runtime, which persists before it emits), and nothing that
//! emits (a hook, the permission gate, start-up) can then block on a front end
//! that is not reading yet.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::asks::Asks;
use crate::event::{Notice, RuntimeEvent};
use crate::protocol::ask::{AskAnswer, AskId};
use crate::telemetry::SessionTelemetry;

/// The sender, the session's open asks, and its telemetry when it is on
/// (every event is observed before it is sent).
#[derive(Clone)]
pub(crate) struct Emitter {
    tx: mpsc::UnboundedSender<RuntimeEvent>,
    telemetry: Option<Arc<SessionTelemetry>>,
    asks: Arc<Asks>,
}

impl std::fmt::Debug for Emitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Emitter")
            .field(&self.tx)
            .finish_non_exhaustive()
    }
}

impl Emitter {
    pub(crate) fn new(
        tx: mpsc::UnboundedSender<RuntimeEvent>,
        telemetry: Option<Arc<SessionTelemetry>>,
    ) -> Emitter {
        Emitter {
            tx,
            telemetry,
            asks: Arc::default(),
        }
    }

    /// An emitter with no telemetry, and the events it sends.
    #[cfg(test)]
    pub(crate) fn for_tests() -> (Emitter, mpsc::UnboundedReceiver<RuntimeEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Emitter::new(tx, None), rx)
    }

    /// Emits `event`; `false` if the front end is gone.
    pub(crate) fn emit(&self, event: RuntimeEvent) -> bool {
        if let Some(t) = &self.telemetry {
            t.observe(&event);
        }
        self.tx.send(event).is_ok()
    }

    pub(crate) fn telemetry(&self) -> Option<&Arc<SessionTelemetry>> {
        self.telemetry.as_ref()
    }

    /// The sender, not keeping the stream open.
    pub(crate) fn weak_sender(&self) -> mpsc::WeakUnboundedSender<RuntimeEvent> {
        self.tx.downgrade()
    }

    pub(crate) fn asks(&self) -> &Arc<Asks> {
        &self.asks
    }

    pub(crate) fn notice(&self, notice: Notice) {
        self.emit(RuntimeEvent::Notice(notice));
    }
}

/// One open ask, waited on by its asker. Dropping it unanswered withdraws it.
#[derive(Debug)]
pub(crate) struct PendingAsk {
    pub(crate) id: AskId,
    answer: Option<oneshot::Receiver<AskAnswer>>,
    emit: Emitter,
}

impl PendingAsk {
    /// The answer; `None` if it can no longer come (the session is ending).
    pub(crate) async fn answer(&mut self) -> Option<AskAnswer> {
        let answer = self.answer.as_mut()?.await.ok();
        self.answer = None;
        answer
    }
}

impl Drop for PendingAsk {
    fn drop(&mut self) {
        if self.answer.is_some() && self.emit.asks().close(self.id) {
            self.emit.emit(RuntimeEvent::AskWithdrawn { id: self.id });
        }
    }
}

impl Emitter {
    /// Asks the front end: emits `ask(id)` with a fresh id. `None` when the
    /// event could not be sent (the front end is gone for good).
    pub(crate) fn ask(&self, ask: impl FnOnce(AskId) -> RuntimeEvent) -> Option<PendingAsk> {
        let (id, answer) = self.asks().open();
        if !self.emit(ask(id)) {
            self.asks().close(id);
            return None;
        }
        Some(PendingAsk {
            id,
            answer: Some(answer),
            emit: self.clone(),
        })
    }
}
