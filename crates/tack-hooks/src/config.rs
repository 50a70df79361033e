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

/// One command hook.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommandHook {
    /// Shell text (run with `sh -c`), or the program when `args` is set.
    pub command: String,
    /// Exec form: arguments, no shell.
    pub args: Option<Vec<String>>,
    /// Per-hook timeout; `None`: the runner's default.
    pub timeout: Option<Duration>,
    /// `"async": true`: runs in the background; the event does not wait for it
    /// and its output has no effect (Claude Code's linters-after-edit hooks).
    pub is_async: bool,
    /// Environment of this hook alone, over the runner's (a plugin's hooks
    /// get `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`).
    pub env: Vec<(String, String)>,
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
struct RawHandler {
    #[serde(rename = "type")]
    kind: String,
    command: Option<String>,
    args: Option<Vec<String>>,
    timeout: Option<f64>,
    #[serde(default, rename = "async")]
    is_async: bool,
}

/// Events tack runs.
pub const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
];

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
                    if h.kind != "command" {
                        self.warnings.push(format!(
                            "{source_desc}: hooks.{event}[{gi}].hooks[{hi}] of type `{}` is ignored (only `command` hooks are supported)",
                            h.kind
                        ));
                        continue;
                    }
                    let Some(command) = h.command.filter(|c| !c.trim().is_empty()) else {
                        return Err(err(format!(
                            "hooks.{event}[{gi}].hooks[{hi}] has no `command`"
                        )));
                    };
                    let timeout = match h.timeout {
                        None => None,
                        Some(t) if t.is_finite() && t > 0.0 => {
                            Some(Duration::from_secs_f64(t.min(86_400.0)))
                        }
                        Some(t) => {
                            return Err(err(format!(
                                "hooks.{event}[{gi}].hooks[{hi}].timeout must be a positive number of seconds (got {t})"
                            )));
                        }
                    };
                    hooks.push(CommandHook {
                        command,
                        args: h.args,
                        timeout,
                        is_async: h.is_async,
                        env: env.to_vec(),
                    });
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
            if let Some(t) = target
                && !g.matcher.matches(t)
            {
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
            if let Some(t) = target
                && !g.matcher.matches(t)
            {
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
                                            {"type": "prompt", "prompt": "x"}]}
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
        assert_eq!(c.warnings().len(), 2);
        let names = |hs: Vec<CommandHook>| hs.into_iter().map(|h| h.command).collect::<Vec<_>>();
        assert_eq!(names(c.matching("PreToolUse", Some("Bash"))), vec!["a.sh"]);
        assert_eq!(
            names(c.matching("PreToolUse", Some("Edit"))),
            vec!["a.sh", "b.sh"]
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
        assert!(
            HooksConfig::from_value(
                "x",
                &json!({"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]})
            )
            .is_err()
        );
    }
}
