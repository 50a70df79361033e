//! A foreground Bash command in the front end's client's terminal (an
//! editor over ACP that offers terminals), and its result as Bash words a
//! local one's: the output (stdout and stderr as the terminal mixed them),
//! `Exit code N` first when it failed, the timeout. Output over Bash's cap
//! is saved whole to the session's `bash-output` folder and shown as its
//! head and tail, as a local command's is: the terminal is asked to keep
//! [`TERMINAL_KEEPS`] bytes for that, and when even that was too much (its
//! start dropped: `truncated`) the result says so and the file holds what
//! the terminal kept.
//! Permission, hooks and the sandbox's decision came before; a command the
//! sandbox confines never gets here (`bash.rs`).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tack_tool::client_terminal::{ClientTerminals, TerminalCommand, TerminalEnd, TerminalRun};
use tack_tool::{ToolContext, ToolError, ToolOutput};

use crate::command_end::{exit_one_is_benign, prefixed};
use crate::output_capture::{OutputCapture, Saved, human_size, saved_line};

/// The most output the editor's terminal is asked to keep (it drops the
/// start beyond it): what the result's file can hold.
pub(crate) const TERMINAL_KEEPS: u64 = 1024 * 1024;

/// What the terminal runs, for which call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InTerminal<'a> {
    pub command: &'a str,
    /// The most output the result shows (Bash's cap).
    pub limit: usize,
    /// Where output over the cap is saved (the session's folder).
    pub session_dir: &'a Path,
    /// The call's input as the model wrote it (the editor shows it).
    pub input: &'a Value,
    pub cwd: &'a Path,
    pub timeout: Duration,
}

/// Runs the command in the client's terminal: `None` when the client has
/// none to offer; its failure, or the user's abort, is the tool's error.
pub(crate) async fn run(
    terminal: &ClientTerminals,
    call: InTerminal<'_>,
    ctx: &ToolContext,
    notes: Vec<String>,
) -> Option<Result<ToolOutput, ToolError>> {
    let command = TerminalCommand {
        command: call.command,
        cwd: call.cwd,
        output_byte_limit: TERMINAL_KEEPS,
        timeout: call.timeout,
        tool_use_id: &ctx.tool_use_id,
        tool_name: "Bash",
        input: call.input,
        cancel: &ctx.cancel,
    };
    Some(match terminal.run(command).await? {
        Ok(run) => output(run, &call, notes),
        Err(e) => Err(ToolError::new(format!(
            "Could not run the command in the editor's terminal: {e}"
        ))),
    })
}

/// The output as the result shows it (all of it, or its head and tail),
/// and, when that is not all of it, the line that says where it is.
fn preview(run: &TerminalRun, call: &InTerminal<'_>) -> (String, Option<String>) {
    let mut capture = OutputCapture::new(call.session_dir, "stdout", call.limit);
    capture.push(run.output.as_bytes());
    let (shown, saved) = capture.finish(call.limit);
    let line = match (run.truncated, &saved) {
        (false, saved) => saved_line("Output", "output", capture.total(), saved),
        (true, Saved::File(path)) => Some(format!(
            "Output too large (over {}: the editor's terminal kept only its last {}). What it kept is saved to: {}",
            human_size(TERMINAL_KEEPS),
            human_size(capture.total()),
            path.display()
        )),
        (true, Saved::Failed(error)) => Some(format!(
            "Output too large (over {}: the editor's terminal kept only its last {}); that could not be saved: {error}",
            human_size(TERMINAL_KEEPS),
            human_size(capture.total()),
        )),
        (true, Saved::Whole) => Some(format!(
            "Output too large: the editor's terminal kept only its last {}.",
            human_size(capture.total())
        )),
    };
    (shown, line)
}

