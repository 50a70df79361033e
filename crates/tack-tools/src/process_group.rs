//! Process groups: every shell command runs as the leader of its own group, and
//! stopping a command means stopping the whole group (tack invariant 6), so no
//! grandchild survives a timeout, an abort or a TaskStop.

use std::time::{Duration, Instant};

use tokio::process::Child;

pub(crate) use tack_sys::{group_alive, signal_group};

/// Stops group `pgid` led by `leader`: SIGTERM, then up to `grace` for the group
/// to empty, then SIGKILL. Reaps the leader. There is no event for "the group is
/// empty", so the grace period is polled in short steps.
pub(crate) async fn terminate(pgid: i32, leader: &mut Child, grace: Duration) {
    if !signal_group(pgid, libc::SIGTERM) {
        let _ = leader.wait().await;
        return;
    }
    let deadline = Instant::now() + grace;
    loop {
        let leader_gone = matches!(leader.try_wait(), Ok(Some(_)));
        if leader_gone && !group_alive(pgid) {
            return;
        }
        if Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    signal_group(pgid, libc::SIGKILL);
    let _ = leader.wait().await;
}

/// After the leader has exited and been reaped: stops whatever it left running in
/// its group (SIGTERM, up to `grace`, SIGKILL).
pub(crate) async fn stop_leftovers(pgid: i32, grace: Duration) {
    if !signal_group(pgid, libc::SIGTERM) {
        return;
    }
    let deadline = Instant::now() + grace;
    while group_alive(pgid) {
        if Instant::now() >= deadline {
            signal_group(pgid, libc::SIGKILL);
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Kills the group when dropped, unless disarmed: covers a Bash future dropped
/// mid-run by the executor. SIGTERM at once, SIGKILL after `grace` from a helper
/// thread (Drop cannot wait).
#[derive(Debug)]
pub(crate) struct GroupGuard {
    pgid: Option<i32>,
    grace: Duration,
}

impl GroupGuard {
    pub(crate) fn new(pgid: i32, grace: Duration) -> Self {
        GroupGuard {
            pgid: Some(pgid),
            grace,
        }
    }

    pub(crate) fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take()
            && signal_group(pgid, libc::SIGTERM)
        {
            let grace = self.grace;
            std::thread::spawn(move || {
                std::thread::sleep(grace);
                signal_group(pgid, libc::SIGKILL);
            });
        }
    }
}
