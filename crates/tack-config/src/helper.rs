//! `apiKeyHelper`: a shell command whose output is the API key.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::ConfigError;

/// How long [`run_api_key_helper`] waits by default.
pub const API_KEY_HELPER_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `command` with `/bin/sh -c` in `cwd` (inheriting the process
/// environment, stdin closed) and returns its stdout, trimmed. It must exit 0
/// within `timeout` and print something; otherwise the error says why (with
/// the first line of its stderr). On timeout its whole process group is killed.
pub fn run_api_key_helper(
    command: &str,
    cwd: &Path,
    timeout: Duration,
) -> Result<String, ConfigError> {
    let fail = |message: String| ConfigError::ApiKeyHelper {
        command: command.to_owned(),
        message,
    };
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| fail(format!("could not start: {e}")))?;
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                if let Ok(pgid) = i32::try_from(child.id()) {
                    tack_sys::signal_group(pgid, libc::SIGKILL);
                }
                let _ = child.wait();
                return Err(fail(format!("timed out after {}s", timeout.as_secs_f64())));
            }
            Err(e) => return Err(fail(format!("could not be waited for: {e}"))),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let first_err = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if !status.success() {
        let code = status
            .code()
            .map_or_else(|| "a signal".to_owned(), |c| format!("status {c}"));
        let detail = if first_err.is_empty() {
            String::new()
        } else {
            format!(": {first_err}")
        };
        return Err(fail(format!("exited with {code}{detail}")));
    }
    let key = stdout.trim();
    if key.is_empty() {
        return Err(fail("printed nothing".to_owned()));
    }
    Ok(key.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(command: &str, timeout: Duration) -> Result<String, String> {
        run_api_key_helper(command, Path::new("/"), timeout).map_err(|e| e.to_string())
    }

    #[test]
    fn stdout_trimmed_is_the_key() {
        let t = API_KEY_HELPER_TIMEOUT;
        assert_eq!(
            run("printf '  sk-ant-helper\\n\\n'", t),
            Ok("sk-ant-helper".to_owned())
        );
        assert_eq!(run("pwd", t), Ok("/".to_owned()));
    }

    #[test]
    fn failures_say_why() {
        let t = API_KEY_HELPER_TIMEOUT;
        assert_eq!(
            run("echo no vault >&2; exit 3", t),
            Err(
                "apiKeyHelper `echo no vault >&2; exit 3` exited with status 3: no vault"
                    .to_owned()
            )
        );
        assert_eq!(
            run("true", t),
            Err("apiKeyHelper `true` printed nothing".to_owned())
        );
        let start = Instant::now();
        assert_eq!(
            run("sleep 5; echo late", Duration::from_millis(200)),
            Err("apiKeyHelper `sleep 5; echo late` timed out after 0.2s".to_owned())
        );
        assert!(start.elapsed() < Duration::from_secs(3));
    }
}
