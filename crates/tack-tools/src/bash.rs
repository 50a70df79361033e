//! Bash: runs a shell command in the session's working directory.
//!
//! Each call is a fresh `bash -c` in its own process group, stdin from /dev/null.
//! A `cd` carries over: an EXIT trap writes the shell's final `pwd -P` to a file
//! in the session dir, and the session cwd moves there if it stays inside the
//! project or an additional directory (else it is reset to the project root, as
//! Claude Code does). Output is streamed into bounded head+tail buffers, so a
//! command printing gigabytes costs a few tens of KB. On timeout the group gets
//! SIGTERM, then SIGKILL after a grace period; on abort likewise, but the call
//! returns at once and the kill finishes in the background.
//!
//! When the front end's client offers a terminal (an editor over ACP), a
//! foreground command the sandbox does not confine runs there instead, shown
//! live in the editor (`bash_terminal.rs`); a `cd` in it does not carry over.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use rand::Rng;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_sandbox::Sandbox;
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::bash_terminal::{self, InTerminal};
use crate::bg_tasks::BackgroundTasks;
use crate::command_end::{exit_one_is_benign, prefixed};
use crate::output_capture::{OutputCapture, saved_line};
use crate::process_group::{self, GroupGuard};
use crate::shell::{Shell, Started};
use crate::tool_input;

/// Claude Code's `BASH_MAX_TIMEOUT_MS`; larger requested timeouts are clamped.
const MAX_TIMEOUT: Duration = Duration::from_millis(600_000);
/// Claude Code's `BASH_MAX_OUTPUT_LENGTH` default: the result shows at most this
/// many bytes of output, the first and last halves of it. Output beyond it is
/// saved whole to a file in the session dir, named in the result.
pub const MAX_OUTPUT: usize = 30_000;
/// How long to keep reading pipes after the group is gone: a process that left
/// the group (setsid) may hold them open forever.
const PIPE_DRAIN: Duration = Duration::from_millis(500);

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct BashInput {
    /// The command to run.
    command: String,
    /// Timeout in milliseconds (default 120000, at most 600000).
    timeout: Option<u64>,
    /// What the command does, in 5-10 words, shown to the user.
    description: Option<String>,
    /// Start the command as a background task and return its id at once; read its output with TaskOutput.
    run_in_background: Option<bool>,
    /// Run this command outside the sandbox (only when the sandbox blocked something it needs; asks for permission).
    #[serde(rename = "dangerouslyDisableSandbox")]
    dangerously_disable_sandbox: Option<bool>,
}

#[derive(Debug)]
pub(crate) struct BashTool {
    tasks: BackgroundTasks,
    grace: Duration,
    sandbox: Option<Arc<Sandbox>>,
}

impl BashTool {
    pub(crate) fn new(
        tasks: BackgroundTasks,
        grace: Duration,
        sandbox: Option<Arc<Sandbox>>,
    ) -> Self {
        BashTool {
            tasks,
            grace,
            sandbox,
        }
    }

    /// How this call runs (with a note to add), or an error when the
    /// sandbox is required and cannot work here.
    fn plan(&self, input: &BashInput) -> Result<(Shell<'_>, Option<String>), ToolError> {
        let disable = input.dangerously_disable_sandbox.unwrap_or(false);
        Shell::plan(self.sandbox.as_deref(), &input.command, disable)
    }

    /// The sandbox's network refusals since the last call, as result lines.
    fn refusals(&self) -> Vec<String> {
        self.sandbox
            .as_ref()
            .map(|s| s.take_refusals())
            .unwrap_or_default()
    }
}

const DESCRIPTION: &str = "Runs a shell command with bash and returns its output (stdout, then stderr) and exit status.

- Each call starts a new shell in the session's working directory; a `cd` carries over to later calls, exported variables do not.
- Use the dedicated tools instead of shell equivalents where they exist: Read instead of cat/head/tail, Edit/Write instead of sed or redirection, Glob instead of find, Grep instead of grep/rg.
- Quote paths that contain spaces. Chain dependent commands with `&&`; make independent calls in parallel instead.
- `timeout` is in milliseconds: default 2 minutes, at most 10 minutes. On timeout the command and everything it started is killed.
- Output longer than 30000 characters is cut in the middle.
- For long-running processes (servers, watchers) set `run_in_background`: the call returns a task id at once; read new output with TaskOutput and stop it with TaskStop.
- The command gets no stdin: interactive programs will not work.";

