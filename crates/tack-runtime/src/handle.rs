//! How a front end drives a session in-process: a [`RuntimeHandle`] sends
//! [`Op`]s (see [`crate::protocol`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::Value;
use tack_permissions::PermissionMode;
use tack_protocol::Message;
use tack_protocol::stream_json::McpServerStatus;
use tack_store::Rewound;
use tokio::sync::{mpsc, oneshot};

use crate::asks::Asks;
use crate::checkpoints::RewindError;
use crate::event::RuntimeEvent;
use crate::protocol::ask::{AskAnswer, AskId};
use crate::protocol::op::{McpControl, Op, OpId, ReceiptWanted, Submission, UserInput};
use crate::protocol::reply::{
    AnswerError, ConversationRewound, InterruptOutcome, InterruptReceipt, McpControlError,
    ModeError, Reply, RewindPoint,
};
use crate::snapshot::SessionSnapshot;
use crate::user_shell::{NoteError, ShellRun};

/// An op on its way to the session's task, and where its reply goes.
#[derive(Debug)]
pub(crate) struct Envelope {
    pub op: Op,
    pub reply: Responder,
}

/// Where the reply to one op goes: out as a [`RuntimeEvent::Reply`] with the
/// op's id, or (an in-process caller waiting on it) straight back.
#[derive(Debug)]
pub(crate) enum Responder {
    Event {
        id: OpId,
        events: mpsc::WeakUnboundedSender<RuntimeEvent>,
    },
    Local(oneshot::Sender<Reply>),
}

impl Responder {
    pub(crate) fn send(self, reply: Reply) {
        match self {
            Responder::Event { id, events } => {
                if let Some(events) = events.upgrade() {
                    let reply = Box::new(reply);
                    let _ = events.send(RuntimeEvent::Reply { id, reply });
                }
            }
            Responder::Local(tx) => {
                let _ = tx.send(reply);
            }
        }
    }
}

/// Takes answers to a session's asks; clone it freely. Holding one keeps
/// nothing of the session alive.
#[derive(Debug, Clone)]
pub struct Answers(AnswersTo);

#[derive(Debug, Clone)]
enum AnswersTo {
    /// The session runs in this process.
    Local(Arc<Asks>),
    /// The session is served elsewhere: an answer is an `Op::Answer` on its
    /// way there (its outcome is the reply, not this call's result).
    Remote(mpsc::UnboundedSender<Envelope>),
}

impl Answers {
    pub(crate) fn local(asks: Arc<Asks>) -> Answers {
        Answers(AnswersTo::Local(asks))
    }

    pub(crate) fn remote(ops: mpsc::UnboundedSender<Envelope>) -> Answers {
        Answers(AnswersTo::Remote(ops))
    }

    /// The asks of a session in this process; `None` for a served one.
    pub(crate) fn here(&self) -> Option<&Asks> {
        match &self.0 {
            AnswersTo::Local(asks) => Some(asks),
            AnswersTo::Remote(_) => None,
        }
    }

    /// Answers `ask`. For a session served elsewhere the answer is sent and
    /// `Ok` means only that; it fails as `NotWaiting` once the connection
    /// is gone.
    pub fn answer(&self, ask: AskId, answer: AskAnswer) -> Result<(), AnswerError> {
        match &self.0 {
            AnswersTo::Local(asks) => asks.answer(ask, answer),
            AnswersTo::Remote(ops) => {
                let (reply, _) = oneshot::channel();
                let envelope = Envelope {
                    op: Op::Answer { ask, answer },
                    reply: Responder::Local(reply),
                };
                ops.send(envelope).map_err(|_| AnswerError::NotWaiting(ask))
            }
        }
    }
}

/// The runtime stopped taking ops (it ended or its front end went away).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session has ended")]
pub struct SessionClosed;

