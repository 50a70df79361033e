//! Where the scheduler's time comes from: the system's wall clock in a
//! session, a clock the test moves by hand in tests (no sleeps standing in
//! for minutes).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use futures::future::BoxFuture;
use tokio::sync::watch;

/// Wall-clock time and a way to wait for a moment of it. Cron is evaluated in
/// local wall-clock time, so this is `SystemTime`, not a monotonic instant.
pub trait Clock: Send + Sync + fmt::Debug {
    fn now(&self) -> SystemTime;
    /// Completes at or after `at`. The scheduler checks `now` again when it
    /// wakes, so a clock that jumps (suspend, NTP) costs one extra round.
    fn sleep_until(&self, at: SystemTime) -> BoxFuture<'static, ()>;
}

/// The system clock: one Tokio timer per wait.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep_until(&self, at: SystemTime) -> BoxFuture<'static, ()> {
        let wait = at
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO);
        Box::pin(tokio::time::sleep(wait))
    }
}

/// A clock that moves only when told ([`ManualClock::advance`]); waits end
/// when it passes their moment.
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<Mutex<SystemTime>>,
    moved: watch::Sender<SystemTime>,
}

impl ManualClock {
    pub fn new(start: SystemTime) -> ManualClock {
        ManualClock {
            now: Arc::new(Mutex::new(start)),
            moved: watch::Sender::new(start),
        }
    }

    /// Moves the clock forward by `by`; every wait now due completes.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now += by;
        self.moved.send_replace(*now);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn sleep_until(&self, at: SystemTime) -> BoxFuture<'static, ()> {
        let mut moved = self.moved.subscribe();
        Box::pin(async move {
            // The sender lives as long as the clock; if it is gone nothing
            // will ever move it, so the wait never ends.
            if moved.wait_for(|now| *now >= at).await.is_err() {
                futures::future::pending::<()>().await;
            }
        })
    }
}

/// The clock a session schedules by (`SessionOptions::clock`): the system's
/// unless a test gives its own. Compared by identity.
#[derive(Clone, Default)]
pub struct SessionClock(pub Option<Arc<dyn Clock>>);

impl SessionClock {
    pub fn manual(clock: &ManualClock) -> SessionClock {
        SessionClock(Some(Arc::new(clock.clone())))
    }

    pub(crate) fn get(&self) -> Arc<dyn Clock> {
        self.0.clone().unwrap_or_else(|| Arc::new(SystemClock))
    }
}

impl fmt::Debug for SessionClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "SessionClock(given)"
        } else {
            "SessionClock(system)"
        })
    }
}

impl PartialEq for SessionClock {
    fn eq(&self, other: &SessionClock) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_manual_wait_ends_when_the_clock_passes_it() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let clock = ManualClock::new(start);
        let wait = tokio::spawn(clock.sleep_until(start + Duration::from_secs(60)));
        clock.advance(Duration::from_secs(59));
        tokio::task::yield_now().await;
        assert!(!wait.is_finished());
        clock.advance(Duration::from_secs(1));
        tokio::time::timeout(Duration::from_secs(5), wait)
            .await
            .expect("the wait ended")
            .expect("no panic");
        assert_eq!(clock.now(), start + Duration::from_secs(60));
    }
}
