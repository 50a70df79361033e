//! The runtime's open questions to its front end, by [`AskId`].
//!
//! An asker (the permission gate, a client hook call, the sandbox's network
//! ask) opens an ask through the `Emitter::ask`: the event goes out with a fresh
//! id and the asker waits on a `PendingAsk` (both in `emit.rs`). The answer comes in as
//! `Op::Answer` and is routed here by id, whoever sent it and whenever (a
//! front end may attach after the question was asked). An asker that stops
//! waiting (an interrupt, a hook's timeout) drops its `PendingAsk`, which
//! withdraws the ask: the front end is told
//! ([`RuntimeEvent::AskWithdrawn`]) and a late answer is refused. An ask
//! whose event could not be sent (nobody will ever read it) is never waited
//! on.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::oneshot;

use crate::protocol::ask::{AskAnswer, AskId};
use crate::protocol::reply::AnswerError;

/// The asks waiting for an answer.
#[derive(Debug, Default)]
pub(crate) struct Asks {
    next: AtomicU64,
    waiting: Mutex<HashMap<AskId, oneshot::Sender<AskAnswer>>>,
}

impl Asks {
    pub(crate) fn open(&self) -> (AskId, oneshot::Receiver<AskAnswer>) {
        let id = AskId(self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id, tx);
        (id, rx)
    }

    /// Routes `answer` to the asker waiting on `id`.
    pub(crate) fn answer(&self, id: AskId, answer: AskAnswer) -> Result<(), AnswerError> {
        let waiting = self.lock().remove(&id).ok_or(AnswerError::NotWaiting(id))?;
        waiting
            .send(answer)
            .map_err(|_| AnswerError::NotWaiting(id))
    }

    /// Takes `id` out; `true` if it was still waiting.
    pub(crate) fn close(&self, id: AskId) -> bool {
        self.lock().remove(&id).is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<AskId, oneshot::Sender<AskAnswer>>> {
        // A panic while holding it left the map whole: keep going.
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::Emitter;
    use crate::event::RuntimeEvent;
    use crate::protocol::ask::HookAnswer;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn hook_call(id: AskId) -> RuntimeEvent {
        RuntimeEvent::HookCallback(Box::new(crate::event::HookCallback {
            id,
            callback_id: "hook_0".into(),
            input: json!({}),
            tool_use_id: None,
        }))
    }

    #[tokio::test]
    async fn an_answer_reaches_its_asker_once() {
        let (emit, mut events) = Emitter::for_tests();
        let mut pending = emit.ask(hook_call).unwrap();
        let Some(RuntimeEvent::HookCallback(call)) = events.recv().await else {
            panic!("no ask")
        };
        let answer = AskAnswer::Hook(HookAnswer::Output(json!({"ok": true})));
        assert_eq!(emit.asks().answer(call.id, answer.clone()), Ok(()));
        assert_eq!(pending.answer().await, Some(answer.clone()));
        assert_eq!(
            emit.asks().answer(call.id, answer),
            Err(AnswerError::NotWaiting(call.id))
        );
        drop(pending);
        assert!(
            events.try_recv().is_err(),
            "an answered ask is not withdrawn"
        );
    }

    #[tokio::test]
    async fn an_ask_given_up_is_withdrawn_and_refuses_a_late_answer() {
        let (emit, mut events) = Emitter::for_tests();
        let pending = emit.ask(hook_call).unwrap();
        let id = pending.id;
        drop(pending);
        assert!(matches!(
            events.recv().await,
            Some(RuntimeEvent::HookCallback(_))
        ));
        assert!(matches!(
            events.recv().await,
            Some(RuntimeEvent::AskWithdrawn { id: w }) if w == id
        ));
        let late = AskAnswer::Hook(HookAnswer::Failed("late".into()));
        assert_eq!(
            emit.asks().answer(id, late),
            Err(AnswerError::NotWaiting(id))
        );
    }

    #[tokio::test]
    async fn nobody_to_ask_means_no_wait() {
        let (emit, events) = Emitter::for_tests();
        drop(events);
        assert!(emit.ask(hook_call).is_none());
    }
}
