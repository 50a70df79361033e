//! Hooks that are not processes: `type: "http"` (the input JSON POSTed to a
//! URL), `type: "prompt"` (a small model call decides), `type: "mcp_tool"`
//! (a connected MCP server's tool is called) and `type: "agent"` (a small
//! read-only sub-agent decides).
//!
//! The runner does not own a network client or a model client: whoever owns
//! the session hands it a [`HookServices`] (the runtime's posts with its HTTP
//! client and asks its model client). Each run becomes a [`HookRun`] that the
//! outcome folding reads exactly like a command hook's:
//!
//! - http: a 2xx response's body is the hook's stdout (JSON output, or plain
//!   text); any other status, a connection failure or a timeout is a
//!   non-blocking error. To block, a server answers 2xx with a JSON decision.
//! - prompt: `$ARGUMENTS` in the prompt is the input JSON (without it, the
//!   input is appended); the model answers `{"ok": true}` or `{"ok": false, "reason":
//!   "..."}`; `ok: false` is a block (`decision: "block"` with the reason:
//!   PreToolUse denies, Stop continues, ...). An answer that is not that JSON
//!   is a non-blocking error.
//! - mcp_tool: the hook's `input` object, each string's `${path}` replaced by
//!   that field of the hook input (`${tool_input.file_path}`; a missing one by
//!   nothing), is the tool's arguments; the text of its result is the hook's
//!   stdout. A server that is not connected, a tool it lacks, an error result
//!   or a timeout is a non-blocking error: the event goes on.
//! - agent: like prompt, but the question goes to a sub-agent that may read
//!   the project (Read, Grep, Glob) before it answers `{"ok": ...}`.

use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::config::{CommandHook, HookKind};
use crate::process::{HookRun, RunStatus};

/// What `http` and `prompt` hooks need from the session's owner.
pub trait HookServices: Send + Sync {
    /// POSTs `body` (JSON) to `url` with `headers`; the status code and the
    /// body, or why no response came.
    fn post(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> BoxFuture<'static, Result<(u16, String), String>>;

    /// One small model call: `system` and `prompt` in, the text of the answer
    /// out. `model`: the hook's model, else the session's small fast model.
    fn ask_model(
        &self,
        model: Option<&str>,
        system: &str,
        prompt: String,
    ) -> BoxFuture<'static, Result<String, String>>;

    /// Calls `tool` of the connected MCP server `server` with `arguments`:
    /// the text of its result, or why none came (a result marked as an error
    /// is an `Err` with its text).
    fn call_mcp_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> BoxFuture<'static, Result<String, String>> {
        let _ = (server, tool, arguments);
        Box::pin(std::future::ready(Err(
            "no MCP servers are available to hooks".to_owned(),
        )))
    }

    /// Runs a small agent with read-only tools on `prompt` (its system
    /// prompt `system`; `model`: the hook's, else the small fast model) until
    /// it answers: the answer's JSON text (`{"ok": ..., "reason": ...}`).
    fn run_agent(
        &self,
        model: Option<&str>,
        system: &str,
        prompt: String,
    ) -> BoxFuture<'static, Result<String, String>> {
        let _ = (model, system, prompt);
        Box::pin(std::future::ready(Err("no agent can run here".to_owned())))
    }
}

/// The system prompt of a prompt hook's model call.
pub const PROMPT_HOOK_SYSTEM: &str = "You are evaluating a hook in an agentic coding tool. \
Read the hook input and the condition, then answer with a JSON object only: \
{\"ok\": true} when the condition is met, or {\"ok\": false, \"reason\": \"why\"} when it is not.";

/// The system prompt of an agent hook's sub-agent.
pub const AGENT_HOOK_SYSTEM: &str = "You are verifying a condition for a hook in an agentic coding tool. \
Use the tools to read what you need in the project, then answer by calling the StructuredOutput tool \
once: {\"ok\": true} when the condition is met, or {\"ok\": false, \"reason\": \"why\"} when it is not.";

/// `template` with each string's `${path}` replaced by the field of `input`
/// at the dotted `path` (a string as it is, another value as JSON, a missing
/// one by nothing); object keys and other values are kept.
pub fn substitute(template: &Value, input: &Value) -> Value {
    match template {
        Value::String(s) => Value::String(substitute_str(s, input)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, input)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, input)))
                .collect(),
        ),
        Value::Null | Value::Bool(_) | Value::Number(_) => template.clone(),
    }
}

