//! Running one command hook: its own process group, JSON on stdin, capped output,
//! a timeout that kills the whole group (TERM, then KILL), and nothing a hook does
//! (hanging, never reading stdin, flooding output, dying) can hang or crash tack.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tack_sys::run::{CommandSpec, Ended, Program, run_command};
use tokio_util::sync::CancellationToken;

use crate::config::CommandHook;

/// Bytes of stdout and of stderr kept per hook; the rest is read and dropped.
pub const OUTPUT_CAP: usize = 1024 * 1024;

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

/// Runs one hook to completion, timeout or cancellation (tack-sys's runner:
/// its own process group, stopped whole).
pub(crate) async fn run_hook(
    hook: &CommandHook,
    input: Arc<Vec<u8>>,
    cwd: &Path,
    env: &[(String, String)],
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookRun {
    let program = match &hook.args {
        Some(args) => Program::Exec {
            program: hook.command.clone(),
            args: args.clone(),
        },
        None => Program::Shell(hook.command.clone()),
    };
    let spec = CommandSpec {
        program,
        cwd: cwd.to_path_buf(),
        env: env.iter().chain(&hook.env).cloned().collect(),
        stdin: Some(input),
        timeout,
        output_cap: OUTPUT_CAP,
    };
    let done = run_command(&spec, cancel.cancelled()).await;
    HookRun {
        command: hook.command.clone(),
        status: match done.ended {
            Ended::Exited(code) => RunStatus::Exited(code),
            Ended::Signaled(sig) => RunStatus::Signaled(sig),
            Ended::TimedOut(t) => RunStatus::TimedOut(t),
            Ended::Cancelled => RunStatus::Cancelled,
            Ended::SpawnFailed(e) => RunStatus::SpawnFailed(e),
        },
        stdout: done.stdout,
        stderr: done.stderr,
        truncated: done.truncated,
        duration: done.duration,
    }
}
