//! stdio servers: the child leads its own process group, its stderr goes to a
//! log file, and the whole group is killed when the connection goes away.

use std::os::fd::OwnedFd;
use std::path::Path;
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, Interest, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use crate::config::StdioConfig;

/// Kills the child's process group when dropped: covers a start-up that timed
/// out, a manager dropped without [`crate::McpManager::shutdown`], and any
/// grandchild the server started.
#[derive(Debug)]
pub(crate) struct ChildGuard {
    pgid: i32,
    /// Held so tokio reaps the server once it is gone (`kill_on_drop`).
    _child: Child,
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
        let fd = match tack_sys::pidfd::open(pid) {
            Ok(Some(fd)) => fd,
            Ok(None) => {
                return ExitWatch {
                    fd: None,
                    gone: true,
                };
            }
            Err(_) => {
                return ExitWatch {
                    fd: None,
                    gone: false,
                };
            }
        };
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

/// The transport rmcp reads and writes: the server's stdout (watched for
/// oversized lines) and stdin.
pub(crate) type StdioTransport = (LineLimit<ChildStdout>, ChildStdin);

/// Starts `config`'s command in `cwd` with `env` (settings `env`, then the
/// server's own) added to tack's environment, stderr appended to `log`. The
/// receiver counts the messages the server sent over rmcp's line limit.
pub(crate) fn spawn(
    config: &StdioConfig,
    cwd: &Path,
    env: &[(String, String)],
    log: &Path,
) -> Result<(StdioTransport, ChildGuard, ExitWatch, watch::Receiver<u64>), String> {
    let stderr = tack_sys::private_file::create_private(log)
        .map_err(|e| format!("cannot create the log file {}: {e}", log.display()))?;
    let mut child = Command::new(&config.command)
        .args(&config.args)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .envs(&config.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr))
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", config.command))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(format!("cannot start `{}`: no pipes", config.command));
    };
    let pid = child.id().and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
    let (oversized, seen) = watch::channel(0);
    let guard = ChildGuard {
        pgid: pid,
        _child: child,
    };
    let stdout = LineLimit {
        inner: stdout,
        line: 0,
        counted: false,
        oversized,
    };
    Ok(((stdout, stdin), guard, ExitWatch::open(pid), seen))
}

/// Passes a server's stdout through and counts each line longer than rmcp's
/// limit, which rmcp drops without a word: the call waiting for that message
/// would otherwise wait for its timeout.
pub(crate) struct LineLimit<R> {
    inner: R,
    /// Bytes of the current line so far, its newline included.
    line: usize,
    /// The current line has been counted already.
    counted: bool,
    oversized: watch::Sender<u64>,
}

impl<R> LineLimit<R> {
    fn scan(&mut self, bytes: &[u8]) {
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            self.line = self.line.saturating_add(piece.len());
            if self.line > DEFAULT_MAX_LINE_LENGTH && !self.counted {
                self.counted = true;
                self.oversized.send_modify(|n| *n += 1);
            }
            if piece.ends_with(b"\n") {
                self.line = 0;
                self.counted = false;
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineLimit<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &poll {
            this.scan(&buf.filled()[before..]);
        }
        poll
    }
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
