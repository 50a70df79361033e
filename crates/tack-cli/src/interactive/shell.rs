//! `!command`: run in the shell in the working directory, shown to the user,
//! and put into the next prompt the way Claude Code does (`<bash-input>`,
//! `<bash-stdout>` / `<bash-stderr>` text), so the model sees what was run.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

/// How long a command may run (the Bash tool's default).
pub const TIMEOUT: Duration = Duration::from_secs(120);
/// Output kept per stream (the Bash tool's cap).
const MAX_OUTPUT: usize = 30_000;

/// What a command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellRun {
    pub command: String,
    pub stdout: String,
    pub stderr: String,
    /// The exit code; `None` when it was killed (timeout or signal).
    pub code: Option<i32>,
}

impl ShellRun {
    /// The two text blocks the next prompt starts with.
    pub fn context(&self) -> [String; 2] {
        let mut stderr = self.stderr.clone();
        if self.code.is_none() {
            stderr.push_str(&format!(
                "\nCommand timed out or was killed after at most {} s",
                TIMEOUT.as_secs()
            ));
        }
        [
            format!("<bash-input>{}</bash-input>", self.command),
            format!(
                "<bash-stdout>{}</bash-stdout><bash-stderr>{}</bash-stderr>",
                self.stdout,
                stderr.trim_start_matches('\n')
            ),
        ]
    }

    /// What the user sees.
    pub fn shown(&self) -> String {
        let mut text = shown(&self.stdout, &self.stderr);
        match self.code {
            Some(0) => {}
            Some(code) => text.push_str(&format!("\n(exit code {code})")),
            None => text.push_str("\n(killed: timed out)"),
        }
        text.trim_start_matches('\n').to_owned()
    }
}

/// A command's output as shown: stdout, then stderr; "(no output)" if neither.
pub fn shown(stdout: &str, stderr: &str) -> String {
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

/// Runs `command` with `sh -c` in `cwd`, killing its whole process group
/// after `timeout`.
pub async fn run(command: &str, cwd: &Path, timeout: Duration) -> std::io::Result<ShellRun> {
    let mut child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let pid = child.id();
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let work = async {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let read_out = async {
            if let Some(s) = &mut out {
                s.read_to_end(&mut stdout).await?;
            }
            Ok::<_, std::io::Error>(())
        };
        let read_err = async {
            if let Some(s) = &mut err {
                s.read_to_end(&mut stderr).await?;
            }
            Ok::<_, std::io::Error>(())
        };
        tokio::try_join!(read_out, read_err)?;
        let status = child.wait().await?;
        Ok::<_, std::io::Error>((status.code(), stdout, stderr))
    };
    let (code, stdout, stderr) = match tokio::time::timeout(timeout, work).await {
        Ok(done) => done?,
        Err(_) => {
            if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()) {
                // SAFETY: signals the process group the child leads.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            (None, Vec::new(), Vec::new())
        }
    };
    Ok(ShellRun {
        command: command.to_owned(),
        stdout: capped(&stdout),
        stderr: capped(&stderr),
        code,
    })
}

fn capped(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.len() <= MAX_OUTPUT {
        return text.into_owned();
    }
    let mut cut = MAX_OUTPUT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n… output cut at {MAX_OUTPUT} of {} bytes",
        &text[..cut],
        text.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[tokio::test]
    async fn runs_in_the_directory_and_keeps_both_streams() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        let run = run("ls; echo oops >&2; exit 3", dir.path(), TIMEOUT)
            .await
            .unwrap();
        assert_eq!(
            run,
            ShellRun {
                command: "ls; echo oops >&2; exit 3".into(),
                stdout: "a.txt\n".into(),
                stderr: "oops\n".into(),
                code: Some(3),
            }
        );
        assert_eq!(run.shown(), "a.txt\noops\n(exit code 3)");
        assert_eq!(
            run.context(),
            [
                "<bash-input>ls; echo oops >&2; exit 3</bash-input>".to_owned(),
                "<bash-stdout>a.txt\n</bash-stdout><bash-stderr>oops\n</bash-stderr>".to_owned()
            ]
        );
    }

    #[tokio::test]
    async fn a_command_that_outlives_the_timeout_is_killed_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let started = std::time::Instant::now();
        let run = run(
            "sleep 30 & echo $! > child.pid; wait",
            dir.path(),
            Duration::from_millis(300),
        )
        .await
        .unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(run.code, None);
        assert_eq!(run.shown(), "(no output)\n(killed: timed out)");
        let pid: i32 = std::fs::read_to_string(dir.path().join("child.pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The background child is gone too (waited for as a condition).
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let alive = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                stat.rsplit(')')
                    .next()
                    .is_some_and(|r| !r.starts_with(" Z"))
            })
        };
        while alive() {
            assert!(std::time::Instant::now() < deadline, "child {pid} survived");
            std::thread::yield_now();
        }
    }

    #[test]
    fn no_output_says_so() {
        assert_eq!(shown("", "\n"), "(no output)");
        assert_eq!(shown("out\n", ""), "out");
    }
}
