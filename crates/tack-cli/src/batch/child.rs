//! One task's session: `tack -p --output-format json` run as a child process
//! in the task's folder, the prompt on stdin. A process per task keeps tasks
//! apart (a crash or a runaway tool ends one task, not the batch) and gives
//! each exactly print mode's behaviour, `--timeout` included.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

/// How a task's session ended.
#[derive(Debug)]
pub struct ChildOutcome {
    /// The exit status's code; `None` when killed by a signal.
    pub exit_code: Option<i32>,
    /// The session's `result` record, when it printed one.
    pub result: Option<serde_json::Value>,
    /// The end of its stderr (for a session that failed before its result).
    pub stderr_tail: String,
    /// Stopped by the batch (Ctrl+C, or past its hard limit).
    pub stopped: bool,
}

impl ChildOutcome {
    /// The session ended by itself: it exited (not killed by a signal,
    /// whoever sent it) and the batch did not stop it. Only such a session's
    /// work is a task's result.
    pub fn ended_by_itself(&self) -> bool {
        self.exit_code.is_some() && !self.stopped
    }
}

/// What to run: the flags common to every task, then the task's own.
pub struct ChildSpec<'a> {
    pub program: &'a Path,
    pub args: Vec<String>,
    pub cwd: &'a Path,
    pub prompt: &'a str,
    /// After this long the session is killed (its own `--timeout` should
    /// have ended it well before).
    pub hard_limit: Option<Duration>,
}

const STDERR_TAIL: usize = 4_000;

/// Runs the session to its end, or until `stop` (then it is ended, and the
/// outcome says `stopped`). When this returns, no process of the session's
/// group is left to write in its folder: the patch taken next is final.
pub async fn run_child(
    spec: ChildSpec<'_>,
    stop: &CancellationToken,
) -> std::io::Result<ChildOutcome> {
    let mut command = Command::new(spec.program);
    command
        .args(&spec.args)
        .current_dir(spec.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: the terminal's Ctrl+C reaches the batch,
        // which stops each session itself.
        .process_group(0)
        .kill_on_drop(true);
    let batch = std::process::id();
    // SAFETY: prctl and getppid are async-signal-safe; nothing else runs
    // between fork and exec.
    unsafe {
        command.pre_exec(move || {
            // A batch killed with SIGKILL takes its sessions with it.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            // It may have died before the line above: then nothing would.
            if u32::try_from(libc::getppid()) != Ok(batch) {
                return Err(std::io::Error::other("the batch is gone"));
            }
            Ok(())
        });
    }
    let mut child = command.spawn()?;
    let pid = child.id().and_then(|p| i32::try_from(p).ok());
    let mut stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let write_in = async {
        if let Some(mut pipe) = stdin.take() {
            // A session that ends before reading its prompt says why on
            // stderr and in its exit code: that is its outcome.
            let _ = pipe.write_all(spec.prompt.as_bytes()).await;
        }
    };
    let read_out = read_all(stdout.as_mut());
    let read_err = read_all(stderr.as_mut());
    let limit = async {
        match spec.hard_limit {
            Some(limit) => tokio::time::sleep(limit).await,
            None => std::future::pending().await,
        }
    };
    let ((), out, err) = tokio::select! {
        // A session that has ended is taken as ended, whatever else is ready.
        biased;
        all = async { tokio::join!(write_in, read_out, read_err) } => all,
        () = stop.cancelled() => return stopped(&mut child, pid).await,
        () = limit => return stopped(&mut child, pid).await,
    };
    // Its output is closed, so it has ended (or is ending): whatever is
    // left in its group (a tool's straggler) is stopped before the patch.
    if let Some(pid) = pid {
        tack_sys::process_group::signal_group(pid, libc::SIGKILL);
    }
    let status = child.wait().await?;
    let text = String::from_utf8_lossy(&err);
    let start = text.len().saturating_sub(STDERR_TAIL);
    let start = (start..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    Ok(ChildOutcome {
        exit_code: status.code(),
        result: parse_result(&out),
        stderr_tail: text[start..].trim().to_owned(),
        stopped: false,
    })
}

async fn read_all<R: AsyncRead + Unpin>(pipe: Option<&mut R>) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes).await;
    }
    bytes
}

/// Stops a session and what it started: TERM to its group, KILL after 2 s.
async fn stopped(
    child: &mut tokio::process::Child,
    pid: Option<i32>,
) -> std::io::Result<ChildOutcome> {
    let status = match pid {
        Some(pid) => {
            tack_sys::process_group::signal_group(pid, libc::SIGTERM);
            let waited = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
            tack_sys::process_group::signal_group(pid, libc::SIGKILL);
            match waited {
                Ok(status) => status?,
                Err(_) => child.wait().await?,
            }
        }
        None => {
            child.kill().await?;
            child.wait().await?
        }
    };
    Ok(ChildOutcome {
        exit_code: status.code(),
        result: None,
        stderr_tail: String::new(),
        stopped: true,
    })
}

/// The `result` record print mode's json format prints last.
fn parse_result(out: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(out);
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let value: serde_json::Value = serde_json::from_str(last).ok()?;
    (value.get("type").and_then(|t| t.as_str()) == Some("result")).then_some(value)
}
