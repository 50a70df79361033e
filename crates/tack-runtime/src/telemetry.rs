//! Claude Code's OpenTelemetry metrics and events, from what a session does.
//!
//! Off unless `CLAUDE_CODE_ENABLE_TELEMETRY` (process or settings `env`) turns
//! it on: then the [`Emitter`](crate::emit::Emitter) holds a
//! [`SessionTelemetry`] and every event it emits passes through
//! [`SessionTelemetry::observe`] first; the gate reports its decisions, the
//! turn its prompt, and the session's end flushes (2 s at most). Off, the
//! emitter holds `None` and nothing here is built.
//!
//! `claude_code.active_time.total` is the wall-clock time turns run (a
//! prompt's submission to its result: the result's `duration_ms`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_core::LoopEvent;
use tack_protocol::{ContentBlock, Message};
use tack_telemetry::{Config, HeadersHelper, Metric, Telemetry};
use tokio::sync::mpsc;

use crate::event::{Notice, RuntimeEvent};
use crate::place::Env;

/// `service.version` and `app.version`.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The longest a session's end waits for the last export.
const FLUSH_LIMIT: Duration = Duration::from_secs(2);

/// A session's telemetry: the exporter and what is pending between events.
pub(crate) struct SessionTelemetry {
    meter: Telemetry,
    terminal: Option<String>,
    pending: Mutex<Pending>,
}

#[derive(Default)]
struct Pending {
    /// Tool calls decided (or seen) and not yet answered, by tool_use id.
    calls: HashMap<String, Call>,
    /// The request being made: model, since when, retries so far.
    request: Option<(String, Instant, u32)>,
}

struct Call {
    name: String,
    input: Value,
    since: Instant,
    decision: Option<(&'static str, &'static str)>,
}

/// How often `otelHeadersHelper` is asked again (Claude Code's default
/// `CLAUDE_CODE_OTEL_HEADERS_HELPER_DEBOUNCE_MS`: 29 minutes).
const HEADERS_HELPER_EVERY: Duration = Duration::from_secs(29 * 60);

/// `None` unless the environment turns telemetry on. `headers_helper`: the
/// settings' `otelHeadersHelper` and the folder it runs in.
pub(crate) fn start(
    env: &Env,
    events: &mpsc::UnboundedSender<RuntimeEvent>,
    headers_helper: Option<(String, std::path::PathBuf)>,
) -> Option<Arc<SessionTelemetry>> {
    let config = Config::from_env(|k| env.get(k))?;
    let notices = events.downgrade();
    let warn = move |text: String| {
        if let Some(tx) = notices.upgrade() {
            let _ = tx.send(RuntimeEvent::Notice(Notice::warning(format!(
                "warning: {text}"
            ))));
        }
    };
    if !config.unknown_exporters.is_empty() {
        warn(format!(
            "telemetry exporters not supported: {}",
            config.unknown_exporters.join(", ")
        ));
    }
    let tls = tack_api::tls::client_config(false).ok();
    let every = env
        .get("CLAUDE_CODE_OTEL_HEADERS_HELPER_DEBOUNCE_MS")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(HEADERS_HELPER_EVERY, Duration::from_millis);
    let helper = headers_helper.map(|(command, cwd)| {
        let helper: HeadersHelper = Arc::new(move || {
            let (command, cwd) = (command.clone(), cwd.clone());
            Box::pin(async move {
                let timeout = tack_config::API_KEY_HELPER_TIMEOUT;
                (tack_config::run_otel_headers_helper(&command, &cwd, timeout).await)
                    .map_err(|e| e.to_string())
            })
        });
        (helper, every)
    });
    let meter = Telemetry::start(config, VERSION, tls, helper, warn).ok()?;
    Some(Arc::new(SessionTelemetry {
        meter,
        terminal: env.get("TERM_PROGRAM"),
        pending: Mutex::new(Pending::default()),
    }))
}

