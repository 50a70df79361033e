//! The `statusLine` command of the settings, run as Claude Code runs it: the
//! session's facts as JSON on stdin, the first line of stdout is the status line.
//! It runs through tack-sys's runner, like hooks and the user's `!` commands.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};
use tack_sys::run::{CommandSpec, Ended, run_command};

/// `{"type": "command", "command": "...", "padding": 0}` from settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusLineCommand {
    pub command: String,
    pub padding: u16,
}

impl StatusLineCommand {
    /// Reads the `statusLine` settings object; `None` unless it is a command.
    pub fn from_settings(setting: &Map<String, Value>) -> Option<StatusLineCommand> {
        if setting.get("type").and_then(Value::as_str) != Some("command") {
            return None;
        }
        let command = setting.get("command")?.as_str()?.trim().to_string();
        if command.is_empty() {
            return None;
        }
        let padding = setting.get("padding").and_then(Value::as_u64).unwrap_or(0);
        Some(StatusLineCommand {
            command,
            padding: u16::try_from(padding).unwrap_or(0),
        })
    }
}

/// What the command gets on stdin (Claude Code's field names).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StatusLineInput {
    pub session_id: String,
    pub transcript_path: String,
    pub cwd: String,
    pub model_id: String,
    pub model_display_name: String,
    pub project_dir: String,
    pub version: String,
    pub total_cost_usd: f64,
    pub total_duration_ms: u64,
    pub total_api_duration_ms: u64,
    pub total_lines_added: u64,
    pub total_lines_removed: u64,
}

impl StatusLineInput {
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "hook_event_name": "Status",
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
            "model": {"id": self.model_id, "display_name": self.model_display_name},
            "workspace": {"current_dir": self.cwd, "project_dir": self.project_dir},
            "version": self.version,
            "output_style": {"name": "default"},
            "cost": {
                "total_cost_usd": self.total_cost_usd,
                "total_duration_ms": self.total_duration_ms,
                "total_api_duration_ms": self.total_api_duration_ms,
                "total_lines_added": self.total_lines_added,
                "total_lines_removed": self.total_lines_removed,
            },
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StatusLineError {
    #[error("statusLine command `{command}` could not run: {reason}")]
    Spawn { command: String, reason: String },
    #[error("statusLine command `{command}` took longer than {timeout:?}")]
    Timeout { command: String, timeout: Duration },
    #[error("statusLine command `{command}` failed: {how}")]
    Failed { command: String, how: String },
}

/// Output read from the command, at most (one line is wanted).
const MAX_OUTPUT: usize = 64 * 1024;

/// Runs the command in `cwd` with `input` on stdin (tack-sys's runner: its
/// own process group, stopped whole if it outlives `timeout`); returns the
/// first line of its output, padded on the left by `padding` spaces.
pub async fn run_status_line(
    cmd: &StatusLineCommand,
    input: &StatusLineInput,
    cwd: &Path,
    timeout: Duration,
) -> Result<String, StatusLineError> {
    let command = cmd.command.clone();
    let mut spec = CommandSpec::shell(&cmd.command, cwd, timeout, MAX_OUTPUT);
    spec.stdin = Some(Arc::new(input.to_json().to_string().into_bytes()));
    let done = run_command(&spec, std::future::pending()).await;
    let how = match done.ended {
        Ended::Exited(0) => None,
        Ended::Exited(code) => Some(format!("exit code {code}")),
        Ended::Signaled(sig) => Some(format!("killed by signal {sig}")),
        Ended::Cancelled => Some("cancelled".to_owned()),
        Ended::TimedOut(timeout) => return Err(StatusLineError::Timeout { command, timeout }),
        Ended::SpawnFailed(reason) => return Err(StatusLineError::Spawn { command, reason }),
    };
    if let Some(how) = how {
        return Err(StatusLineError::Failed { command, how });
    }
    let first = done
        .stdout
        .lines()
        .next()
        .unwrap_or("")
        .trim_end()
        .to_string();
    Ok(format!("{}{first}", " ".repeat(usize::from(cmd.padding))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn cmd(command: &str) -> StatusLineCommand {
        StatusLineCommand {
            command: command.into(),
            padding: 0,
        }
    }

    #[test]
    fn reads_the_setting() {
        let setting = json!({"type": "command", "command": "~/.claude/sl.sh", "padding": 2});
        assert_eq!(
            StatusLineCommand::from_settings(setting.as_object().unwrap()),
            Some(StatusLineCommand {
                command: "~/.claude/sl.sh".into(),
                padding: 2
            })
        );
        let other = json!({"type": "static"});
        assert_eq!(
            StatusLineCommand::from_settings(other.as_object().unwrap()),
            None
        );
    }

    #[tokio::test]
    async fn the_command_gets_json_on_stdin() {
        let dir = tempfile::tempdir().unwrap();
        let input = StatusLineInput {
            session_id: "abc".into(),
            model_id: "claude-sonnet-4-5".into(),
            ..StatusLineInput::default()
        };
        // Echo stdin back, then a second line that must be ignored.
        let line = run_status_line(
            &cmd("cat; echo; echo second"),
            &input,
            dir.path(),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
        let parsed: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(parsed, input.to_json());
        let padded = StatusLineCommand {
            command: "echo hi".into(),
            padding: 3,
        };
        assert_eq!(
            run_status_line(&padded, &input, dir.path(), Duration::from_secs(10))
                .await
                .unwrap(),
            "   hi"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_command_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let err = run_status_line(
            &cmd("sleep 30"),
            &StatusLineInput::default(),
            dir.path(),
            Duration::from_millis(500),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, StatusLineError::Timeout { .. }), "{err}");
    }

    #[tokio::test]
    async fn a_failing_command_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = run_status_line(
            &cmd("exit 3"),
            &StatusLineInput::default(),
            dir.path(),
            Duration::from_secs(10),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, StatusLineError::Failed { .. }), "{err}");
    }
}
