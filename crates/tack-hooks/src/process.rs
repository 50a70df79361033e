//! Running one command hook: its own process group, JSON on stdin, capped output,
//! a timeout that kills the whole group (TERM, then KILL), and nothing a hook does
//! (hanging, never reading stdin, flooding output, dying) can hang or crash tack.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::config::CommandHook;

/// Bytes of stdout and of stderr kept per hook; the rest is read and dropped.
pub const OUTPUT_CAP: usize = 1024 * 1024;
/// After TERM, how long the group gets before KILL.
const KILL_GRACE: Duration = Duration::from_millis(500);
/// After the hook exits, how long to wait for its output pipes to close (a
/// background child may keep them open).
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// How a hook process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by tack).
    Signaled(i32),
    /// Ran past its timeout; its process group was killed.
    TimedOut(Duration),
    /// The caller cancelled; its process group was killed.
    Cancelled,
    /// Could not be started.
    SpawnFailed(String),
    /// A callback hook failed: its client answered with an error or a
    /// malformed answer, could not be reached, or (with `block`) timed out.
    /// `block`: the hook was registered with `onFailure: "block"`.
    CallbackFailed { error: String, block: bool },
}

/// One hook's run: status and captured output (lossily decoded as UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// The hook's command.
    pub command: String,
    /// How it ended.
    pub status: RunStatus,
    /// Captured stdout (at most [`OUTPUT_CAP`] bytes).
    pub stdout: String,
    /// Captured stderr (at most [`OUTPUT_CAP`] bytes).
    pub stderr: String,
    /// True when stdout or stderr exceeded the cap.
    pub truncated: bool,
    /// Wall time.
    pub duration: Duration,
}

#[derive(Default)]
struct Capture {
    data: Vec<u8>,
    truncated: bool,
}

/// Kills the process group when dropped while armed (the caller dropped the
/// future, or a timeout fired).
struct GroupGuard {
    pgid: i32,
    armed: bool,
}

impl GroupGuard {
    fn signal(&self, sig: i32) {
        tack_sys::signal_group(self.pgid, sig);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            self.signal(libc::SIGKILL);
        }
    }
}

async fn read_capped<R: AsyncRead + Unpin>(mut r: R, into: Arc<Mutex<Capture>>) {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut c = into.lock().unwrap_or_else(|e| e.into_inner());
                let room = OUTPUT_CAP.saturating_sub(c.data.len());
                if n > room {
                    c.truncated = true;
                }
                let take = n.min(room);
                c.data.extend_from_slice(&chunk[..take]);
            }
        }
    }
}

fn take(c: &Arc<Mutex<Capture>>) -> (String, bool) {
    let c = c.lock().unwrap_or_else(|e| e.into_inner());
    (String::from_utf8_lossy(&c.data).into_owned(), c.truncated)
}

/// Runs one hook to completion, timeout or cancellation.
pub(crate) async fn run_hook(
    hook: &CommandHook,
    input: Arc<Vec<u8>>,
    cwd: &Path,
    env: &[(String, String)],
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookRun {
    let started = Instant::now();
    let mut cmd = match &hook.args {
        Some(args) => {
            let mut c = Command::new(&hook.command);
            c.args(args);
            c
        }
        None => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(&hook.command);
            c
        }
    };
    cmd.current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return HookRun {
                command: hook.command.clone(),
                status: RunStatus::SpawnFailed(e.to_string()),
                stdout: String::new(),
                stderr: String::new(),
                truncated: false,
                duration: started.elapsed(),
            };
        }
    };
    let mut guard = GroupGuard {
        pgid: child.id().map_or(0, |p| p as i32),
        armed: true,
    };
    // The writer ignores every error: a hook may exit or close stdin without
    // reading (EPIPE; Rust ignores SIGPIPE).
    let writer = child.stdin.take().map(|mut stdin| {
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        })
    });
    let out = Arc::new(Mutex::new(Capture::default()));
    let err = Arc::new(Mutex::new(Capture::default()));
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| tokio::spawn(read_capped(s, Arc::clone(&out)))),
        child
            .stderr
            .take()
            .map(|s| tokio::spawn(read_capped(s, Arc::clone(&err)))),
    ]
    .into_iter()
    .flatten()
    .collect();

    let waited = tokio::select! {
        s = child.wait() => Ok(s),
        () = tokio::time::sleep(timeout) => Err(RunStatus::TimedOut(timeout)),
        () = cancel.cancelled() => Err(RunStatus::Cancelled),
    };
    let status = match waited {
        Ok(Ok(s)) => {
            guard.armed = false;
            use std::os::unix::process::ExitStatusExt;
            match (s.code(), s.signal()) {
                (Some(c), _) => RunStatus::Exited(c),
                (None, Some(sig)) => RunStatus::Signaled(sig),
                (None, None) => RunStatus::Exited(-1),
            }
        }
        Ok(Err(e)) => RunStatus::SpawnFailed(format!("waiting for the hook failed: {e}")),
        Err(status) => {
            guard.signal(libc::SIGTERM);
            let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
            // Background children that ignore TERM, or outlive the leader.
            guard.signal(libc::SIGKILL);
            let _ = child.wait().await;
            status
        }
    };
    for r in readers {
        let abort = r.abort_handle();
        if tokio::time::timeout(DRAIN_GRACE, r).await.is_err() {
            abort.abort();
        }
    }
    if let Some(w) = writer {
        w.abort();
    }
    drop(guard);
    let (stdout, t1) = take(&out);
    let (stderr, t2) = take(&err);
    HookRun {
        command: hook.command.clone(),
        status,
        stdout,
        stderr,
        truncated: t1 || t2,
        duration: started.elapsed(),
    }
}
