//! stdio servers: the child leads its own process group, its stderr goes to a
//! log file, and the whole group is killed when the connection goes away.

use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rmcp::transport::TokioChildProcess;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::process::Command;

use crate::config::StdioConfig;

/// Kills the child's process group when dropped: covers a start-up that timed
/// out, a manager dropped without [`crate::McpManager::shutdown`], and any
/// grandchild the server started.
#[derive(Debug)]
pub(crate) struct ChildGuard {
    pgid: i32,
}

impl ChildGuard {
    pub(crate) fn pid(&self) -> i32 {
        self.pgid
    }

    /// SIGTERM, up to `grace` for the group to empty, then SIGKILL.
    pub(crate) async fn terminate(&self, grace: Duration) {
        if !signal_group(self.pgid, libc::SIGTERM) {
            return;
        }
        let deadline = tokio::time::Instant::now() + grace;
        // There is no event for "the group is empty"; poll in short steps.
        while signal_group(self.pgid, 0) && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        signal_group(self.pgid, libc::SIGKILL);
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        signal_group(self.pgid, libc::SIGKILL);
    }
}

use tack_sys::signal_group;

/// Resolves when the server process exits, even while something it started
/// still holds its stdout open (so rmcp would see no end of stream). A Linux
/// pidfd: readable once the process has exited, without reaping it (rmcp's
/// child handle does that).
pub(crate) struct ExitWatch {
    fd: Option<AsyncFd<OwnedFd>>,
    gone: bool,
}

impl ExitWatch {
    fn open(pid: i32) -> ExitWatch {
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        if raw < 0 {
            let gone = std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
            return ExitWatch { fd: None, gone };
        }
        // SAFETY: a successful pidfd_open returned a new fd that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw as i32) };
        // Registering needs a reactor; without one there is just no watch.
        let fd = tokio::runtime::Handle::try_current().ok().and_then(|_| {
            // SAFETY: an OwnedFd stays open, and is the same fd, until dropped
            // with the AsyncFd that owns it.
            unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.ok()
        });
        ExitWatch { fd, gone: false }
    }

    /// Returns once the process has exited; never where pidfds are missing.
    pub(crate) async fn exited(&self) {
        if self.gone {
            return;
        }
        match &self.fd {
            Some(fd) => {
                let _ = fd.readable().await;
            }
            None => std::future::pending().await,
        }
    }
}

/// Starts `config`'s command in `cwd` with `env` (settings `env`, then the
/// server's own) added to tack's environment, stderr appended to `log`.
pub(crate) fn spawn(
    config: &StdioConfig,
    cwd: &Path,
    env: &[(String, String)],
    log: &Path,
) -> Result<(TokioChildProcess, ChildGuard, ExitWatch), String> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the log directory {}: {e}", dir.display()))?;
    }
    let stderr = File::create(log)
        .map_err(|e| format!("cannot create the log file {}: {e}", log.display()))?;
    let mut command = Command::new(&config.command);
    command
        .args(&config.args)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .envs(&config.env)
        .process_group(0)
        .kill_on_drop(true);
    let (child, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::from(stderr))
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", config.command))?;
    let pid = child.id().and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
    Ok((child, ChildGuard { pgid: pid }, ExitWatch::open(pid)))
}

/// The last lines of a server's log, to explain a failed start.
pub(crate) fn log_tail(log: &Path) -> Option<String> {
    const MAX_LINES: usize = 10;
    const MAX_CHARS: usize = 2_000;
    let text = std::fs::read_to_string(log).ok()?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(MAX_LINES)..].join("\n");
    let start = tail
        .char_indices()
        .rev()
        .nth(MAX_CHARS)
        .map_or(0, |(i, _)| i);
    let tail = tail[start..].trim().to_string();
    (!tail.is_empty()).then_some(tail)
}