impl SessionTelemetry {
    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `session.id`, `app.version`, `terminal.type` as the variables allow.
    pub(crate) fn set_session(&self, session_id: &str) {
        let c = self.meter.config();
        let mut attrs = Vec::new();
        if c.include_session_id {
            attrs.push(("session.id".to_owned(), session_id.to_owned()));
        }
        if c.include_version {
            attrs.push(("app.version".to_owned(), VERSION.to_owned()));
        }
        if let Some(t) = &self.terminal {
            attrs.push(("terminal.type".to_owned(), t.clone()));
        }
        self.meter.set_standard(attrs);
    }

    pub(crate) async fn flush(&self) {
        self.meter.flush(FLUSH_LIMIT).await;
    }

    /// `claude_code.user_prompt`.
    pub(crate) fn user_prompt(&self, message: &Message) {
        let text = message.text();
        let mut attrs = vec![("prompt_length", text.chars().count().to_string())];
        if self.meter.config().log_user_prompts {
            attrs.push(("prompt", text));
        }
        self.meter.event("user_prompt", attrs);
    }

    /// `claude_code.tool_decision` (and `code_edit_tool.decision` for the
    /// file-editing tools); the call's clock starts.
    pub(crate) fn tool_decision(
        &self,
        tool_use_id: &str,
        (name, input): (&str, &Value),
        accepted: bool,
        source: &'static str,
    ) {
        let decision = if accepted { "accept" } else { "reject" };
        self.meter.event(
            "tool_decision",
            vec![
                ("tool_name", name.to_owned()),
                ("decision", decision.to_owned()),
                ("source", source.to_owned()),
            ],
        );
        if matches!(name, "Edit" | "Write" | "MultiEdit" | "NotebookEdit") {
            let path = ["file_path", "notebook_path"]
                .iter()
                .find_map(|k| input.get(*k).and_then(Value::as_str))
                .unwrap_or("");
            let attrs = [
                ("tool_name", name.to_owned()),
                ("decision", decision.to_owned()),
                ("source", source.to_owned()),
                ("language", language(path).to_owned()),
            ];
            self.meter.add(Metric::CodeEditToolDecision, 1.0, &attrs);
        }
        self.pending().calls.insert(
            tool_use_id.to_owned(),
            Call {
                name: name.to_owned(),
                input: input.clone(),
                since: Instant::now(),
                decision: Some((decision, source)),
            },
        );
    }

    /// Called with every event the runtime emits, before it is sent.
    pub(crate) fn observe(&self, event: &RuntimeEvent) {
        match event {
            RuntimeEvent::Started(info) => {
                self.set_session(&info.session_id);
                self.meter.add(Metric::SessionCount, 1.0, &[]);
            }
            RuntimeEvent::ConversationReset(reset) => self.set_session(&reset.new_session_id),
            RuntimeEvent::Loop(event) => self.loop_event(event),
            // A sub-agent's requests and tool calls are the session's too.
            RuntimeEvent::Subagent(sub) => self.loop_event(&sub.event),
            RuntimeEvent::TurnEnded(end) => {
                let seconds = end.record.duration_ms as f64 / 1000.0;
                self.meter.add(Metric::ActiveTime, seconds, &[]);
                if end.record.terminal_reason.as_deref() == Some("api_error") {
                    let status = end.record.api_error_status.map(|s| s.to_string());
                    let error = end.record.result.clone().unwrap_or_default();
                    let attempt = self.pending().request.as_ref().map_or(0, |r| r.2) + 1;
                    let status = status.unwrap_or_else(|| "undefined".into());
                    self.api_error(error, status, attempt);
                }
            }
            _ => {}
        }
    }

    fn loop_event(&self, event: &LoopEvent) {
        match event {
            LoopEvent::RequestStart { model, .. } => {
                self.pending().request = Some((model.clone(), Instant::now(), 0));
            }
            LoopEvent::Retry { attempt, error, .. } => {
                let status = error.status().map_or("undefined".into(), |s| s.to_string());
                self.api_error(error.to_string(), status, *attempt);
                if let Some(r) = self.pending().request.as_mut() {
                    r.2 = *attempt;
                }
            }
            LoopEvent::AssistantMessage(a) => {
                self.api_request(&a.model, &a.usage, a.api_duration);
                let mut pending = self.pending();
                for (id, name, input) in a.message.tool_uses() {
                    pending.calls.entry(id.to_owned()).or_insert_with(|| Call {
                        name: name.to_owned(),
                        input: input.clone(),
                        since: Instant::now(),
                        decision: None,
                    });
                }
            }
            LoopEvent::ToolResults(results) => {
                for info in &results.results {
                    let call = self.pending().calls.remove(&info.tool_use_id);
                    if let Some(call) = call {
                        let error = (info.is_error)
                            .then(|| result_text(&results.message, &info.tool_use_id));
                        self.tool_result(&call, error);
                    }
                }
            }
            _ => {}
        }
    }

