//! The `hooks` settings key, in Claude Code's shape:
//!
//! ```json
//! {"PreToolUse": [{"matcher": "Bash|Edit",
//!   "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}
//! ```
//!
//! Several settings files merge: every group of every file runs (identical handlers
//! run once per event).

use std::collections::BTreeMap;
use std::time::Duration;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

/// Claude Code's renamed tools: (legacy name, current name). A matcher naming
/// either matches both.
pub const LEGACY_TOOL_NAMES: &[(&str, &str)] = &[
    ("BashOutput", "TaskOutput"),
    ("KillShell", "TaskStop"),
    ("KillBash", "TaskStop"),
    ("Task", "Agent"),
];

/// What a group's `matcher` selects.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// `""`, `"*"` or no matcher: everything.
    All,
    /// Only `[A-Za-z0-9_\- ,|]`: exact names split on `|` and `,`.
    Names(Vec<String>),
    /// Anything else: an unanchored regex (`^Edit$` to anchor).
    Regex(Regex),
}

impl Matcher {
    /// Parses a matcher string.
    pub fn parse(m: Option<&str>) -> Result<Matcher, regex::Error> {
        let Some(m) = m.map(str::trim) else {
            return Ok(Matcher::All);
        };
        if m.is_empty() || m == "*" {
            return Ok(Matcher::All);
        }
        if m.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b' ' | b',' | b'|'))
        {
            return Ok(Matcher::Names(
                m.split(['|', ','])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            ));
        }
        Regex::new(m).map(Matcher::Regex)
    }

    /// True when the matcher selects `value` (or, for tool names, one of its
    /// legacy/current names).
    pub fn matches(&self, value: &str) -> bool {
        let mut candidates = vec![value];
        for (old, new) in LEGACY_TOOL_NAMES {
            if *old == value {
                candidates.push(new);
            }
            if *new == value {
                candidates.push(old);
            }
        }
        match self {
            Matcher::All => true,
            Matcher::Names(names) => candidates.iter().any(|c| names.iter().any(|n| n == c)),
            Matcher::Regex(re) => candidates.iter().any(|c| re.is_match(c)),
        }
    }
}

/// What runs when a hook fires (the handler's `type`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HookKind {
    /// `type: "command"`: a process; `command` and `args` say which.
    Command,
    /// `type: "http"`: the input JSON is POSTed to `url`; the response body
    /// is read like a command hook's stdout.
    Http {
        url: String,
        /// Header values, `$VAR` / `${VAR}` expanded for the names in
        /// `allowed_env_vars` only.
        headers: Vec<(String, String)>,
        allowed_env_vars: Vec<String>,
    },
    /// `type: "prompt"`: a small model call with `prompt` (`$ARGUMENTS`
    /// replaced by the input JSON) answers `{"ok": bool, "reason": ...}`.
    Prompt {
        prompt: String,
        /// The model, if not the runner's small fast model.
        model: Option<String>,
    },
    /// `type: "mcp_tool"`: a tool of a connected MCP server is called with
    /// `input` (its strings' `${path}` replaced from the hook input); the
    /// tool's text is read like a command hook's stdout.
    McpTool {
        server: String,
        tool: String,
        /// The `input` object as JSON text (`{}` when absent).
        input: String,
    },
    /// `type: "agent"`: a small sub-agent with read-only tools checks
    /// `prompt` (`$ARGUMENTS` replaced by the input JSON) and answers
    /// `{"ok": bool, "reason": ...}`, read as a prompt hook's answer.
    Agent {
        prompt: String,
        /// The model, if not the runner's small fast model.
        model: Option<String>,
    },
}