impl Tool for BashTool {
    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/bash.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: BashInput = tool_input::parse(self.name(), input)?;
        if input.command.trim().is_empty() {
            return Err(ToolError::new(
                "`command` is empty: give the shell command to run.",
            ));
        }
        Ok(())
    }

    fn call<'a>(&'a self, raw: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: BashInput = tool_input::parse(self.name(), &raw)?;
            let (cwd, mut notes) = usable_cwd(&ctx.env);
            let (shell, note) = self.plan(&input)?;
            notes.extend(note);
            if input.run_in_background.unwrap_or(false) {
                let task = self
                    .tasks
                    .start(&input.command, shell, &cwd, ctx.env.session_dir())
                    .map_err(|e| {
                        ToolError::new(format!("Could not start the background command: {e}"))
                    })?;
                let text = format!(
                    "Command running in background with ID: {}. Output is being written to: {}",
                    task.id,
                    task.output_path.display()
                );
                return Ok(ToolOutput::text(text).with_structured(json!({
                    "backgroundTaskId": task.id,
                    "outputFile": task.output_path,
                })));
            }
            let timeout = input
                .timeout
                .map(Duration::from_millis)
                .unwrap_or(ctx.env.bash_default_timeout)
                .min(MAX_TIMEOUT);
            // The editor's terminal, when it offers one; never for a command
            // the sandbox confines (it would run outside it there).
            if let Some(terminal) = ctx
                .env
                .client_terminal()
                .filter(|_| shell.confining().is_none())
            {
                let call = InTerminal {
                    command: &input.command,
                    limit: MAX_OUTPUT,
                    session_dir: ctx.env.session_dir(),
                    input: &raw,
                    cwd: &cwd,
                    timeout,
                };
                if let Some(output) = bash_terminal::run(terminal, call, ctx, notes.clone()).await {
                    return output.map(|o| with_description(o, input.description));
                }
            }
            let run = self.run(&input.command, shell, &cwd, timeout, ctx).await?;
            if let Some(note) = update_cwd(&ctx.env, run.final_cwd.as_deref()) {
                notes.push(note);
            }
            if let Some(sandbox) = shell.confining()
                && let Some(note) =
                    sandbox.explain_refusal(&cwd, &lock(&run.stderr).peek(MAX_OUTPUT))
            {
                notes.push(note);
            }
            notes.extend(self.refusals());
            let output = run.into_output(&input.command, notes);
            Ok(with_description(output, input.description))
        }
        .boxed()
    }
}

/// The call's description in its structured output, as the model gave it.
fn with_description(mut output: ToolOutput, description: Option<String>) -> ToolOutput {
    if let (Some(structured), Some(description)) = (output.structured.as_mut(), description) {
        structured["description"] = Value::String(description);
    }
    output
}

/// How a foreground command ended.
#[derive(Debug)]
enum End {
    Exited(std::process::ExitStatus),
    TimedOut(Duration),
}

#[derive(Debug)]
struct Run {
    end: End,
    stdout: Capture,
    stderr: Capture,
    final_cwd: Option<PathBuf>,
}

type Capture = Arc<Mutex<OutputCapture>>;

fn capture(session_dir: &Path, stream: &'static str) -> Capture {
    Arc::new(Mutex::new(OutputCapture::new(
        session_dir,
        stream,
        MAX_OUTPUT,
    )))
}

fn lock(c: &Capture) -> std::sync::MutexGuard<'_, OutputCapture> {
    c.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn pump(mut pipe: impl AsyncRead + Unpin, into: Capture) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => lock(&into).push(&buf[..n]),
        }
    }
}

