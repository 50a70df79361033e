//! A foreground Bash command in the front end's client's terminal (an
//! editor over ACP that offers terminals), and its result as Bash words a
//! local one's: the output (stdout and stderr as the terminal mixed them),
//! `Exit code N` first when it failed, the timeout, a cut start said.
//! Permission, hooks and the sandbox's decision came before; a command the
//! sandbox confines never gets here (`bash.rs`).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tack_tool::client_terminal::{ClientTerminals, TerminalCommand, TerminalEnd, TerminalRun};
use tack_tool::{ToolContext, ToolError, ToolOutput};

use crate::command_end::{exit_one_is_benign, prefixed};
use crate::output_capture::human_size;

/// What the terminal runs, for which call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InTerminal<'a> {
    pub command: &'a str,
    /// The most output the result shows (Bash's cap): the terminal keeps
    /// its last this many bytes.
    pub limit: usize,
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
        output_byte_limit: call.limit as u64,
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

/// The result of a run, as Bash words a local command's.
fn output(
    run: TerminalRun,
    call: &InTerminal<'_>,
    notes: Vec<String>,
) -> Result<ToolOutput, ToolError> {
    let (command, timeout) = (call.command, call.timeout);
    let shown = run.output.trim_end();
    let body = match run.truncated {
        true => format!(
            "Output too large: the editor's terminal kept its last {}.\n\n{shown}",
            human_size(call.limit as u64)
        ),
        false => shown.to_owned(),
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
        let run = TerminalRun {
            output: output.to_owned(),
            truncated,
            end,
        };
        match output_of(run) {
            Ok(out) => (out.content.to_text(), out.is_error),
            Err(e) => (e.to_string(), true),
        }
    }

    fn output_of(run: TerminalRun) -> Result<ToolOutput, ToolError> {
        let call = InTerminal {
            command: "make",
            limit: 30_000,
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
                "Output too large: the editor's terminal kept its last 29.3KB.\n\ntail".into(),
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
}