/// One hook handler of a matcher group (a command, an HTTP endpoint, a
/// prompt, an MCP tool or an agent; see [`HookKind`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommandHook {
    /// Shell text (run with `sh -c`), or the program when `args` is set; for
    /// other kinds, what names the hook in messages (its URL, its prompt,
    /// `mcp__<server>__<tool>`).
    pub command: String,
    /// The handler's type.
    pub kind: HookKind,
    /// Exec form: arguments, no shell.
    pub args: Option<Vec<String>>,
    /// Per-hook timeout; `None`: the runner's default.
    pub timeout: Option<Duration>,
    /// `"async": true`: runs in the background; the event does not wait for it
    /// and its output has no effect (Claude Code's linters-after-edit hooks).
    pub is_async: bool,
    /// `"asyncRewake": true` (implies async): when the hook exits with 2, its
    /// stderr (or stdout) wakes the model as a new user turn.
    pub async_rewake: bool,
    /// `rewakeMessage`: the text that leads the rewake turn.
    pub rewake_message: Option<String>,
    /// `if`: a permission rule (`Bash(git *)`) the tool call must match
    /// (tool events only; on other events a hook with `if` never runs).
    pub condition: Option<String>,
    /// `"once": true`: runs at most once per session.
    pub once: bool,
    /// Environment of this hook alone, over the runner's (a plugin's hooks
    /// get `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`).
    pub env: Vec<(String, String)>,
}

impl CommandHook {
    /// A shell command hook with every option at its default.
    pub fn shell(command: &str) -> CommandHook {
        CommandHook {
            command: command.to_owned(),
            kind: HookKind::Command,
            args: None,
            timeout: None,
            is_async: false,
            async_rewake: false,
            rewake_message: None,
            condition: None,
            once: false,
            env: Vec::new(),
        }
    }
}

/// One callback hook: a function that lives in the front end's client (an
/// Agent SDK's `hooks` option), registered by id and called through a
/// [`crate::HookCallbacks`] executor. Its JSON answer is read exactly like a
/// command hook's JSON stdout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallbackHook {
    /// The client's id for the function (`hook_0`, `hook_1`, ...).
    pub id: String,
    /// How long to wait for the answer; `None`: the runner's default.
    pub timeout: Option<Duration>,
    /// What a callback that fails (error answer, malformed answer, timeout)
    /// means for the event.
    pub on_failure: OnFailure,
}

/// What a failed callback hook means (the SDKs' `onFailure`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum OnFailure {
    /// A non-blocking error, reported to the user (the default).
    #[default]
    Continue,
    /// The event is blocked as by an exit-2 command hook, with the failure as
    /// the message (for events that can block).
    Block,
}

/// Callback hooks for one event and matcher, as a client registers them
/// (`{"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallbackMatcher {
    /// The event name (`PreToolUse`, ...).
    pub event: String,
    /// The matcher text, as in settings; `None` matches everything.
    pub matcher: Option<String>,
    pub hooks: Vec<CallbackHook>,
}

/// A matcher and its hooks.
#[derive(Debug, Clone)]
pub struct HookGroup {
    /// The matcher as written (for messages).
    pub matcher_text: Option<String>,
    /// The parsed matcher.
    pub matcher: Matcher,
    /// The command hooks (other handler types are skipped with a warning).
    pub hooks: Vec<CommandHook>,
    /// The callback hooks (registered by a client, never read from settings).
    pub callbacks: Vec<CallbackHook>,
}

impl HookGroup {
    fn is_empty(&self) -> bool {
        self.hooks.is_empty() && self.callbacks.is_empty()
    }

    /// True when the group runs for `target` (`None`: the event ignores
    /// matchers). FileChanged's matcher is a list of file names, compared
    /// literally (`.envrc|.env`), not a regex.
    fn selects(&self, event: &str, target: Option<&str>) -> bool {
        let Some(t) = target else {
            return true;
        };
        match (&self.matcher, self.matcher_text.as_deref()) {
            (Matcher::All, _) | (_, None) => true,
            (_, Some(names)) if event == "FileChanged" => {
                names.split(['|', ',']).any(|n| n.trim() == t)
            }
            (m, Some(_)) => m.matches(t),
        }
    }
}

/// Every configured hook, by event name.
#[derive(Debug, Clone, Default)]
pub struct HooksConfig {
    pub(crate) events: BTreeMap<String, Vec<HookGroup>>,
    pub(crate) warnings: Vec<String>,
}

/// A `hooks` value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid hooks configuration in {source_desc}: {message}")]
pub struct HookConfigError {
    /// The settings file (or source name).
    pub source_desc: String,
    /// What is wrong, with the JSON path.
    pub message: String,
}

