//! `apiKeyHelper` and `otelHeadersHelper`: shell commands whose output is
//! the API key or the telemetry exporters' headers, run through
//! tack-sys's one process runner (its own process group, stopped whole at the
//! timeout).

use std::path::Path;
use std::time::Duration;

use tack_sys::run::{CommandSpec, Ended, Program, run_command};

use crate::error::ConfigError;

/// How long [`run_api_key_helper`] waits by default.
pub const API_KEY_HELPER_TIMEOUT: Duration = Duration::from_secs(10);

/// Output kept of the helper (a key is far shorter; more is an error).
const MAX_OUTPUT: usize = 1024 * 1024;

/// Runs `command` with `/bin/sh -c` in `cwd` (inheriting the process
/// environment, stdin closed) and returns its stdout, trimmed. It must exit 0
/// within `timeout` and print something; otherwise the error says why (with
/// the first line of its stderr). On timeout its whole process group is stopped.
pub async fn run_api_key_helper(
    command: &str,
    cwd: &Path,
    timeout: Duration,
) -> Result<String, ConfigError> {
    run_helper(command, cwd, timeout)
        .await
        .map_err(|message| ConfigError::ApiKeyHelper {
            command: command.to_owned(),
            message,
        })
}

/// `otelHeadersHelper`: runs `command` as [`run_api_key_helper`] does; its
/// stdout must be a JSON object of strings, the OTLP exporters' headers.
/// No error repeats what it printed (header values are secrets).
pub async fn run_otel_headers_helper(
    command: &str,
    cwd: &Path,
    timeout: Duration,
) -> Result<Vec<(String, String)>, ConfigError> {
    let fail = |message: String| ConfigError::OtelHeadersHelper {
        command: command.to_owned(),
        message,
    };
    let out = run_helper(command, cwd, timeout).await.map_err(fail)?;
    let not_headers = || fail("did not print a JSON object of string values".to_owned());
    let parsed: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&out).map_err(|_| not_headers())?;
    parsed
        .into_iter()
        .map(|(name, value)| match value {
            serde_json::Value::String(v) => Ok((name, v)),
            _ => Err(not_headers()),
        })
        .collect()
}

/// One helper's run: its stdout, trimmed, or why there is none.
async fn run_helper(command: &str, cwd: &Path, timeout: Duration) -> Result<String, String> {
    let mut spec = CommandSpec::shell(command, cwd, timeout, MAX_OUTPUT);
    spec.program = Program::Exec {
        program: "/bin/sh".to_owned(),
        args: vec!["-c".to_owned(), command.to_owned()],
    };
    let done = run_command(&spec, std::future::pending()).await;
    let code = match done.ended {
        Ended::Exited(0) => None,
        Ended::Exited(c) => Some(format!("status {c}")),
        Ended::Signaled(_) => Some("a signal".to_owned()),
        Ended::Cancelled => return Err("was cancelled".to_owned()),
        Ended::TimedOut(t) => return Err(format!("timed out after {}s", t.as_secs_f64())),
        Ended::SpawnFailed(e) => return Err(format!("could not start: {e}")),
    };
    if let Some(code) = code {
        let first_err = done
            .stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        let detail = if first_err.is_empty() {
            String::new()
        } else {
            format!(": {first_err}")
        };
        return Err(format!("exited with {code}{detail}"));
    }
    if done.truncated && done.stdout.len() >= MAX_OUTPUT {
        return Err(format!("printed more than {MAX_OUTPUT} bytes"));
    }
    let key = done.stdout.trim();
    if key.is_empty() {
        return Err("printed nothing".to_owned());
    }
    Ok(key.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(command: &str, timeout: Duration) -> Result<String, String> {
        run_api_key_helper(command, Path::new("/"), timeout)
            .await
            .map_err(|e| e.to_string())
    }

    #[tokio::test]
    async fn stdout_trimmed_is_the_key() {
        let t = API_KEY_HELPER_TIMEOUT;
        assert_eq!(
            run("printf '  sk-ant-helper\\n\\n'", t).await,
            Ok("sk-ant-helper".to_owned())
        );
        assert_eq!(run("pwd", t).await, Ok("/".to_owned()));
    }

    #[tokio::test]
    async fn failures_say_why() {
        let t = API_KEY_HELPER_TIMEOUT;
        assert_eq!(
            run("echo no vault >&2; exit 3", t).await,
            Err(
                "apiKeyHelper `echo no vault >&2; exit 3` exited with status 3: no vault"
                    .to_owned()
            )
        );
        assert_eq!(
            run("true", t).await,
            Err("apiKeyHelper `true` printed nothing".to_owned())
        );
        assert_eq!(
            run("kill -9 $$", t).await,
            Err("apiKeyHelper `kill -9 $$` exited with a signal".to_owned())
        );
        assert_eq!(
            run("head -c 1100000 /dev/zero | tr '\\0' k", t).await,
            Err(format!(
                "apiKeyHelper `head -c 1100000 /dev/zero | tr '\\0' k` printed more than {MAX_OUTPUT} bytes"
            ))
        );
        let start = std::time::Instant::now();
        assert_eq!(
            run("sleep 5; echo late", Duration::from_millis(200)).await,
            Err("apiKeyHelper `sleep 5; echo late` timed out after 0.2s".to_owned())
        );
        assert!(start.elapsed() < Duration::from_secs(3));
    }

    #[tokio::test]
    async fn otel_headers_come_as_a_json_object_and_errors_keep_them_secret() {
        let t = API_KEY_HELPER_TIMEOUT;
        let run = |c: &'static str| async move {
            run_otel_headers_helper(c, Path::new("/"), t)
                .await
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            run(r#"echo '{"Authorization": "Bearer s3cret", "X-Team": "a"}'"#).await,
            Ok(vec![
                ("Authorization".to_owned(), "Bearer s3cret".to_owned()),
                ("X-Team".to_owned(), "a".to_owned()),
            ])
        );
        for c in ["echo Bearer s3cret", r#"echo '{"Authorization": 5}'"#] {
            let e = run(c).await.unwrap_err();
            assert_eq!(
                e,
                format!("otelHeadersHelper `{c}` did not print a JSON object of string values")
            );
        }
    }
}