impl BashTool {
    async fn run(
        &self,
        command: &str,
        shell: Shell<'_>,
        cwd: &Path,
        timeout: Duration,
        ctx: &ToolContext,
    ) -> Result<Run, ToolError> {
        let session_dir = ctx.env.session_dir();
        tack_sys::private_file::create_dirs_private(session_dir)?;
        let cwd_dir = shell.confining().map_or(session_dir, Sandbox::tmp_dir);
        let cwd_file = cwd_dir.join(format!("cwd-{:016x}", rand::rng().random::<u64>()));
        // The trap runs when the shell exits normally (also after `exit n`).
        let script = format!("trap 'pwd -P >| \"$TACK_CWD_FILE\"' EXIT\n{command}");
        let vars = [("TACK_CWD_FILE", cwd_file.as_os_str())];
        let Started {
            mut child,
            pgid,
            stdout,
            stderr,
        } = shell.spawn_piped(&script, cwd, &vars)?;
        let mut guard = GroupGuard::new(pgid, self.grace);

        let (out, err) = (
            capture(session_dir, "stdout"),
            capture(session_dir, "stderr"),
        );
        let mut readers = Vec::new();
        if let Some(pipe) = stdout {
            readers.push(tokio::spawn(pump(pipe, out.clone())));
        }
        if let Some(pipe) = stderr {
            readers.push(tokio::spawn(pump(pipe, err.clone())));
        }

        let end = tokio::select! {
            status = child.wait() => {
                let status = status?;
                process_group::stop_leftovers(pgid, self.grace).await;
                End::Exited(status)
            }
            () = tokio::time::sleep(timeout) => {
                process_group::terminate(pgid, &mut child, self.grace).await;
                End::TimedOut(timeout)
            }
            () = ctx.cancel.cancelled() => {
                // Return now; the group is stopped in the background.
                guard.disarm();
                process_group::signal_group(pgid, libc::SIGTERM);
                let grace = self.grace;
                tokio::spawn(async move { process_group::terminate(pgid, &mut child, grace).await });
                readers.iter().for_each(|r| r.abort());
                let _ = std::fs::remove_file(&cwd_file);
                return Err(ToolError::new("Command was interrupted by the user."));
            }
        };
        guard.disarm();
        let drain = futures::future::join_all(readers.iter_mut());
        if tokio::time::timeout(PIPE_DRAIN, drain).await.is_err() {
            readers.iter().for_each(|r| r.abort());
        }
        let final_cwd = std::fs::read_to_string(&cwd_file)
            .ok()
            .map(|s| PathBuf::from(s.trim_end_matches('\n')));
        let _ = std::fs::remove_file(&cwd_file);
        Ok(Run {
            end,
            stdout: out,
            stderr: err,
            final_cwd,
        })
    }
}