#[derive(Deserialize)]
struct RawGroup {
    matcher: Option<String>,
    #[serde(default)]
    hooks: Vec<RawHandler>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawHandler {
    #[serde(rename = "type")]
    kind: String,
    command: Option<String>,
    args: Option<Vec<String>>,
    timeout: Option<f64>,
    #[serde(default, rename = "async")]
    is_async: bool,
    #[serde(default)]
    async_rewake: bool,
    rewake_message: Option<String>,
    #[serde(rename = "if")]
    condition: Option<String>,
    #[serde(default)]
    once: bool,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    allowed_env_vars: Vec<String>,
    prompt: Option<String>,
    model: Option<String>,
    server: Option<String>,
    tool: Option<String>,
    input: Option<Value>,
}

/// Events tack runs.
pub const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "TeammateIdle",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "Notification",
    "InstructionsLoaded",
    "ConfigChange",
    "CwdChanged",
    "FileChanged",
    "PreSkillShellCommand",
    "WorktreeCreate",
    "WorktreeRemove",
    "TaskCreated",
    "TaskCompleted",
];

/// One handler of a group (`place` names it in errors); `None` for a type
/// tack does not run.
fn handler(
    h: RawHandler,
    place: &str,
    env: &[(String, String)],
) -> Result<Option<CommandHook>, String> {
    let required = |v: Option<String>, key: &str| {
        v.filter(|c| !c.trim().is_empty())
            .ok_or_else(|| format!("{place} has no `{key}`"))
    };
    let (command, kind) = match h.kind.as_str() {
        "command" => (required(h.command, "command")?, HookKind::Command),
        "http" => {
            let url = required(h.url, "url")?;
            let kind = HookKind::Http {
                url: url.clone(),
                headers: h.headers.into_iter().collect(),
                allowed_env_vars: h.allowed_env_vars,
            };
            (url, kind)
        }
        "prompt" | "agent" => {
            let prompt = required(h.prompt, "prompt")?;
            let kind = match h.kind.as_str() {
                "agent" => HookKind::Agent {
                    prompt: prompt.clone(),
                    model: h.model,
                },
                _ => HookKind::Prompt {
                    prompt: prompt.clone(),
                    model: h.model,
                },
            };
            (prompt, kind)
        }
        "mcp_tool" => {
            let server = required(h.server, "server")?;
            let tool = required(h.tool, "tool")?;
            let input = match h.input {
                None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
                Some(v @ Value::Object(_)) => v,
                Some(_) => return Err(format!("{place}.input must be an object")),
            };
            let name = format!("mcp__{server}__{tool}");
            let kind = HookKind::McpTool {
                server,
                tool,
                input: input.to_string(),
            };
            (name, kind)
        }
        _ => return Ok(None),
    };
    let timeout = match h.timeout {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t.min(86_400.0))),
        Some(t) => {
            return Err(format!(
                "{place}.timeout must be a positive number of seconds (got {t})"
            ));
        }
    };
    Ok(Some(CommandHook {
        command,
        kind,
        args: h.args,
        timeout,
        is_async: h.is_async || h.async_rewake,
        async_rewake: h.async_rewake,
        rewake_message: h.rewake_message,
        condition: h.condition.filter(|c| !c.trim().is_empty()),
        once: h.once,
        env: env.to_vec(),
    }))
}

impl HooksConfig {
    /// No hooks.
    pub fn new() -> HooksConfig {
        HooksConfig::default()
    }

    /// Parses one settings file's `hooks` value and merges it in. `source_desc`
    /// names the file in errors and warnings.
    pub fn merge_value(&mut self, source_desc: &str, hooks: &Value) -> Result<(), HookConfigError> {
        self.merge_value_with_env(source_desc, hooks, &[])
    }

