//! Claude Code's scheduler lease, `<project>/.claude/scheduled_tasks.lock`
//! `{"sessionId","pid","acquiredAt"}`: of the sessions in one project, only
//! the one holding it fires the durable jobs of `scheduled_tasks.json`, so
//! two sessions resumed in one project do not both fire a job. It is taken
//! with an exclusive create; a lease whose process is gone (or that is not
//! a lease) is stale and taken over; its holder removes it when its schedule
//! ends.
//!
//! Claude Code's passive sessions probe the lease now and then; tack's look
//! only when one of their durable jobs is due (no polling). A lease that
//! cannot be written at all (a read-only `.claude`) does not stop a job.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The lease's path under `project`.
pub fn path_in(project: &Path) -> PathBuf {
    project.join(".claude").join("scheduled_tasks.lock")
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Lease {
    session_id: String,
    pid: u32,
    acquired_at: u64,
}

/// One schedule's claim on its project's lease.
#[derive(Debug)]
pub struct SchedulerLock {
    path: PathBuf,
    /// Who this schedule is (stable for its life).
    identity: String,
}

impl SchedulerLock {
    pub fn new(project: &Path, identity: String) -> SchedulerLock {
        SchedulerLock {
            path: path_in(project),
            identity,
        }
    }

    fn lease(&self) -> Lease {
        Lease {
            session_id: self.identity.clone(),
            pid: std::process::id(),
            acquired_at: super::job::epoch_ms(std::time::SystemTime::now()),
        }
    }

    fn read(&self) -> Option<Lease> {
        let text = tack_sys::config_file::read_config_file(&self.path, 64 * 1024).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// `Some(true)`: made; `Some(false)`: one is there; `None`: cannot be made.
    fn create(&self) -> Option<bool> {
        let body = serde_json::to_string(&self.lease()).ok()?;
        let open = |path: &Path| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
        };
        let mut file = match open(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(self.path.parent()?).ok()?;
                open(&self.path)
            }
            other => other,
        };
        match &mut file {
            Ok(f) => Some(f.write_all(body.as_bytes()).is_ok()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Some(false),
            Err(_) => None,
        }
    }

    /// Whether this schedule holds the lease now (taking it when it is free
    /// or stale).
    pub fn acquire(&self) -> bool {
        match self.create() {
            Some(true) | None => return true,
            Some(false) => {}
        }
        match self.read() {
            Some(lease) if lease.session_id == self.identity => return true,
            Some(lease) if alive(lease.pid) => return false,
            _ => {}
        }
        // Stale: of two sessions taking it over, one create wins.
        let _ = std::fs::remove_file(&self.path);
        self.create() != Some(false)
    }

    /// Gives the lease up if this schedule holds it.
    pub fn release(&self) {
        if self.read().is_some_and(|l| l.session_id == self.identity) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Whether process `pid` is running (Linux: it has a `/proc` entry).
fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_schedule_of_a_project_holds_the_lease_and_a_stale_one_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (
            SchedulerLock::new(dir.path(), "a".into()),
            SchedulerLock::new(dir.path(), "b".into()),
        );
        assert_eq!((a.acquire(), b.acquire(), a.acquire()), (true, false, true));
        let lease: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path_in(dir.path())).unwrap()).unwrap();
        assert_eq!(
            lease,
            serde_json::json!({"sessionId": "a", "pid": std::process::id(),
                               "acquiredAt": lease["acquiredAt"]})
        );
        b.release();
        assert!(path_in(dir.path()).exists(), "b does not hold it");
        a.release();
        assert!(b.acquire());
        // A lease whose process is gone is taken over; so is a torn one.
        let dead = serde_json::json!({"sessionId": "x", "pid": u32::MAX - 1, "acquiredAt": 1});
        std::fs::write(path_in(dir.path()), dead.to_string()).unwrap();
        assert!(a.acquire());
        std::fs::write(path_in(dir.path()), "{torn").unwrap();
        assert!(b.acquire());
    }
}
