//! Commands in the front end's client's terminal: an editor driving tack
//! over ACP that offers terminals runs a foreground Bash command in one it
//! shows live (`terminal/*`). The one seam: Bash asks
//! [`ToolEnv::client_terminal`](crate::ToolEnv::client_terminal) first and
//! runs the command itself when it has none (or the command must stay in
//! tack's sandbox). Permission, hooks and the result's cap stay Bash's.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// One command for the client's terminal.
#[derive(Debug, Clone, Copy)]
pub struct TerminalCommand<'a> {
    /// The command line, as the model wrote it (the client's shell runs it).
    pub command: &'a str,
    pub cwd: &'a Path,
    /// The most output the terminal keeps (it drops the start beyond it).
    pub output_byte_limit: u64,
    /// When the command is killed.
    pub timeout: Duration,
    /// The tool call the terminal belongs to, and its input (the client
    /// shows the terminal in that call).
    pub tool_use_id: &'a str,
    pub tool_name: &'a str,
    pub input: &'a Value,
    /// The user's abort: the command is killed and the call returns at once.
    pub cancel: &'a CancellationToken,
}

/// How a command in the client's terminal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalEnd {
    /// It exited with a code, or was killed by a signal (its name).
    Exited {
        code: Option<u32>,
        signal: Option<String>,
    },
    /// Killed at its timeout.
    TimedOut,
    /// Killed because the user aborted the call.
    Cancelled,
}

/// What the terminal held when the command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalRun {
    /// stdout and stderr as the terminal showed them, one stream.
    pub output: String,
    /// The start of the output was dropped (over the byte limit).
    pub truncated: bool,
    pub end: TerminalEnd,
}

/// Terminals through the client.
pub trait ClientTerminal: Send + Sync + std::fmt::Debug {
    /// Runs `command` in a terminal of the client; `None` when the client
    /// has none to offer (the tool runs it itself), an error when the client
    /// failed or did not answer in time.
    fn run<'a>(
        &'a self,
        command: TerminalCommand<'a>,
    ) -> BoxFuture<'a, Option<Result<TerminalRun, String>>>;
}

/// A session's client terminal, as options carry it (equal when it is the
/// same one).
#[derive(Debug, Clone)]
pub struct ClientTerminals(pub Arc<dyn ClientTerminal>);

impl PartialEq for ClientTerminals {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl ClientTerminals {
    pub async fn run(&self, command: TerminalCommand<'_>) -> Option<Result<TerminalRun, String>> {
        self.0.run(command).await
    }
}
