//! Messages for the model from outside the conversation: a teammate's or
//! another session's message, a Monitor's output, a scheduled prompt, a
//! wake-up. One queue per session ([`crate::ToolEnv::arrivals`]); whoever
//! produces them pushes, and the session delivers them:
//!
//! - [`Delivery::Soon`]: with the next request of a running turn (the loop
//!   appends them to the tool-results message, after the results), or as a
//!   turn of their own when the session is idle;
//! - [`Delivery::Idle`]: only when the session is idle, as a turn.
//!
//! An arrival's text starts with a tag naming where it came from (one of
//! [`tack_protocol::relayed::RELAYED_TAGS`]): it is not the user's word, and
//! auto mode's classifier gives it no authority.
//!
//! While an [`Expecting`] guard lives, a session whose input has ended (`-p`)
//! waits for arrivals (a running teammate, a Monitor) instead of ending.
//!
//! The session also says here when it goes idle ([`Arrivals::went_idle`]):
//! whoever asked to be told (`SendMessage`'s `notify_when_idle`) holds an
//! [`IdleWatch`] taken before and wakes then, with no polling.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// When an [`Arrival`] may reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// With the next request, mid-turn or waking an idle session.
    Soon,
    /// Only as a turn of its own, when the session is idle.
    Idle,
}

/// One message for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival {
    /// What the model reads; starts with a relayed tag.
    pub text: String,
    pub delivery: Delivery,
}

impl Arrival {
    pub fn soon(text: impl Into<String>) -> Arrival {
        Arrival {
            text: text.into(),
            delivery: Delivery::Soon,
        }
    }

    pub fn idle(text: impl Into<String>) -> Arrival {
        Arrival {
            text: text.into(),
            delivery: Delivery::Idle,
        }
    }
}

/// A session's queue of [`Arrival`]s; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Arrivals {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    queue: Mutex<VecDeque<Arrival>>,
    pushed: Notify,
    expecting: AtomicUsize,
    /// How many times the session went idle.
    idled: tokio::sync::watch::Sender<u64>,
    /// A turn runs (between [`Arrivals::went_busy`] and the next idleness).
    busy: std::sync::atomic::AtomicBool,
}

/// Waits for the session's next idle moment after it was taken.
#[derive(Debug)]
pub struct IdleWatch {
    rx: tokio::sync::watch::Receiver<u64>,
}

impl IdleWatch {
    /// Completes when the session next goes idle; `false` when it ended
    /// first.
    pub async fn next_idle(mut self) -> bool {
        self.rx.changed().await.is_ok()
    }
}

/// While it lives, the session expects arrivals (see the module docs).
#[derive(Debug)]
pub struct Expecting {
    inner: Arc<Inner>,
}

impl Drop for Expecting {
    fn drop(&mut self) {
        self.inner.expecting.fetch_sub(1, Ordering::SeqCst);
        // A session waiting only for this guard re-checks.
        self.inner.pushed.notify_one();
    }
}

impl Arrivals {
    fn queue(&self) -> MutexGuard<'_, VecDeque<Arrival>> {
        // Pushing and taking cannot leave the queue half changed.
        self.inner
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `arrival` and wakes the session; never blocks.
    pub fn push(&self, arrival: Arrival) {
        self.queue().push_back(arrival);
        self.inner.pushed.notify_one();
    }

    /// A guard that keeps a session whose input has ended waiting.
    pub fn expect(&self) -> Expecting {
        self.inner.expecting.fetch_add(1, Ordering::SeqCst);
        Expecting {
            inner: self.inner.clone(),
        }
    }

    /// The session went idle: every [`IdleWatch`] taken before wakes.
    pub fn went_idle(&self) {
        self.inner.busy.store(false, Ordering::SeqCst);
        self.inner.idled.send_modify(|n| *n += 1);
    }

    /// The session started a turn.
    pub fn went_busy(&self) {
        self.inner.busy.store(true, Ordering::SeqCst);
    }

    /// Whether a turn runs: take an [`IdleWatch`] first to wait for its
    /// end without missing it.
    pub fn is_busy(&self) -> bool {
        self.inner.busy.load(Ordering::SeqCst)
    }