/// Sends ops to a running session. Clone it freely; the session's input is
/// closed when the last handle is dropped (queued turns still run).
#[derive(Debug, Clone)]
pub struct RuntimeHandle {
    pub(crate) tx: mpsc::UnboundedSender<Envelope>,
    pub(crate) asks: Answers,
    pub(crate) events: mpsc::WeakUnboundedSender<RuntimeEvent>,
    pub(crate) next_id: Arc<AtomicU64>,
}

impl RuntimeHandle {
    /// Sends `submission`; its reply, if the op has one, comes out as a
    /// [`RuntimeEvent::Reply`] with the submission's id. An answer is taken
    /// at once, whatever the session is doing.
    pub fn submit_op(&self, submission: Submission) -> Result<(), SessionClosed> {
        let Submission { id, op } = submission;
        let reply = Responder::Event {
            id,
            events: self.events.clone(),
        };
        self.dispatch(op, reply)
    }

    /// Sends `op` under an id of the handle's own (`op-N`); its reply, if
    /// any, comes out as an event.
    pub fn send(&self, op: Op) -> Result<(), SessionClosed> {
        let id = OpId(format!(
            "op-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ));
        self.submit_op(Submission { id, op })
    }

    /// Sends `op` now; the returned future is its reply (the op must have
    /// one).
    pub fn request(&self, op: Op) -> PendingReply<Reply> {
        self.pending(op, Some)
    }

    /// Sends `op` now; its reply, of the kind `take` picks, is the future.
    fn pending<T>(&self, op: Op, take: fn(Reply) -> Option<T>) -> PendingReply<T> {
        let (tx, rx) = oneshot::channel();
        // Not sent: `tx` is dropped with the envelope, and the reply reads
        // as closed.
        let _ = self.dispatch(op, Responder::Local(tx));
        PendingReply { rx, take }
    }

    fn dispatch(&self, op: Op, reply: Responder) -> Result<(), SessionClosed> {
        if let (Op::Answer { ask, answer }, Some(asks)) = (&op, self.asks.here()) {
            // Not through the session's queue: an ask can be open while the
            // session's task waits for it (a SessionStart callback hook).
            reply.send(Reply::Answered(asks.answer(*ask, answer.clone())));
            return Ok(());
        }
        self.tx
            .send(Envelope { op, reply })
            .map_err(|_| SessionClosed)
    }

    pub fn submit(&self, input: UserInput) -> Result<(), SessionClosed> {
        self.send(Op::Submit(input))
    }

    /// Answers the ask `ask`.
    pub fn answer(&self, ask: AskId, answer: AskAnswer) -> Result<(), AnswerError> {
        self.asks.answer(ask, answer)
    }

    /// Interrupts the running turn; the reply comes once it has ended.
    pub fn interrupt(&self) -> PendingReply<InterruptOutcome> {
        self.pending(Op::Interrupt { receipt: None }, |r| match r {
            Reply::Interrupted(outcome) => Some(outcome),
            _ => None,
        })
    }

    /// Interrupts the running turn; the receipt comes before the turn's
    /// `TurnEnded` event.
    pub fn interrupt_with_receipt(&self, cancel_queued: bool) -> PendingReply<InterruptReceipt> {
        let receipt = Some(ReceiptWanted { cancel_queued });
        self.pending(Op::Interrupt { receipt }, |r| match r {
            Reply::InterruptReceipt(receipt) => Some(receipt),
            _ => None,
        })
    }

    /// Stops the background task `task_id`; `Ok(Err(_))`: there was none
    /// running by that id.
    pub fn stop_task(&self, task_id: String) -> PendingReply<Result<(), tack_tools::StopError>> {
        self.pending(Op::StopTask { task_id }, |r| match r {
            Reply::TaskStopped(stopped) => Some(stopped),
            _ => None,
        })
    }

    /// [`Op::McpStatus`].
    pub fn mcp_status(&self) -> PendingReply<Vec<McpServerStatus>> {
        self.pending(Op::McpStatus, |r| match r {
            Reply::McpStatus(statuses) => Some(statuses),
            _ => None,
        })
    }

    /// [`Op::McpControl`].
    pub fn mcp_control(&self, control: McpControl) -> PendingReply<Result<Value, McpControlError>> {
        self.pending(Op::McpControl(control), |r| match r {
            Reply::McpControl(done) => Some(done),
            _ => None,
        })
    }

    /// [`Op::RewindFiles`].
    pub fn rewind_files(
        &self,
        user_message_id: String,
        dry_run: bool,
    ) -> PendingReply<Result<Rewound, RewindError>> {
        let op = Op::RewindFiles {
            user_message_id,
            dry_run,
        };
        self.pending(op, |r| match r {
            Reply::FilesRewound(rewound) => Some(rewound),
            _ => None,
        })
    }

    /// [`Op::RewindPoints`].
    pub fn rewind_points(&self) -> PendingReply<Vec<RewindPoint>> {
        self.pending(Op::RewindPoints, |r| match r {
            Reply::RewindPoints(points) => Some(points),
            _ => None,
        })
    }

    /// [`Op::RewindConversation`].
    pub fn rewind_conversation(
        &self,
        user_message_id: String,
    ) -> PendingReply<Result<ConversationRewound, RewindError>> {
        self.pending(Op::RewindConversation { user_message_id }, |r| match r {
            Reply::ConversationRewound(rewound) => Some(rewound),
            _ => None,
        })
    }

    /// The session's state now.
    pub fn snapshot(&self) -> PendingReply<SessionSnapshot> {
        self.pending(Op::Snapshot, |r| match r {
            Reply::Snapshot(snapshot) => Some(*snapshot),
            _ => None,
        })
    }

    /// [`Op::Conversation`].
    pub fn conversation(&self) -> PendingReply<Vec<Message>> {
        self.pending(Op::Conversation, |r| match r {
            Reply::Conversation(messages) => Some(messages),
            _ => None,
        })
    }

    pub fn set_permission_mode(&self, mode: PermissionMode) -> PendingReply<Result<(), ModeError>> {
        self.pending(Op::SetPermissionMode(mode), |r| match r {
            Reply::PermissionMode(set) => Some(set),
            _ => None,
        })
    }

    /// [`Op::RunShell`]: what the command did, once it is in the
    /// conversation.
    pub fn run_shell(&self, command: String) -> PendingReply<ShellRun> {
        self.pending(Op::RunShell { command }, |r| match r {
            Reply::Shell(run) => Some(run),
            _ => None,
        })
    }

    /// [`Op::AddNote`].
    pub fn add_note(&self, note: String) -> PendingReply<Result<std::path::PathBuf, NoteError>> {
        self.pending(Op::AddNote { note }, |r| match r {
            Reply::Note(written) => Some(written),
            _ => None,
        })
    }

    /// [`Op::EndInput`].
    pub fn end_input(&self, wait_ceiling: Option<Duration>) -> Result<(), SessionClosed> {
        self.send(Op::EndInput { wait_ceiling })
    }
}

/// The reply to an op a [`RuntimeHandle`] sent (it was sent when this was
/// made): a future, or [`PendingReply::try_recv`] to look without waiting.
/// A session that ended before replying reads as [`SessionClosed`].
#[derive(Debug)]
pub struct PendingReply<T> {
    rx: oneshot::Receiver<Reply>,
    take: fn(Reply) -> Option<T>,
}

impl<T> PendingReply<T> {
    /// The reply if it has come: `None` while it has not.
    pub fn try_recv(&mut self) -> Option<Result<T, SessionClosed>> {
        match self.rx.try_recv() {
            Ok(reply) => Some((self.take)(reply).ok_or(SessionClosed)),
            Err(oneshot::error::TryRecvError::Empty) => None,
            Err(oneshot::error::TryRecvError::Closed) => Some(Err(SessionClosed)),
        }
    }
}

impl<T> Future for PendingReply<T> {
    type Output = Result<T, SessionClosed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let take = self.take;
        Pin::new(&mut self.rx)
            .poll(cx)
            .map(|reply| reply.ok().and_then(take).ok_or(SessionClosed))
    }
}