fn substitute_str(s: &str, input: &Value) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let field = after[..end]
            .trim()
            .split('.')
            .try_fold(input, |v, key| v.get(key));
        match field {
            Some(Value::String(text)) => out.push_str(text),
            Some(Value::Null) | None => {}
            Some(other) => out.push_str(&other.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `$VAR` and `${VAR}` in `value` replaced: names in `allowed` by their value
/// in `env` (empty when unset), other names by nothing.
pub fn expand_env(value: &str, allowed: &[String], env: &[(String, String)]) -> String {
    let lookup = |name: &str| -> String {
        if !allowed.iter().any(|a| a == name) {
            return String::new();
        }
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
            .unwrap_or_default()
    };
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(braced) = after.strip_prefix('{')
            && let Some(end) = braced.find('}')
        {
            out.push_str(&lookup(&braced[..end]));
            rest = &braced[end + 1..];
            continue;
        }
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if len == 0 {
            out.push('$');
        } else {
            out.push_str(&lookup(&after[..len]));
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// Runs one `http` or `prompt` hook (`hook.kind` says which) with the hook
/// input `input`, bounded by `timeout` and `cancel`.
pub(crate) async fn run_remote(
    services: Option<&dyn HookServices>,
    hook: &CommandHook,
    input: &Value,
    env: &[(String, String)],
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookRun {
    let started = Instant::now();
    let failed = |error: String| RunStatus::CallbackFailed {
        error,
        block: false,
    };
    let answer: BoxFuture<'static, Result<(RunStatus, String), String>> =
        match (services, &hook.kind) {
            (None, _) | (_, HookKind::Command) => Box::pin(std::future::ready(Err(
                "no HTTP or model client is available to run it".to_owned(),
            ))),
            (
                Some(s),
                HookKind::Http {
                    url,
                    headers,
                    allowed_env_vars,
                },
            ) => {
                let mut all_env = env.to_vec();
                all_env.extend(hook.env.iter().cloned());
                let headers: Vec<(String, String)> = headers
                    .iter()
                    .map(|(k, v)| (k.clone(), expand_env(v, allowed_env_vars, &all_env)))
                    .collect();
                let body = serde_json::to_vec(input).unwrap_or_default();
                let posted = s.post(url, &headers, body);
                Box::pin(async move {
                    let (status, body) = posted.await?;
                    if (200..300).contains(&status) {
                        Ok((RunStatus::Exited(0), body))
                    } else {
                        Err(format!("HTTP status {status}: {}", first_line(&body)))
                    }
                })
            }
            (Some(s), HookKind::Prompt { prompt, model }) => {
                let asked = s.ask_model(
                    model.as_deref(),
                    PROMPT_HOOK_SYSTEM,
                    question(prompt, input),
                );
                Box::pin(async move { verdict(&asked.await?).map(|s| (RunStatus::Exited(0), s)) })
            }
            (Some(s), HookKind::Agent { prompt, model }) => {
                let asked =
                    s.run_agent(model.as_deref(), AGENT_HOOK_SYSTEM, question(prompt, input));
                Box::pin(async move { verdict(&asked.await?).map(|s| (RunStatus::Exited(0), s)) })
            }
            (
                Some(s),
                HookKind::McpTool {
                    server,
                    tool,
                    input: template,
                },
            ) => {
                let template: Value = serde_json::from_str(template).unwrap_or_default();
                let called = s.call_mcp_tool(server, tool, substitute(&template, input));
                Box::pin(async move { called.await.map(|text| (RunStatus::Exited(0), text)) })
            }
        };
    let (status, stdout) = tokio::select! {
        answer = answer => match answer {
            Ok(done) => done,
            Err(e) => (failed(e), String::new()),
        },
        () = tokio::time::sleep(timeout) => (RunStatus::TimedOut(timeout), String::new()),
        () = cancel.cancelled() => (RunStatus::Cancelled, String::new()),
    };
    HookRun {
        command: hook.command.clone(),
        status,
        stdout,
        stderr: String::new(),
        truncated: false,
        duration: started.elapsed(),
    }
}

/// A prompt or agent hook's question: `$ARGUMENTS` replaced by the input
/// JSON, or the input appended.
fn question(prompt: &str, input: &Value) -> String {
    match prompt.contains("$ARGUMENTS") {
        true => prompt.replace("$ARGUMENTS", &input.to_string()),
        false => format!("{prompt}\n\nHook input:\n{input}"),
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// A prompt hook's model answer as the JSON output it stands for: `{}` for
/// `ok: true`, a block with the reason for `ok: false`.
fn verdict(answer: &str) -> Result<String, String> {
    let t = answer.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .unwrap_or(t)
        .trim();
    let parsed: Option<Value> = serde_json::from_str(t).ok();
    match parsed
        .as_ref()
        .and_then(|v| v.get("ok"))
        .and_then(Value::as_bool)
    {
        Some(true) => Ok("{}".to_owned()),
        Some(false) => {
            let reason = parsed
                .as_ref()
                .and_then(|v| v.get("reason"))
                .and_then(Value::as_str)
                .unwrap_or("the prompt hook's condition was not met");
            Ok(json!({"decision": "block", "reason": reason}).to_string())
        }
        None => Err(format!(
            "the model did not answer {{\"ok\": ...}}: {}",
            first_line(answer)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_expansion_resolves_only_allowed_names() {
        let env = vec![
            ("TOKEN".to_owned(), "s3cret".to_owned()),
            ("OTHER".to_owned(), "leak".to_owned()),
        ];
        let allowed = vec!["TOKEN".to_owned()];
        assert_eq!(
            expand_env(
                "Bearer $TOKEN and ${TOKEN}; $OTHER${OTHER} $ 5$",
                &allowed,
                &env
            ),
            "Bearer s3cret and s3cret;  $ 5$"
        );
    }

    #[test]
    fn substitution_fills_strings_from_the_hook_input() {
        let input = json!({"tool_input": {"file_path": "/p/a.rs", "limit": 5}, "cwd": "/p"});
        let template = json!({"path": "${tool_input.file_path}", "n": 3,
            "note": "${cwd}: ${tool_input.limit} ${missing.x} ${tool_input}",
            "list": ["${cwd}", true], "open": "a ${b"});
        assert_eq!(
            substitute(&template, &input),
            json!({"path": "/p/a.rs", "n": 3,
                "note": "/p: 5  {\"file_path\":\"/p/a.rs\",\"limit\":5}",
                "list": ["/p", true], "open": "a ${b"})
        );
    }

    #[test]
    fn model_verdicts() {
        assert_eq!(verdict(r#"{"ok": true}"#), Ok("{}".to_owned()));
        assert_eq!(
            verdict("```json\n{\"ok\": false, \"reason\": \"tests fail\"}\n```"),
            Ok(r#"{"decision":"block","reason":"tests fail"}"#.to_owned())
        );
        assert!(verdict("sure!").is_err());
    }
}
