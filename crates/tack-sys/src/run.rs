//! Running a command to its end, once for every caller: hooks, the status
//! line and the user's `!` commands.
//!
//! The command leads its own process group; it gets its stdin (or
//! `/dev/null`), its output is read concurrently and kept up to a cap (the
//! rest is read and dropped, so a flood cannot block it), and a timeout or a
//! cancel stops the whole group: TERM, a grace period, then KILL, so no
//! grandchild survives. Nothing the command does (hang, never read its
//! stdin, flood its output, die) can hang or crash the caller; dropping the
//! future kills the group too.

use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use crate::process_group::signal_group;

/// After TERM, how long the group gets before KILL.
const KILL_GRACE: Duration = Duration::from_millis(500);
/// After the command exits, how long to wait for its output pipes to close (a
/// background child may keep them open).
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// A command line for `sh -c`.
    Shell(String),
    /// A program and its arguments, no shell.
    Exec { program: String, args: Vec<String> },
}

/// A command and how it runs.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    pub program: Program,
    pub cwd: PathBuf,
    /// Added to the inherited environment.
    pub env: Vec<(String, String)>,
    /// Written to its stdin, which is then closed; `None`: `/dev/null`.
    pub stdin: Option<Arc<Vec<u8>>>,
    pub timeout: Duration,
    /// Bytes of stdout and of stderr kept each.
    pub output_cap: usize,
}

impl CommandSpec {
    /// `sh -c command` in `cwd`, no stdin, no extra environment.
    pub fn shell(command: &str, cwd: impl Into<PathBuf>, timeout: Duration, cap: usize) -> Self {
        CommandSpec {
            program: Program::Shell(command.to_owned()),
            cwd: cwd.into(),
            env: Vec::new(),
            stdin: None,
            timeout,
            output_cap: cap,
        }
    }
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Exited with this code.
    Exited(i32),
    /// Killed by this signal (not by us).
    Signaled(i32),
    /// Ran past its timeout; its process group was stopped.
    TimedOut(Duration),
    /// The caller cancelled; its process group was stopped.
    Cancelled,
    /// Could not be started (or waited for).
    SpawnFailed(String),
}

/// A command's end and its output (decoded as UTF-8, lossily).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub ended: Ended,
    /// At most [`CommandSpec::output_cap`] bytes (cut on a byte, so a
    /// character at the cut may be replaced).
    pub stdout: String,
    pub stderr: String,
    /// True when stdout or stderr passed the cap.
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

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            signal_group(self.pgid, libc::SIGKILL);
        }
    }
}

async fn read_capped<R: AsyncRead + Unpin>(mut r: R, cap: usize, into: Arc<Mutex<Capture>>) {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut c = into.lock().unwrap_or_else(PoisonError::into_inner);
                let room = cap.saturating_sub(c.data.len());
                if n > room {
                    c.truncated = true;
                }
                c.data.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
}

fn take(c: &Arc<Mutex<Capture>>) -> (String, bool) {
    let c = c.lock().unwrap_or_else(PoisonError::into_inner);
    (String::from_utf8_lossy(&c.data).into_owned(), c.truncated)
}

fn command(spec: &CommandSpec) -> tokio::process::Command {
    let mut cmd = match &spec.program {
        Program::Exec { program, args } => {
            let mut c = tokio::process::Command::new(program);
            c.args(args);
            c
        }
        Program::Shell(line) => {
            let mut c = tokio::process::Command::new("sh");
            c.arg("-c").arg(line);
            c
        }
    };
    let stdin = if spec.stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    };
    cmd.current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    cmd
}

/// Runs `spec` to its end, its timeout, or until `cancel` resolves.
pub async fn run_command(spec: &CommandSpec, cancel: impl Future<Output = ()>) -> Finished {
    let started = Instant::now();
    let mut child = match command(spec).spawn() {
        Ok(c) => c,
        Err(e) => {
            return Finished {
                ended: Ended::SpawnFailed(e.to_string()),
                stdout: String::new(),
                stderr: String::new(),
                truncated: false,
                duration: started.elapsed(),
            };
        }
    };
    let mut guard = GroupGuard {
        pgid: child.id().and_then(|p| i32::try_from(p).ok()).unwrap_or(0),
        armed: true,
    };
    // The writer ignores every error: a command may exit or close stdin
    // without reading (EPIPE; Rust ignores SIGPIPE).
    let writer = match (child.stdin.take(), spec.stdin.clone()) {
        (Some(mut stdin), Some(input)) => Some(tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        })),
        _ => None,
    };
    let out = Arc::new(Mutex::new(Capture::default()));
    let err = Arc::new(Mutex::new(Capture::default()));
    let cap = spec.output_cap;
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| tokio::spawn(read_capped(s, cap, Arc::clone(&out)))),
        child
            .stderr
            .take()
            .map(|s| tokio::spawn(read_capped(s, cap, Arc::clone(&err)))),
    ]
    .into_iter()
    .flatten()
    .collect();

    let waited = tokio::select! {
        s = child.wait() => Ok(s),
        () = tokio::time::sleep(spec.timeout) => Err(Ended::TimedOut(spec.timeout)),
        () = cancel => Err(Ended::Cancelled),
    };
    let ended = match waited {
        Ok(Ok(s)) => {
            guard.armed = false;
            use std::os::unix::process::ExitStatusExt;
            match (s.code(), s.signal()) {
                (Some(c), _) => Ended::Exited(c),
                (None, Some(sig)) => Ended::Signaled(sig),
                (None, None) => Ended::Exited(-1),
            }
        }
        Ok(Err(e)) => Ended::SpawnFailed(format!("waiting for the process failed: {e}")),
        Err(ended) => {
            signal_group(guard.pgid, libc::SIGTERM);
            let _ = tokio::time::timeout(KILL_GRACE, child.wait()).await;
            // Background children that ignore TERM, or outlive the leader.
            signal_group(guard.pgid, libc::SIGKILL);
            let _ = child.wait().await;
            ended
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
    Finished {
        ended,
        stdout,
        stderr,
        truncated: t1 || t2,
        duration: started.elapsed(),
    }
}