    fn api_request(&self, model: &str, usage: &tack_protocol::Usage, duration: Duration) {
        let cost = tack_api::cost(model, usage).usd;
        self.meter.event(
            "api_request",
            vec![
                ("model", model.to_owned()),
                ("cost_usd", cost.to_string()),
                ("duration_ms", duration.as_millis().to_string()),
                ("input_tokens", usage.input_tokens.to_string()),
                ("output_tokens", usage.output_tokens.to_string()),
                (
                    "cache_read_tokens",
                    usage.cache_read_input_tokens.to_string(),
                ),
                (
                    "cache_creation_tokens",
                    usage.cache_creation_input_tokens.to_string(),
                ),
            ],
        );
        let model_attr = [("model", model.to_owned())];
        self.meter.add(Metric::Cost, cost, &model_attr);
        for (kind, n) in [
            ("input", usage.input_tokens),
            ("output", usage.output_tokens),
            ("cacheRead", usage.cache_read_input_tokens),
            ("cacheCreation", usage.cache_creation_input_tokens),
        ] {
            let attrs = [("model", model.to_owned()), ("type", kind.to_owned())];
            self.meter.add(Metric::Tokens, n as f64, &attrs);
        }
    }

    /// `attempt`: which try failed (from 1).
    fn api_error(&self, error: String, status_code: String, attempt: u32) {
        let (model, since, _) = self
            .pending()
            .request
            .clone()
            .unwrap_or_else(|| (String::new(), Instant::now(), 0));
        self.meter.event(
            "api_error",
            vec![
                ("model", model),
                ("error", error),
                ("status_code", status_code),
                ("duration_ms", since.elapsed().as_millis().to_string()),
                ("attempt", attempt.to_string()),
            ],
        );
    }

    fn tool_result(&self, call: &Call, error: Option<String>) {
        let success = error.is_none();
        let mut attrs = vec![
            ("tool_name", call.name.clone()),
            ("success", success.to_string()),
            ("duration_ms", call.since.elapsed().as_millis().to_string()),
        ];
        if let Some(error) = error {
            attrs.push(("error", error));
        }
        if let Some((decision, source)) = call.decision {
            attrs.push(("decision", decision.to_owned()));
            attrs.push(("source", source.to_owned()));
        }
        let details = self.meter.config().log_tool_details;
        if let Some(params) = tool_parameters(&call.name, &call.input, details) {
            attrs.push(("tool_parameters", params.to_string()));
        }
        self.meter.event("tool_result", attrs);
        if !success {
            return;
        }
        let command = call.input.get("command").and_then(Value::as_str);
        if let (Some(command), "Bash") = (command, call.name.as_str()) {
            let (commits, prs) = commits_and_prs(command);
            if commits > 0 {
                self.meter.add(Metric::Commits, commits as f64, &[]);
            }
            if prs > 0 {
                self.meter.add(Metric::PullRequests, prs as f64, &[]);
            }
        }
        let (added, removed) = lines_changed(&call.name, &call.input);
        for (kind, n) in [("added", added), ("removed", removed)] {
            if n > 0 {
                let attrs = [("type", kind.to_owned())];
                self.meter.add(Metric::LinesOfCode, n as f64, &attrs);
            }
        }
    }
}

/// A failed call's result text (what the model was told).
fn result_text(message: &Message, id: &str) -> String {
    message
        .content
        .iter()
        .find_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } if tool_use_id == id => Some(content.as_ref().map(|c| c.to_text())),
            _ => None,
        })
        .flatten()
        .unwrap_or_default()
}