    /// As [`HooksConfig::merge_value`], each hook of `hooks` run with `env`
    /// over the runner's environment (a plugin's hooks).
    pub fn merge_value_with_env(
        &mut self,
        source_desc: &str,
        hooks: &Value,
        env: &[(String, String)],
    ) -> Result<(), HookConfigError> {
        let err = |message: String| HookConfigError {
            source_desc: source_desc.to_string(),
            message,
        };
        let Some(obj) = hooks.as_object() else {
            return Err(err("`hooks` must be an object of event names".into()));
        };
        for (event, groups) in obj {
            if !EVENTS.contains(&event.as_str()) {
                self.warnings.push(format!(
                    "{source_desc}: hooks for `{event}` are ignored (event not supported)"
                ));
                continue;
            }
            let raw: Vec<RawGroup> = serde_json::from_value(groups.clone())
                .map_err(|e| err(format!("hooks.{event}: {e}")))?;
            for (gi, g) in raw.into_iter().enumerate() {
                let matcher = Matcher::parse(g.matcher.as_deref()).map_err(|e| {
                    err(format!(
                        "hooks.{event}[{gi}].matcher is not a valid regex: {e}"
                    ))
                })?;
                let mut hooks = Vec::new();
                for (hi, h) in g.hooks.into_iter().enumerate() {
                    let place = format!("hooks.{event}[{gi}].hooks[{hi}]");
                    match handler(h, &place, env) {
                        Ok(Some(hook)) => hooks.push(hook),
                        Ok(None) => self.warnings.push(format!(
                            "{source_desc}: {place} is ignored (tack runs `command`, `http`, `mcp_tool`, `prompt` and `agent` hooks)"
                        )),
                        Err(message) => return Err(err(message)),
                    }
                }
                self.events
                    .entry(event.clone())
                    .or_default()
                    .push(HookGroup {
                        matcher_text: g.matcher,
                        matcher,
                        hooks,
                        callbacks: Vec::new(),
                    });
            }
        }
        Ok(())
    }

    /// Parses one `hooks` value.
    pub fn from_value(source_desc: &str, hooks: &Value) -> Result<HooksConfig, HookConfigError> {
        let mut c = HooksConfig::new();
        c.merge_value(source_desc, hooks)?;
        Ok(c)
    }

    /// Registers a client's callback hooks (`source_desc` names the client in
    /// errors and warnings). They run beside the command hooks of the same
    /// event, with the same matcher logic; an event tack does not fire is a
    /// warning, as in settings.
    pub fn add_callbacks(
        &mut self,
        source_desc: &str,
        callbacks: &CallbackMatcher,
    ) -> Result<(), HookConfigError> {
        let event = &callbacks.event;
        if !EVENTS.contains(&event.as_str()) {
            self.warnings.push(format!(
                "{source_desc}: hooks for `{event}` are ignored (event not supported)"
            ));
            return Ok(());
        }
        let matcher =
            Matcher::parse(callbacks.matcher.as_deref()).map_err(|e| HookConfigError {
                source_desc: source_desc.to_string(),
                message: format!("hooks.{event} matcher is not a valid regex: {e}"),
            })?;
        self.events
            .entry(event.clone())
            .or_default()
            .push(HookGroup {
                matcher_text: callbacks.matcher.clone(),
                matcher,
                hooks: Vec::new(),
                callbacks: callbacks.hooks.clone(),
            });
        Ok(())
    }

    /// Warnings about ignored parts.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Every matcher group, with its event, in event-name order and then
    /// configuration order (what `/hooks` lists).
    pub fn groups(&self) -> impl Iterator<Item = (&str, &HookGroup)> {
        self.events
            .iter()
            .flat_map(|(event, groups)| groups.iter().map(move |g| (event.as_str(), g)))
    }

    /// True when `event` has at least one hook.
    pub fn has_hooks(&self, event: &str) -> bool {
        self.events
            .get(event)
            .is_some_and(|gs| gs.iter().any(|g| !g.is_empty()))
    }

    /// The distinct hooks for `event` whose matcher selects `target` (`None`: the
    /// event ignores matchers), in configuration order.
    pub fn matching(&self, event: &str, target: Option<&str>) -> Vec<CommandHook> {
        let mut out: Vec<CommandHook> = Vec::new();
        for g in self.events.get(event).into_iter().flatten() {
            if !g.selects(event, target) {
                continue;
            }
            for h in &g.hooks {
                if !out.contains(h) {
                    out.push(h.clone());
                }
            }
        }
        out
    }

