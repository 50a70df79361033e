//! The stream `query()` returns: a bounded channel fed by the loop's task.
//!
//! Why a task and a channel rather than a hand-written state machine: the loop
//! has a dozen await points (compaction tiers, the model stream, tool results),
//! and an async fn reads top to bottom like the seeds' generator. The channel is
//! small ([`EVENT_BUFFER`]) so a slow consumer stops the loop (backpressure), and
//! [`QueryStream`] owns the task: dropping it fires the loop's cancellation token
//! and aborts the task, which drops the executor, which aborts every tool task.
//! Nothing spawned outlives the stream.
//!
//! Generator semantics where they matter: before each model request the loop
//! sends a *barrier* and waits until the consumer has pulled past everything sent
//! before it. A consumer that persists each message before asking for the next
//! event therefore has it on disk before the next request leaves (invariant 7).

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::DropGuard;

use super::event::LoopEvent;
use crate::executor::AbortOnDrop;

/// Events buffered between the loop and a consumer that is behind.
pub(crate) const EVENT_BUFFER: usize = 16;

// Barriers are one per iteration; boxing every event to shrink them is not worth it.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Item {
    Event(LoopEvent),
    /// Released when the consumer asks for the event after it.
    Barrier(oneshot::Sender<()>),
}

/// The events of one `query()` call, ending with `LoopEvent::Terminal`.
/// Dropping it cancels the loop and every tool it runs.
pub struct QueryStream {
    rx: mpsc::Receiver<Item>,
    // Field order: the token fires before the task is aborted, so tools see the
    // cancellation even if they are mid-way through something non-async.
    _cancel: DropGuard,
    _task: AbortOnDrop<()>,
}

impl QueryStream {
    pub(crate) fn new(rx: mpsc::Receiver<Item>, cancel: DropGuard, task: AbortOnDrop<()>) -> Self {
        QueryStream {
            rx,
            _cancel: cancel,
            _task: task,
        }
    }
}

impl Stream for QueryStream {
    type Item = LoopEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<LoopEvent>> {
        loop {
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(Item::Event(event))) => return Poll::Ready(Some(event)),
                Poll::Ready(Some(Item::Barrier(release))) => {
                    let _ = release.send(());
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// The loop's end of the channel.
pub(crate) struct Emitter {
    tx: mpsc::Sender<Item>,
}

impl Emitter {
    pub(crate) fn new(tx: mpsc::Sender<Item>) -> Self {
        Emitter { tx }
    }

    /// Sends `event`, waiting while the buffer is full. A gone consumer is ignored:
    /// the loop is being cancelled and aborted at that point anyway.
    pub(crate) async fn emit(&self, event: LoopEvent) {
        let _ = self.tx.send(Item::Event(event)).await;
    }

    /// Waits until the consumer has taken every event sent so far and asked for more.
    pub(crate) async fn barrier(&self) {
        let (release, released) = oneshot::channel();
        if self.tx.send(Item::Barrier(release)).await.is_ok() {
            let _ = released.await;
        }
    }
}