/// The `git commit` and `gh pr create` commands of a (successful) Bash
/// command: each simple command's words, git's global options (`-c k=v`,
/// `-C dir`) skipped.
fn commits_and_prs(command: &str) -> (usize, usize) {
    let (mut commits, mut prs) = (0, 0);
    for part in command.split(['&', ';', '|', '\n']) {
        let words: Vec<&str> = part.split_whitespace().collect();
        match words.as_slice() {
            ["git", rest @ ..] => {
                let mut rest = rest.iter();
                while let Some(w) = rest.next() {
                    match *w {
                        "-c" | "-C" | "--git-dir" | "--work-tree" => {
                            rest.next();
                        }
                        w if w.starts_with('-') => {}
                        "commit" => {
                            commits += 1;
                            break;
                        }
                        _ => break,
                    }
                }
            }
            ["gh", "pr", "create", ..] => prs += 1,
            _ => {}
        }
    }
    (commits, prs)
}

/// Bash's `tool_parameters` (Claude Code's: the command's first word, the
/// whole command, the timeout and description when given); MCP tools' server
/// and tool names with `OTEL_LOG_TOOL_DETAILS=1`.
fn tool_parameters(name: &str, input: &Value, details: bool) -> Option<Value> {
    if name == "Bash" {
        let command = input.get("command").and_then(Value::as_str)?;
        let first = command.split_whitespace().next().unwrap_or("");
        let mut params = json!({"bash_command": first, "full_command": command});
        for key in ["timeout", "description"] {
            if let Some(v) = input.get(key) {
                params[key] = v.clone();
            }
        }
        return Some(params);
    }
    if !details {
        return None;
    }
    let (server, tool) = name.strip_prefix("mcp__")?.split_once("__")?;
    Some(json!({"mcp_server_name": server, "mcp_tool_name": tool}))
}

/// Lines added and removed by a successful file edit, from its input: the
/// lines that differ once the common first and last lines are set aside
/// (also the status line's `cost.total_lines_added` / `_removed`).
pub fn lines_changed(name: &str, input: &Value) -> (usize, usize) {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    match name {
        "Edit" => diff_lines(&s(input, "old_string"), &s(input, "new_string")),
        "MultiEdit" => input
            .get("edits")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|e| diff_lines(&s(e, "old_string"), &s(e, "new_string")))
            .fold((0, 0), |(a, r), (a2, r2)| (a + a2, r + r2)),
        "Write" => (s(input, "content").lines().count(), 0),
        "NotebookEdit" => (s(input, "new_source").lines().count(), 0),
        _ => (0, 0),
    }
}

fn diff_lines(old: &str, new: &str) -> (usize, usize) {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (new.len() - prefix - suffix, old.len() - prefix - suffix)
}

/// The `language` of `code_edit_tool.decision`, from the file's extension.
fn language(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "rs" => "Rust",
        "py" => "Python",
        "ts" | "tsx" => "TypeScript",
        "js" | "jsx" | "mjs" | "cjs" => "JavaScript",
        "go" => "Go",
        "java" => "Java",
        "c" | "h" => "C",
        "cc" | "cpp" | "hpp" => "C++",
        "rb" => "Ruby",
        "sh" | "bash" => "Shell",
        "md" => "Markdown",
        "json" => "JSON",
        "yaml" | "yml" => "YAML",
        "toml" => "TOML",
        "html" => "HTML",
        "css" => "CSS",
        "txt" => "Plain text",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_count_the_lines_that_differ() {
        assert_eq!(diff_lines("a\nb\nc", "a\nx\ny\nc"), (2, 1));
        assert_eq!(diff_lines("", "one\ntwo"), (2, 0));
        let edits = json!({"edits": [
            {"old_string": "a", "new_string": "b"},
            {"old_string": "k\nl", "new_string": "k"}
        ]});
        assert_eq!(lines_changed("MultiEdit", &edits), (1, 2));
    }

    #[test]
    fn commits_and_pull_requests_are_found_in_commands() {
        assert_eq!(commits_and_prs("git add . && git commit -m x"), (1, 0));
        assert_eq!(commits_and_prs("git -c user.name=a commit -qm x"), (1, 0));
        assert_eq!(commits_and_prs("echo git commit; git log"), (0, 0));
        assert_eq!(commits_and_prs("git push && gh pr create --fill"), (0, 1));
    }
}