    /// The distinct callback hooks for `event` whose matcher selects `target`,
    /// in registration order.
    pub fn matching_callbacks(&self, event: &str, target: Option<&str>) -> Vec<CallbackHook> {
        let mut out: Vec<CallbackHook> = Vec::new();
        for g in self.events.get(event).into_iter().flatten() {
            if !g.selects(event, target) {
                continue;
            }
            for h in &g.callbacks {
                if !out.contains(h) {
                    out.push(h.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matchers() {
        let m = |s: &str| Matcher::parse(Some(s)).unwrap();
        assert!(m("").matches("Bash"));
        assert!(m("*").matches("Bash"));
        assert!(Matcher::parse(None).unwrap().matches("x"));
        assert!(m("Edit|Write").matches("Write"));
        assert!(!m("Edit|Write").matches("Bash"));
        assert!(!m("Edit").matches("NotebookEdit"));
        assert!(m("Edit, Bash").matches("Bash"));
        assert!(m("mcp__memory__.*").matches("mcp__memory__save"));
        assert!(m("Edit.*").matches("NotebookEdit"));
        assert!(!m("^Edit$").matches("NotebookEdit"));
        assert!(m("Task").matches("Agent"));
        assert!(m("BashOutput").matches("TaskOutput"));
        assert!(m("Agent").matches("Task"));
        assert!(Matcher::parse(Some("(")).is_err());
    }

    #[test]
    fn config_parses_merges_and_dedupes() {
        let v = json!({
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "a.sh", "timeout": 5}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "a.sh", "timeout": 5},
                                            {"type": "agent", "prompt": "x"},
                                            {"type": "mcp_tool", "server": "s", "tool": "t",
                                             "input": {"path": "${tool_input.file_path}"}},
                                            {"type": "script", "command": "x"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}],
            "FileChanged": [{"hooks": []}]
        });
        let mut c = HooksConfig::from_value("user", &v).unwrap();
        c.merge_value(
            "project",
            &json!({"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "b.sh"}]}]}),
        )
        .unwrap();
        assert_eq!(
            c.warnings(),
            &["user: hooks.PreToolUse[1].hooks[3] is ignored (tack runs `command`, `http`, `mcp_tool`, `prompt` and `agent` hooks)".to_owned()]
        );
        let kinds: Vec<HookKind> = c
            .matching("PreToolUse", Some("Write"))
            .into_iter()
            .map(|h| h.kind)
            .collect();
        assert_eq!(
            kinds,
            vec![
                HookKind::Command,
                HookKind::Agent {
                    prompt: "x".to_owned(),
                    model: None
                },
                HookKind::McpTool {
                    server: "s".to_owned(),
                    tool: "t".to_owned(),
                    input: r#"{"path":"${tool_input.file_path}"}"#.to_owned()
                },
            ]
        );
        let names = |hs: Vec<CommandHook>| hs.into_iter().map(|h| h.command).collect::<Vec<_>>();
        assert_eq!(
            names(c.matching("PreToolUse", Some("Bash"))),
            vec!["a.sh", "x", "mcp__s__t"]
        );
        assert_eq!(
            names(c.matching("PreToolUse", Some("Edit"))),
            vec!["a.sh", "x", "mcp__s__t", "b.sh"]
        );
        assert_eq!(names(c.matching("Stop", None)), vec!["stop.sh"]);
        assert!(c.has_hooks("Stop"));
        assert!(!c.has_hooks("PreCompact"));
    }

    #[test]
    fn config_errors_name_the_place() {
        let e = HooksConfig::from_value(
            "/p/.tack/settings.json",
            &json!({"PreToolUse": [{"matcher": "([", "hooks": []}]}),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with(
            "invalid hooks configuration in /p/.tack/settings.json: hooks.PreToolUse[0].matcher is not a valid regex"
        ));
        let e = HooksConfig::from_value("x", &json!({"Stop": [{"hooks": [{"type": "command"}]}]}))
            .unwrap_err();
        assert_eq!(e.message, "hooks.Stop[0].hooks[0] has no `command`");
        let e = HooksConfig::from_value(
            "x",
            &json!({"Stop": [{"hooks": [{"type": "mcp_tool", "server": "s"}]}]}),
        )
        .unwrap_err();
        assert_eq!(e.message, "hooks.Stop[0].hooks[0] has no `tool`");
        let e = HooksConfig::from_value(
            "x",
            &json!({"Stop": [{"hooks": [{"type": "mcp_tool", "server": "s", "tool": "t", "input": [1]}]}]}),
        )
        .unwrap_err();
        assert_eq!(e.message, "hooks.Stop[0].hooks[0].input must be an object");
        assert!(
            HooksConfig::from_value(
                "x",
                &json!({"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]})
            )
            .is_err()
        );
    }
}