/// The result of a run, as Bash words a local command's.
fn output(
    run: TerminalRun,
    call: &InTerminal<'_>,
    notes: Vec<String>,
) -> Result<ToolOutput, ToolError> {
    let (command, timeout) = (call.command, call.timeout);
    let (shown, saved) = preview(&run, call);
    let body = match saved {
        Some(line) => format!("{line}\n\n{shown}"),
        None => shown.clone(),
    };
    let (mut text, is_error, exit_code, interrupted) = match run.end {
        TerminalEnd::Cancelled => {
            return Err(ToolError::new("Command was interrupted by the user."));
        }
        TerminalEnd::TimedOut => {
            let head = format!(
                "Command timed out after {} and was killed",
                humantime::format_duration(timeout)
            );
            (prefixed(&head, &body), true, None, true)
        }
        TerminalEnd::Exited { code: Some(0), .. } => (body, false, Some(0), false),
        TerminalEnd::Exited { code: Some(1), .. } if exit_one_is_benign(command) => {
            (body, false, Some(1), false)
        }
        TerminalEnd::Exited {
            code: Some(code), ..
        } => (
            prefixed(&format!("Exit code {code}"), &body),
            true,
            Some(code),
            false,
        ),
        TerminalEnd::Exited { code: None, signal } => {
            let signal = signal.unwrap_or_else(|| "unknown".to_owned());
            let head = format!("Killed by signal {signal}");
            (prefixed(&head, &body), true, None, false)
        }
    };
    if text.is_empty() {
        text = "(no output)".into();
    }
    for note in notes {
        text.push_str("\n\n");
        text.push_str(&note);
    }
    Ok(ToolOutput::text(text)
        .with_error(is_error)
        .with_structured(json!({
            "stdout": shown,
            "stderr": "",
            "exitCode": exit_code,
            "interrupted": interrupted,
        })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ended(output: &str, truncated: bool, end: TerminalEnd) -> (String, bool) {
        ended_in(Path::new("/nonexistent"), output, truncated, end)
    }

    fn ended_in(dir: &Path, output: &str, truncated: bool, end: TerminalEnd) -> (String, bool) {
        let run = TerminalRun {
            output: output.to_owned(),
            truncated,
            end,
        };
        match output_of(dir, run) {
            Ok(out) => (out.content.to_text(), out.is_error),
            Err(e) => (e.to_string(), true),
        }
    }

    fn output_of(dir: &Path, run: TerminalRun) -> Result<ToolOutput, ToolError> {
        let call = InTerminal {
            command: "make",
            limit: 30_000,
            session_dir: dir,
            input: &Value::Null,
            cwd: Path::new("/"),
            timeout: Duration::from_millis(300),
        };
        output(run, &call, Vec::new())
    }

    fn exited(code: u32) -> TerminalEnd {
        TerminalEnd::Exited {
            code: Some(code),
            signal: None,
        }
    }

    #[test]
    fn a_terminals_end_reads_as_a_local_commands() {
        assert_eq!(ended("ok\n", false, exited(0)), ("ok".into(), false));
        assert_eq!(ended("", false, exited(0)), ("(no output)".into(), false));
        assert_eq!(
            ended("no rule\n", false, exited(2)),
            ("Exit code 2\nno rule".into(), true)
        );
        assert_eq!(
            ended("tail\n", true, exited(0)),
            (
                "Output too large: the editor's terminal kept only its last 5 bytes.\n\ntail"
                    .into(),
                false
            )
        );
        assert_eq!(
            ended("half", false, TerminalEnd::TimedOut),
            (
                "Command timed out after 300ms and was killed\nhalf".into(),
                true
            )
        );
        let killed = TerminalEnd::Exited {
            code: None,
            signal: Some("SIGKILL".into()),
        };
        assert_eq!(
            ended("", false, killed),
            ("Killed by signal SIGKILL".into(), true)
        );
        assert_eq!(
            ended("x", false, TerminalEnd::Cancelled),
            ("Command was interrupted by the user.".into(), true)
        );
    }

    /// Over the cap, the whole output is saved and its head and tail shown,
    /// as a local command's; a terminal that dropped the start says so.
    #[test]
    fn a_long_output_is_saved_to_a_file_as_a_local_commands() {
        let dir = tempfile::tempdir().unwrap();
        let long = "x".repeat(40_000);
        let (text, _) = ended_in(dir.path(), &long, false, exited(0));
        let (first, rest) = text.split_once("\n\n").unwrap();
        let path = first
            .strip_prefix("Output too large (39.1KB). Full output saved to: ")
            .unwrap_or_else(|| panic!("{first}"));
        assert_eq!(std::fs::read_to_string(path).unwrap(), long);
        assert!(rest.contains("... [10000 bytes truncated] ..."), "{rest}");

        let (text, _) = ended_in(dir.path(), &long, true, exited(0));
        let first = text.lines().next().unwrap();
        let path = first
            .strip_prefix("Output too large (over 1.0MB: the editor's terminal kept only its last 39.1KB). What it kept is saved to: ")
            .unwrap_or_else(|| panic!("{first}"));
        assert_eq!(std::fs::read_to_string(path).unwrap(), long);
    }
}
