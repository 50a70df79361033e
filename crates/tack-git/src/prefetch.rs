//! The git snapshot started as soon as the process knows its working
//! directory, before settings-dependent start-up runs: `git status` is the
//! slowest part of the first request's context (~2 ms as a process), and it
//! needs nothing but the cwd. The session's context load then takes the
//! result instead of starting its own (once: a reload after `/clear` takes a
//! fresh snapshot).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::files::Fact;
use crate::snapshot::{GitSnapshot, git_snapshot, snapshot_in_process};

/// A snapshot being taken on a thread of its own; cheap to clone.
#[derive(Clone)]
pub struct GitPrefetch(Arc<Inner>);

struct Inner {
    cwd: PathBuf,
    result: Mutex<Option<Receiver<Option<GitSnapshot>>>>,
}

impl GitPrefetch {
    /// Starts taking the snapshot of `cwd`, each `git` bounded by `timeout`.
    /// If no thread can be started, the session takes its own later.
    pub fn start(cwd: PathBuf, timeout: Duration) -> GitPrefetch {
        let (tx, rx) = channel();
        let dir = cwd.clone();
        let spawned = std::thread::Builder::new()
            .name("git-snapshot".into())
            .spawn(move || {
                // A runtime only where `git` must run.
                let snapshot = match snapshot_in_process(&dir) {
                    Fact::Known(snapshot) => snapshot,
                    Fact::Unsure => tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .ok()
                        .and_then(|rt| rt.block_on(git_snapshot(&dir, timeout))),
                };
                let _ = tx.send(snapshot);
            });
        let result = spawned.is_ok().then_some(rx);
        GitPrefetch(Arc::new(Inner {
            cwd,
            result: Mutex::new(result),
        }))
    }

    /// Where the snapshot is taken.
    pub fn cwd(&self) -> &Path {
        &self.0.cwd
    }

    /// The pending snapshot if it is of `cwd` and not taken yet.
    pub fn take(&self, cwd: &Path) -> Option<Receiver<Option<GitSnapshot>>> {
        if self.0.cwd != cwd {
            return None;
        }
        self.0.result.lock().ok()?.take()
    }
}

impl fmt::Debug for GitPrefetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GitPrefetch")
            .field("cwd", &self.0.cwd)
            .finish_non_exhaustive()
    }
}

/// Two handles are equal when they share one snapshot.
impl PartialEq for GitPrefetch {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for GitPrefetch {}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_snapshot_is_taken_once_and_only_for_its_own_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let prefetch = GitPrefetch::start(tmp.path().to_path_buf(), Duration::from_secs(3));
        assert!(prefetch.take(&tmp.path().join("other")).is_none());
        let shared = prefetch.clone();
        let rx = shared.take(tmp.path()).expect("pending snapshot");
        // Not a repository: no snapshot, and a clear answer, not a hang.
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(None));
        assert!(prefetch.take(tmp.path()).is_none());
        assert_eq!(prefetch, shared);
    }
}
