//! How Bash, its background tasks and Monitor start a shell command: one
//! chain for all three. `bash -c` through the session's sandbox (confined or
//! not, as the sandbox plans the command), in the given folder with the
//! given variables, stdin from /dev/null, in a process group of its own (so
//! a timeout, an abort or TaskStop reaches everything it started), its
//! stdout and stderr piped to the caller or into a task's output file.

use std::ffi::OsStr;
use std::io;
use std::path::Path;
use std::process::Stdio;

use tack_sandbox::{Plan, Sandbox};
use tack_tool::ToolError;
use tokio::process::{Child, ChildStderr, ChildStdout};

/// How one command runs: the session's sandbox, if any, and whether it
/// confines this command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shell<'a> {
    sandbox: Option<&'a Sandbox>,
    confined: bool,
}

/// Where a started command's stdout and stderr go.
pub(crate) enum Output {
    /// Pipes the caller reads ([`Started::stdout`], [`Started::stderr`]).
    Piped,
    /// Both into this file (a background task's output).
    File(std::fs::File),
}

/// A started command: the leader of its process group, and its pipes when
/// they were asked for.
pub(crate) struct Started {
    pub child: Child,
    /// Its process group (0 when the pid was not known: nothing to signal).
    pub pgid: i32,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
}

impl<'a> Shell<'a> {
    /// How `command` runs: confined or not (with a note for the result), or
    /// an error when the sandbox is required and cannot work here.
    /// `disable`: the call asked to run outside the sandbox.
    pub(crate) fn plan(
        sandbox: Option<&'a Sandbox>,
        command: &str,
        disable: bool,
    ) -> Result<(Shell<'a>, Option<String>), ToolError> {
        let Some(s) = sandbox else {
            return Ok((Shell::unconfined(None), None));
        };
        match s.plan(command, disable) {
            Plan::Confined => Ok((Shell::confined_by(s), None)),
            Plan::Unconfined(note) => Ok((Shell::unconfined(sandbox), note)),
            Plan::Refused(why) => Err(ToolError::new(why)),
        }
    }

    fn unconfined(sandbox: Option<&'a Sandbox>) -> Shell<'a> {
        Shell {
            sandbox,
            confined: false,
        }
    }

    fn confined_by(sandbox: &'a Sandbox) -> Shell<'a> {
        Shell {
            sandbox: Some(sandbox),
            confined: true,
        }
    }

    /// The sandbox confining the command, when it is confined.
    pub(crate) fn confining(&self) -> Option<&'a Sandbox> {
        self.sandbox.filter(|_| self.confined)
    }

    /// `bash -c script`, through the sandbox when there is one.
    fn command(&self, script: &str) -> tokio::process::Command {
        match self.sandbox {
            Some(sandbox) => sandbox.shell(script, self.confined),
            None => {
                let mut c = tokio::process::Command::new("bash");
                c.arg("-c").arg(script);
                c
            }
        }
    }

    /// Starts `script` in `cwd` with `vars` set, stdin from /dev/null, in a
    /// process group of its own, its stdout and stderr to `output`.
    pub(crate) fn spawn(
        &self,
        script: &str,
        cwd: &Path,
        vars: &[(&str, &OsStr)],
        output: Output,
    ) -> io::Result<Started> {
        let mut command = self.command(script);
        command
            .current_dir(cwd)
            .envs(vars.iter().copied())
            .stdin(Stdio::null())
            .process_group(0);
        match output {
            Output::Piped => command.stdout(Stdio::piped()).stderr(Stdio::piped()),
            Output::File(file) => command.stdout(file.try_clone()?).stderr(file),
        };
        let mut child = command.spawn()?;
        let pgid = child.id().and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
        Ok(Started {
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            child,
            pgid,
        })
    }

    /// [`Shell::spawn`] with both streams piped, for a tool's call: an
    /// error says bash could not start.
    pub(crate) fn spawn_piped(
        &self,
        script: &str,
        cwd: &Path,
        vars: &[(&str, &OsStr)],
    ) -> Result<Started, ToolError> {
        self.spawn(script, cwd, vars, Output::Piped)
            .map_err(|e| ToolError::new(format!("Could not start bash: {e}")))
    }
}
