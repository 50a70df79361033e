//! The user's own commands: `!command` (run in the shell, its input and
//! output appended to the conversation the way Claude Code does:
//! `<bash-input>`, `<bash-stdout>` / `<bash-stderr>` text, so the model sees
//! what was run) and `#note` (a line for the project's memory file).
//!
//! The command runs through tack-sys's runner, like hooks and the status
//! line: its own process group, stopped whole at the timeout or an interrupt.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tack_protocol::{ContentBlock, Message};
use tack_sys::run::{CommandSpec, Ended, run_command};
use tokio_util::sync::CancellationToken;

use serde::{Deserialize, Serialize};

/// How long a command may run: the Bash tool's default.
pub const SHELL_TIMEOUT: Duration = tack_tool::DEFAULT_BASH_TIMEOUT;
/// Output kept per stream: the Bash tool's cap.
const MAX_OUTPUT: usize = tack_tools::BASH_MAX_OUTPUT;

/// Why a `#note` was not written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum NoteError {
    /// The project's memory file could not be written.
    #[error("{}: {message}", path.display())]
    Write { path: PathBuf, message: String },
}

/// What a `!command` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellRun {
    pub command: String,
    pub stdout: String,
    pub stderr: String,
    /// The exit code; `None` when it did not exit by itself (see `stopped`).
    pub code: Option<i32>,
    /// Why it did not finish: timed out, interrupted, killed by a signal,
    /// could not start.
    pub stopped: Option<String>,
}

impl ShellRun {
    /// The user message that carries it into the conversation.
    pub fn message(&self) -> Message {
        let mut stderr = self.stderr.clone();
        if let Some(why) = &self.stopped {
            stderr.push_str(&format!("\n{why}"));
        }
        Message::user(vec![
            ContentBlock::text(format!("<bash-input>{}</bash-input>", self.command)),
            ContentBlock::text(format!(
                "<bash-stdout>{}</bash-stdout><bash-stderr>{}</bash-stderr>",
                self.stdout,
                stderr.trim_start_matches('\n')
            )),
        ])
    }

    /// What the user sees.
    pub fn shown(&self) -> String {
        let mut text = shell_output_shown(&self.stdout, &self.stderr);
        match (&self.stopped, self.code) {
            (Some(why), _) => text.push_str(&format!("\n({why})")),
            (None, Some(0) | None) => {}
            (None, Some(code)) => text.push_str(&format!("\n(exit code {code})")),
        }
        text
    }
}

/// A command's output as shown: stdout, then stderr; "(no output)" if neither.
pub fn shell_output_shown(stdout: &str, stderr: &str) -> String {
    let parts: Vec<&str> = [stdout.trim_end(), stderr.trim_end()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if parts.is_empty() {
        "(no output)".to_owned()
    } else {
        parts.join("\n")
    }
}

/// Runs `command` with `sh -c` in `cwd` until it ends, `timeout` passes or
/// `cancel` fires.
pub(crate) async fn run_shell(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    cancel: CancellationToken,
) -> ShellRun {
    let spec = CommandSpec::shell(command, cwd, timeout, MAX_OUTPUT);
    let done = run_command(&spec, cancel.cancelled()).await;
    let cut = |text: String| {
        if done.truncated && text.len() >= MAX_OUTPUT {
            format!("{text}\n… output cut at {MAX_OUTPUT} bytes")
        } else {
            text
        }
    };
    let (code, stopped) = match &done.ended {
        Ended::Exited(code) => (Some(*code), None),
        Ended::Signaled(sig) => (None, Some(format!("killed by signal {sig}"))),
        Ended::TimedOut(t) => (
            None,
            Some(format!(
                "timed out after {}",
                humantime::format_duration(*t)
            )),
        ),
        Ended::Cancelled => (None, Some("interrupted".to_owned())),
        Ended::SpawnFailed(e) => (None, Some(format!("could not run it: {e}"))),
    };
    ShellRun {
        command: command.to_owned(),
        stdout: cut(done.stdout.clone()),
        stderr: cut(done.stderr.clone()),
        code,
        stopped,
    }
}

/// Appends `note` as a list item to the memory file of the project at
/// `project_dir` (tack-core's choice of file, on a line of its own); returns
/// the file.
pub(crate) fn add_note(project_dir: &Path, note: &str) -> Result<PathBuf, NoteError> {
    let file = tack_core::context::project_memory_file(project_dir);
    append_note(&file, note).map_err(|e| NoteError::Write {
        path: file.clone(),
        message: e.to_string(),
    })?;
    Ok(file)
}

fn append_note(file: &Path, note: &str) -> std::io::Result<()> {
    let note = note.trim();
    let ends_in_newline = match std::fs::read(file) {
        Ok(bytes) => bytes.is_empty() || bytes.ends_with(b"\n"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => return Err(e),
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    let lead = if ends_in_newline { "" } else { "\n" };
    f.write_all(format!("{lead}- {note}\n").as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[tokio::test]
    async fn a_command_runs_in_the_directory_and_keeps_both_streams() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        let command = "ls; echo oops >&2; exit 3";
        let run = run_shell(command, dir.path(), SHELL_TIMEOUT, CancellationToken::new()).await;
        assert_eq!(
            run,
            ShellRun {
                command: command.into(),
                stdout: "a.txt\n".into(),
                stderr: "oops\n".into(),
                code: Some(3),
                stopped: None,
            }
        );
        assert_eq!(run.shown(), "a.txt\noops\n(exit code 3)");
        assert_eq!(
            run.message(),
            Message::user(vec![
                ContentBlock::text("<bash-input>ls; echo oops >&2; exit 3</bash-input>"),
                ContentBlock::text(
                    "<bash-stdout>a.txt\n</bash-stdout><bash-stderr>oops\n</bash-stderr>"
                ),
            ])
        );
    }

    #[tokio::test]
    async fn a_command_past_its_timeout_is_stopped_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let run = run_shell(
            "echo started; sleep 30",
            dir.path(),
            Duration::from_millis(300),
            CancellationToken::new(),
        )
        .await;
        assert_eq!(run.shown(), "started\n(timed out after 300ms)");
        assert_eq!(
            run.message().content[1],
            ContentBlock::text(
                "<bash-stdout>started\n</bash-stdout><bash-stderr>timed out after 300ms</bash-stderr>"
            )
        );
    }

    #[test]
    fn notes_go_to_the_project_memory_file_on_lines_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "# Agents\nno newline").unwrap();
        assert_eq!(
            add_note(dir.path(), " use tabs ").unwrap(),
            dir.path().join("AGENTS.md")
        );
        add_note(dir.path(), "run make test").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("AGENTS.md")).unwrap(),
            "# Agents\nno newline\n- use tabs\n- run make test\n"
        );
        assert_eq!(shell_output_shown("", "\n"), "(no output)");
    }
}