    /// A watch for the next idle moment from now on.
    pub fn idle_watch(&self) -> IdleWatch {
        IdleWatch {
            rx: self.inner.idled.subscribe(),
        }
    }

    /// How many [`Expecting`] guards live.
    pub fn expecting(&self) -> usize {
        self.inner.expecting.load(Ordering::SeqCst)
    }

    /// The [`Delivery::Soon`] arrivals, in order; the others stay.
    pub fn take_soon(&self) -> Vec<Arrival> {
        let mut queue = self.queue();
        let (soon, idle): (Vec<_>, Vec<_>) =
            queue.drain(..).partition(|a| a.delivery == Delivery::Soon);
        queue.extend(idle);
        soon
    }

    /// Every arrival, in order.
    pub fn take_all(&self) -> Vec<Arrival> {
        self.queue().drain(..).collect()
    }

    /// Whether anything is queued.
    pub fn is_empty(&self) -> bool {
        self.queue().is_empty()
    }

    /// Completes when something is queued (at once if something is), or
    /// an [`Expecting`] guard ends.
    pub async fn changed(&self) {
        let pushed = self.inner.pushed.notified();
        if !self.is_empty() {
            return;
        }
        pushed.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn soon_ones_are_taken_mid_turn_and_idle_ones_stay_in_order() {
        let arrivals = Arrivals::default();
        arrivals.push(Arrival::idle("<scheduled-task>a"));
        arrivals.push(Arrival::soon("<teammate-message>b"));
        arrivals.push(Arrival::idle("<scheduled-task>c"));
        arrivals.push(Arrival::soon("<monitor-event>d"));
        assert_eq!(
            arrivals.take_soon(),
            vec![
                Arrival::soon("<teammate-message>b"),
                Arrival::soon("<monitor-event>d")
            ]
        );
        assert_eq!(
            arrivals.take_all(),
            vec![
                Arrival::idle("<scheduled-task>a"),
                Arrival::idle("<scheduled-task>c")
            ]
        );
        assert!(arrivals.is_empty());
    }

    #[tokio::test]
    async fn changed_completes_for_a_push_before_or_while_waiting() {
        let arrivals = Arrivals::default();
        arrivals.push(Arrival::soon("<teammate-message>early"));
        tokio::time::timeout(Duration::from_secs(5), arrivals.changed())
            .await
            .expect("already queued");
        arrivals.take_all();
        let pusher = arrivals.clone();
        let push = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            pusher.push(Arrival::soon("<teammate-message>late"));
        });
        tokio::time::timeout(Duration::from_secs(5), arrivals.changed())
            .await
            .expect("woken by the push");
        push.await.expect("pusher");
        assert_eq!(
            arrivals.take_all(),
            vec![Arrival::soon("<teammate-message>late")]
        );
    }

    #[tokio::test]
    async fn an_idle_watch_wakes_at_the_next_idle_moment_after_it_was_taken() {
        let arrivals = Arrivals::default();
        arrivals.went_idle();
        let watch = arrivals.idle_watch();
        let early = tokio::time::timeout(Duration::from_millis(50), watch.next_idle()).await;
        assert!(
            early.is_err(),
            "an idle moment before the watch does not count"
        );
        let watch = arrivals.idle_watch();
        let idler = arrivals.clone();
        let waiter = tokio::spawn(watch.next_idle());
        tokio::time::sleep(Duration::from_millis(20)).await;
        idler.went_idle();
        let woke = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("woken by the idle moment")
            .expect("waiter");
        assert!(woke);
    }

    #[tokio::test]
    async fn expecting_counts_its_guards_and_their_end_wakes_the_waiter() {
        let arrivals = Arrivals::default();
        let (a, b) = (arrivals.expect(), arrivals.expect());
        assert_eq!(arrivals.expecting(), 2);
        drop(a);
        assert_eq!(arrivals.expecting(), 1);
        let waiter = arrivals.clone();
        let wait = tokio::spawn(async move { waiter.changed().await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(b);
        tokio::time::timeout(Duration::from_secs(5), wait)
            .await
            .expect("woken by the guard's end")
            .expect("waiter");
        assert_eq!(arrivals.expecting(), 0);
    }
}