impl Run {
    fn into_output(self, command: &str, notes: Vec<String>) -> ToolOutput {
        let (mut out, mut err) = (lock(&self.stdout), lock(&self.stderr));
        let (out_budget, err_budget) = budgets(out.total(), err.total(), MAX_OUTPUT);
        let (stdout, out_saved) = out.finish(out_budget);
        let (stderr, err_saved) = err.finish(err_budget);
        // The structured output has each stream on its own budget.
        let structured_stdout = out.finish(MAX_OUTPUT).0;
        let structured_stderr = err.finish(MAX_OUTPUT).0;
        let mut lines: Vec<String> = [
            saved_line("Output", "output", out.total(), &out_saved),
            saved_line("Error output", "error output", err.total(), &err_saved),
        ]
        .into_iter()
        .flatten()
        .collect();
        let streams = [stdout.as_str(), stderr.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
        if !lines.is_empty() && !streams.is_empty() {
            lines.push(String::new());
        }
        lines.push(streams);
        let body = lines.join("\n");
        let (mut text, is_error, exit_code, interrupted) = match self.end {
            End::Exited(status) => match (status.code(), status.signal()) {
                (Some(0), _) => (body, false, Some(0), false),
                (Some(1), _) if exit_one_is_benign(command) => (body, false, Some(1), false),
                (Some(code), _) => (
                    prefixed(&format!("Exit code {code}"), &body),
                    true,
                    Some(code),
                    false,
                ),
                (None, sig) => {
                    let sig = sig.unwrap_or(0);
                    (
                        prefixed(&format!("Killed by signal {sig}"), &body),
                        true,
                        None,
                        false,
                    )
                }
            },
            End::TimedOut(after) => {
                let head = format!(
                    "Command timed out after {} and was killed",
                    humantime::format_duration(after)
                );
                (prefixed(&head, &body), true, None, true)
            }
        };
        if text.is_empty() {
            text = "(no output)".into();
        }
        for note in notes {
            text.push_str("\n\n");
            text.push_str(&note);
        }
        ToolOutput::text(text)
            .with_error(is_error)
            .with_structured(json!({
                "stdout": structured_stdout,
                "stderr": structured_stderr,
                "exitCode": exit_code,
                "interrupted": interrupted,
            }))
    }
}

/// How the result's `max` bytes are shared between stdout and stderr: a
/// stream that fits in half is shown whole and the other gets the rest.
fn budgets(out: u64, err: u64, max: usize) -> (usize, usize) {
    let half = max / 2;
    if out + err <= max as u64 {
        (max, max)
    } else if out <= half as u64 {
        (out as usize, max - out as usize)
    } else if err <= half as u64 {
        (max - err as usize, err as usize)
    } else {
        (half, max - half)
    }
}

/// The directory the next command starts in: the session cwd, or the project
/// root if the cwd has disappeared.
fn usable_cwd(env: &ToolEnv) -> (PathBuf, Vec<String>) {
    let cwd = env.cwd();
    if cwd.is_dir() {
        return (cwd, Vec::new());
    }
    let root = env.project_root().to_path_buf();
    env.set_cwd(root.clone());
    let note = format!(
        "Shell cwd no longer existed and was reset to {}",
        root.display()
    );
    (root, vec![note])
}

/// Moves the session cwd to where the shell ended, if that is inside the
/// working directories; otherwise resets it and says so.
fn update_cwd(env: &ToolEnv, final_cwd: Option<&Path>) -> Option<String> {
    let final_cwd = final_cwd?;
    if final_cwd == env.cwd() {
        return None;
    }
    let roots = std::iter::once(env.project_root())
        .chain(env.additional_dirs().iter().map(PathBuf::as_path));
    let inside = roots.into_iter().any(|root| {
        final_cwd.starts_with(root)
            || root
                .canonicalize()
                .is_ok_and(|canon| final_cwd.starts_with(canon))
    });
    if inside {
        env.set_cwd(final_cwd.to_path_buf());
        None
    } else {
        let root = env.project_root().to_path_buf();
        let note = format!("Shell cwd was reset to {}", root.display());
        env.set_cwd(root);
        Some(note)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_budget_is_shared_between_the_streams() {
        // Both fit: both whole.
        assert_eq!(budgets(10_000, 20_000, 30_000), (30_000, 30_000));
        // One fits in half: it is whole, the other gets the rest.
        assert_eq!(budgets(1_000, 90_000, 30_000), (1_000, 29_000));
        assert_eq!(budgets(90_000, 2_000, 30_000), (28_000, 2_000));
        // Neither: half each.
        assert_eq!(budgets(20_000, 20_000, 30_000), (15_000, 15_000));
    }

    #[tokio::test]
    async fn two_streams_over_the_budget_are_both_saved_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let (out, err) = (capture(dir.path(), "stdout"), capture(dir.path(), "stderr"));
        lock(&out).push(&[b'o'; 20_000]);
        lock(&err).push(&[b'e'; 20_000]);
        let run = Run {
            end: End::Exited(std::process::ExitStatus::from_raw(0)),
            stdout: out,
            stderr: err,
            final_cwd: None,
        };
        let text = run.into_output("x", Vec::new()).content.to_text();
        let lines: Vec<&str> = text.lines().take(3).collect();
        assert!(
            lines[0].starts_with("Output too large (19.5KB). Full output saved to: "),
            "{text}"
        );
        assert!(
            lines[1].starts_with("Error output too large (19.5KB). Full error output saved to: "),
            "{text}"
        );
        assert_eq!(lines[2], "");
        assert_eq!(text.matches("... [5000 bytes truncated] ...").count(), 2);
        let saved = lines[1].rsplit(": ").next().unwrap();
        assert_eq!(std::fs::read(saved).unwrap(), vec![b'e'; 20_000]);
    }
}
