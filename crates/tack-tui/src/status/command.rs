//! The `statusLine` command of the settings, run as Claude Code runs it: the
//! session's facts as JSON on stdin, the first line of stdout is the status line.
//! It runs through tack-sys's runner, like hooks and the user's `!` commands.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tack_sys::run::{CommandSpec, Ended, run_command};

use super::StatusLineInput;

/// `{"type": "command", "command": "...", "padding": 0, "refreshInterval": 5}`
/// from settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusLineCommand {
    pub command: String,
    pub padding: u16,
    /// Also run every this often (at least a second), not only on events.
    pub refresh_interval: Option<Duration>,
    /// `hideVimModeIndicator`: the script shows `vim.mode` itself.
    pub hide_vim_mode_indicator: bool,
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
        // Whole seconds, 1 at least (Claude Code's minimum); not a number: off.
        let refresh_interval = setting
            .get("refreshInterval")
            .and_then(Value::as_f64)
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| Duration::from_secs_f64(s.clamp(1.0, 86_400.0)));
        Some(StatusLineCommand {
            command,
            padding: u16::try_from(padding).unwrap_or(0),
            refresh_interval,
            hide_vim_mode_indicator: setting
                .get("hideVimModeIndicator")
                .and_then(Value::as_bool)
                .unwrap_or(false),
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

/// Runs the command in `cwd` with `input` on stdin and the terminal's
/// `(columns, lines)` in `COLUMNS` and `LINES` (its output is captured, so
/// it cannot ask the terminal); tack-sys's runner: its own process group,
/// stopped whole if it outlives `timeout`. Returns its output's lines (one
/// row each), padded on the left by `padding` spaces.
pub async fn run_status_line(
    cmd: &StatusLineCommand,
    input: &StatusLineInput,
    cwd: &Path,
    size: (u16, u16),
    timeout: Duration,
) -> Result<String, StatusLineError> {
    let command = cmd.command.clone();
    let mut spec = CommandSpec::shell(&cmd.command, cwd, timeout, MAX_OUTPUT);
    spec.stdin = Some(Arc::new(input.to_json().to_string().into_bytes()));
    spec.env.push(("COLUMNS".into(), size.0.to_string()));
    spec.env.push(("LINES".into(), size.1.to_string()));
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
    // Every line it printed is a row (Claude Code shows them all), each
    // padded; trailing blank lines are dropped.
    let pad = " ".repeat(usize::from(cmd.padding));
    let rows: Vec<String> = done
        .stdout
        .lines()
        .map(|l| format!("{pad}{}", l.trim_end()))
        .collect();
    let keep = rows
        .iter()
        .rposition(|r| !r.trim().is_empty())
        .map_or(0, |i| i + 1);
    Ok(rows[..keep].join("\n"))
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
            refresh_interval: None,
            hide_vim_mode_indicator: false,
        }
    }

    #[test]
    fn reads_the_setting() {
        let setting = json!({"type": "command", "command": "~/.claude/sl.sh", "padding": 2});
        assert_eq!(
            StatusLineCommand::from_settings(setting.as_object().unwrap()),
            Some(StatusLineCommand {
                padding: 2,
                ..cmd("~/.claude/sl.sh")
            })
        );
        let timed = json!({"type": "command", "command": "x", "refreshInterval": 0.2, "hideVimModeIndicator": true});
        assert_eq!(
            StatusLineCommand::from_settings(timed.as_object().unwrap()),
            Some(StatusLineCommand {
                refresh_interval: Some(Duration::from_secs(1)),
                hide_vim_mode_indicator: true,
                ..cmd("x")
            })
        );
        let bad = json!({"type": "command", "command": "x", "refreshInterval": "often"});
        assert_eq!(
            StatusLineCommand::from_settings(bad.as_object().unwrap()),
            Some(cmd("x"))
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
        // Echo stdin back, then a second row and blank lines.
        let line = run_status_line(
            &cmd("cat; echo; echo second; echo; echo"),
            &input,
            dir.path(),
            (80, 24),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
        let (first, second) = line.split_once('\n').unwrap();
        let parsed: Value = serde_json::from_str(first).unwrap();
        assert_eq!(parsed, input.to_json());
        assert_eq!(second, "second");
        let padded = StatusLineCommand {
            padding: 3,
            ..cmd("echo \"$COLUMNS x $LINES\"")
        };
        assert_eq!(
            run_status_line(
                &padded,
                &input,
                dir.path(),
                (132, 41),
                Duration::from_secs(10)
            )
            .await
            .unwrap(),
            "   132 x 41"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_command_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let err = run_status_line(
            &cmd("sleep 30"),
            &StatusLineInput::default(),
            dir.path(),
            (80, 24),
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
            (80, 24),
            Duration::from_secs(10),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, StatusLineError::Failed { .. }), "{err}");
    }
}
