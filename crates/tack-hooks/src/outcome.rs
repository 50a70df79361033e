//! Interpreting hook runs the way Claude Code does, and aggregating several hooks
//! of one event into one [`HookOutcome`].
//!
//! Per hook:
//! - exit 0: stdout starting with `{` that parses as a JSON object is the hook's
//!   JSON output; any other stdout is plain text (shown in verbose mode; added as
//!   context for UserPromptSubmit and SessionStart). Garbage is never an error.
//! - exit 2: blocking; stderr (or the JSON `reason`) is the message. PreToolUse:
//!   the call is denied; UserPromptSubmit/PreCompact: blocked, message to the user;
//!   Stop/SubagentStop: the stop is prevented, message to the model; PostToolUse:
//!   message to the model next to the result. SessionStart, SessionEnd and
//!   Notification cannot block: reported as an error.
//! - other codes, signals, timeouts, spawn failures: non-blocking errors.
//! - JSON output is honoured on any exit code (current Claude Code docs).
//!
//! Across hooks: `continue: false` beats everything; permission decisions combine
//! deny > defer > ask > allow; blocking messages and additional context are joined.

use serde_json::Value;

use crate::event::{BlockAudience, HookEvent};
use crate::process::{HookRun, RunStatus};

/// A PreToolUse hook's permission answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PermissionDecision {
    /// Skip the prompt (deny and ask rules still apply).
    Allow,
    /// Prompt the user; the reason is shown to the user.
    Ask,
    /// Print mode only: stop the run, the result carries the deferred tool use.
    Defer,
    /// Block the call; the reason goes to the model. Wins over any allow rule.
    Deny,
}

/// Everything the hooks of one event said.
#[derive(Debug, Clone, PartialEq)]
pub struct HookOutcome {
    pub(crate) event: &'static str,
    pub(crate) audience: BlockAudience,
    pub(crate) runs: Vec<HookRun>,
    pub(crate) continue_session: bool,
    pub(crate) stop_reason: Option<String>,
    pub(crate) suppress_output: bool,
    pub(crate) system_messages: Vec<String>,
    pub(crate) block: Vec<String>,
    pub(crate) permission: Option<(PermissionDecision, Option<String>)>,
    pub(crate) updated_input: Option<Value>,
    pub(crate) additional_context: Vec<String>,
    pub(crate) plain_output: Vec<String>,
    pub(crate) errors: Vec<String>,
    /// PermissionRequest: a deny that also interrupts the turn.
    pub(crate) interrupt: bool,
    /// PermissionRequest: `updatedPermissions` of an allow.
    pub(crate) updated_permissions: Vec<Value>,
    /// PermissionDenied: the model may retry the call.
    pub(crate) retry: bool,
    /// SessionStart, CwdChanged, FileChanged: the files to watch from now on.
    pub(crate) watch_paths: Option<Vec<String>>,
    /// WorktreeCreate: where a hook made the worktree.
    pub(crate) worktree_path: Option<String>,
}

impl HookOutcome {
    pub(crate) fn empty(event: &HookEvent) -> HookOutcome {
        HookOutcome {
            event: event.name(),
            audience: event.block_audience(),
            runs: Vec::new(),
            continue_session: true,
            stop_reason: None,
            suppress_output: false,
            system_messages: Vec::new(),
            block: Vec::new(),
            permission: None,
            updated_input: None,
            additional_context: Vec::new(),
            plain_output: Vec::new(),
            errors: Vec::new(),
            interrupt: false,
            updated_permissions: Vec::new(),
            retry: false,
            watch_paths: None,
            worktree_path: None,
        }
    }

    /// WorktreeCreate: the folder a hook made (the last line of its plain
    /// stdout, or `hookSpecificOutput.worktreePath`; the last hook wins).
    pub fn worktree_path(&self) -> Option<&str> {
        self.worktree_path.as_deref()
    }

    /// SessionStart, CwdChanged, FileChanged: `watchPaths`, the files
    /// FileChanged watches from now on (the last hook that set it wins).
    pub fn watch_paths(&self) -> Option<&[String]> {
        self.watch_paths.as_deref()
    }

    /// PermissionRequest: true when a hook denied with `interrupt: true`.
    pub fn interrupt(&self) -> bool {
        self.interrupt
    }

    /// PermissionRequest: the permission updates an allowing hook asked for
    /// (`updatedPermissions`, as JSON).
    pub fn updated_permissions(&self) -> &[Value] {
        &self.updated_permissions
    }

    /// PermissionDenied: true when a hook said the model may retry.
    pub fn retry(&self) -> bool {
        self.retry
    }

    /// The event name.
    pub fn event(&self) -> &'static str {
        self.event
    }

    /// Every hook's raw run (for verbose display and logs).
    pub fn runs(&self) -> &[HookRun] {
        &self.runs
    }

    /// False when a hook said `continue: false`: stop the session's turn now.
    pub fn should_continue(&self) -> bool {
        self.continue_session
    }

    /// With `continue: false`: the message for the user.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_deref()
    }

    /// True when a hook asked to hide its output from the transcript view.
    pub fn suppress_output(&self) -> bool {
        self.suppress_output
    }

    /// `systemMessage`s: warnings for the user.
    pub fn system_messages(&self) -> &[String] {
        &self.system_messages
    }

    /// The blocking message (exit 2 or `decision: "block"`), for events that can
    /// block; see [`HookOutcome::block_audience`] for who reads it. For PreToolUse
    /// a block is also a [`PermissionDecision::Deny`].
    pub fn blocked(&self) -> Option<String> {
        if self.audience == BlockAudience::None || self.block.is_empty() {
            return None;
        }
        Some(self.block.join("\n"))
    }

    /// Who reads [`HookOutcome::blocked`].
    pub fn block_audience(&self) -> BlockAudience {
        self.audience
    }

    /// PreToolUse: the combined permission decision and its reason;
    /// PermissionRequest: `Allow` or `Deny` (`hookSpecificOutput.decision`,
    /// or exit 2) and the deny message.
    pub fn permission_decision(&self) -> Option<(PermissionDecision, Option<&str>)> {
        self.permission.as_ref().map(|(d, r)| (*d, r.as_deref()))
    }

    /// PreToolUse: the input that replaces the tool's input (`updatedInput`; the
    /// last hook that set it wins).
    pub fn updated_input(&self) -> Option<&Value> {
        self.updated_input.as_ref()
    }

    /// Text to add to the model's context (`additionalContext`, and plain stdout
    /// for UserPromptSubmit and SessionStart), joined by blank lines.
    pub fn additional_context(&self) -> Option<String> {
        (!self.additional_context.is_empty()).then(|| self.additional_context.join("\n\n"))
    }

    /// Plain stdout of successful hooks that is not context (verbose mode).
    pub fn plain_output(&self) -> &[String] {
        &self.plain_output
    }

    /// Non-blocking errors to show the user (`<hook> hook error ...`).
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    fn decide(&mut self, d: PermissionDecision, reason: Option<String>) {
        match &self.permission {
            Some((cur, _)) if *cur >= d => {}
            Some(_) | None => self.permission = Some((d, reason)),
        }
    }

    /// Folds one hook's run in.
    pub(crate) fn absorb(&mut self, event: &HookEvent, run: HookRun) {
        let name = self.event;
        let cmd = &run.command;
        let first_line = |s: &str| s.lines().next().unwrap_or("").trim().to_string();
        let json = parse_json(&run.stdout);
        match &run.status {
            RunStatus::SpawnFailed(e) => {
                self.errors
                    .push(format!("{name} hook error: `{cmd}` could not start: {e}"));
            }
            RunStatus::TimedOut(d) => self.errors.push(format!(
                "{name} hook error: `{cmd}` timed out after {:.1}s and was killed",
                d.as_secs_f64()
            )),
            RunStatus::Cancelled => {}
            RunStatus::CallbackFailed { error, block } => {
                let message = format!("{name} hook error: `{cmd}` failed: {error}");
                match self.audience {
                    BlockAudience::Model | BlockAudience::User if *block => {
                        if matches!(event, HookEvent::PreToolUse { .. }) {
                            self.decide(PermissionDecision::Deny, Some(message.clone()));
                        }
                        self.block.push(message);
                    }
                    BlockAudience::Model | BlockAudience::User | BlockAudience::None => {
                        self.errors.push(message);
                    }
                }
            }
            RunStatus::Signaled(sig) => self.errors.push(format!(
                "{name} hook error: `{cmd}` was killed by signal {sig}"
            )),
            RunStatus::Exited(0) => {
                if json.is_none() {
                    let text = run.stdout.trim();
                    if matches!(event, HookEvent::WorktreeCreate { .. }) {
                        let last = text.lines().rev().map(str::trim).find(|l| !l.is_empty());
                        self.worktree_path = last.map(str::to_owned).or(self.worktree_path.take());
                    }
                    if !text.is_empty() {
                        if event.stdout_is_context() {
                            self.additional_context.push(text.to_string());
                        } else {
                            self.plain_output.push(text.to_string());
                        }
                    }
                }
            }
            RunStatus::Exited(2) => {
                let reason = match run.stderr.trim() {
                    "" => json
                        .as_ref()
                        .and_then(|j| j.get("reason"))
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("blocked by hook `{cmd}`"), str::to_string),
                    s => s.to_string(),
                };
                match self.audience {
                    BlockAudience::None => self.errors.push(format!(
                        "{name} hook error: `{cmd}` exited with status 2: {}",
                        first_line(&reason)
                    )),
                    BlockAudience::Model | BlockAudience::User => {
                        if matches!(
                            event,
                            HookEvent::PreToolUse { .. } | HookEvent::PermissionRequest { .. }
                        ) {
                            self.decide(PermissionDecision::Deny, Some(reason.clone()));
                        }
                        self.block.push(reason);
                    }
                }
            }
            RunStatus::Exited(code) => self.errors.push(format!(
                "{name} hook error: `{cmd}` failed with non-blocking status code {code}: {}",
                first_line(&run.stderr)
            )),
        }
        if let Some(j) = &json
            && !matches!(run.status, RunStatus::TimedOut(_) | RunStatus::Cancelled)
        {
            self.apply_json(event, cmd, j);
        }
        self.runs.push(run);
    }

    fn apply_json(&mut self, event: &HookEvent, cmd: &str, j: &Value) {
        let name = self.event;
        let is_pre = matches!(
            event,
            HookEvent::PreToolUse { .. } | HookEvent::PreSkillShellCommand { .. }
        );
        let s = |k: &str| j.get(k).and_then(Value::as_str).map(str::to_string);
        if j.get("continue").and_then(Value::as_bool) == Some(false) {
            self.continue_session = false;
            if let Some(r) = s("stopReason") {
                self.stop_reason = Some(r);
            }
        }
        if j.get("suppressOutput").and_then(Value::as_bool) == Some(true) {
            self.suppress_output = true;
        }
        if let Some(m) = s("systemMessage") {
            self.system_messages.push(m);
        }
        let reason = s("reason");
        match s("decision").as_deref() {
            Some("block") => {
                let r = reason
                    .clone()
                    .unwrap_or_else(|| format!("blocked by hook `{cmd}`"));
                if is_pre || matches!(event, HookEvent::PermissionRequest { .. }) {
                    self.decide(PermissionDecision::Deny, Some(r.clone()));
                }
                if self.audience != BlockAudience::None {
                    self.block.push(r);
                }
            }
            Some("approve") if is_pre => self.decide(PermissionDecision::Allow, reason),
            Some(other) => self.errors.push(format!(
                "{name} hook error: `{cmd}` returned unknown decision `{other}`"
            )),
            None => {}
        }
        let Some(h) = j.get("hookSpecificOutput").and_then(Value::as_object) else {
            return;
        };
        if let Some(ev) = h.get("hookEventName").and_then(Value::as_str)
            && ev != name
        {
            self.errors.push(format!(
                "{name} hook error: `{cmd}` returned hookSpecificOutput for {ev}; ignored"
            ));
            return;
        }
        if let Some(ctx) = h.get("additionalContext").and_then(Value::as_str)
            && !ctx.trim().is_empty()
        {
            self.additional_context.push(ctx.to_string());
        }
        if matches!(event, HookEvent::PermissionDenied { .. })
            && h.get("retry").and_then(Value::as_bool) == Some(true)
        {
            self.retry = true;
        }
        if let Some(path) = h.get("worktreePath").and_then(Value::as_str)
            && matches!(event, HookEvent::WorktreeCreate { .. })
        {
            self.worktree_path = Some(path.to_owned());
        }
        if matches!(event, HookEvent::PermissionRequest { .. }) {
            self.permission_request(cmd, h.get("decision"));
        }
        if let Some(Value::Array(paths)) = h.get("watchPaths") {
            let paths = paths.iter().filter_map(Value::as_str).map(str::to_owned);
            self.watch_paths = Some(paths.collect());
        }
        if !is_pre {
            return;
        }
        let reason = h
            .get("permissionDecisionReason")
            .and_then(Value::as_str)
            .map(str::to_string);
        match h.get("permissionDecision").and_then(Value::as_str) {
            Some("allow") => self.decide(PermissionDecision::Allow, reason),
            Some("ask") => self.decide(PermissionDecision::Ask, reason),
            Some("defer") => self.decide(PermissionDecision::Defer, reason),
            Some("deny") => {
                let r = reason.unwrap_or_else(|| format!("denied by hook `{cmd}`"));
                self.decide(PermissionDecision::Deny, Some(r));
            }
            Some(other) => self.errors.push(format!(
                "{name} hook error: `{cmd}` returned unknown permissionDecision `{other}`"
            )),
            None => {}
        }
        if let Some(u) = h.get("updatedInput") {
            if u.is_object() {
                self.updated_input = Some(u.clone());
            } else {
                self.errors.push(format!(
                    "{name} hook error: `{cmd}` returned an updatedInput that is not an object; ignored"
                ));
            }
        }
    }
}

impl HookOutcome {
    /// A PermissionRequest hook's `decision`: `{"behavior": "allow",
    /// "updatedInput"?, "updatedPermissions"?}` or `{"behavior": "deny",
    /// "message"?, "interrupt"?}`.
    fn permission_request(&mut self, cmd: &str, decision: Option<&Value>) {
        let Some(d) = decision else {
            return;
        };
        let name = self.event;
        match d.get("behavior").and_then(Value::as_str) {
            Some("allow") => {
                self.decide(PermissionDecision::Allow, None);
                if let Some(u) = d.get("updatedInput").filter(|u| u.is_object()) {
                    self.updated_input = Some(u.clone());
                }
                if let Some(Value::Array(ps)) = d.get("updatedPermissions") {
                    self.updated_permissions.extend(ps.iter().cloned());
                }
            }
            Some("deny") => {
                let message = d
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("denied by hook `{cmd}`"), str::to_owned);
                self.decide(PermissionDecision::Deny, Some(message));
                if d.get("interrupt").and_then(Value::as_bool) == Some(true) {
                    self.interrupt = true;
                }
            }
            other => self.errors.push(format!(
                "{name} hook error: `{cmd}` returned a decision with behavior {other:?}; ignored"
            )),
        }
    }
}

/// stdout that starts with `{` and parses as a JSON object.
fn parse_json(stdout: &str) -> Option<Value> {
    let t = stdout.trim();
    if !t.starts_with('{') {
        return None;
    }
    serde_json::from_str::<Value>(t)
        .ok()
        .filter(Value::is_object)
}

/// The Stop-hook loop guard: a Stop (or SubagentStop) hook that blocks makes the
/// loop continue **once per exit point**; the hooks then run again with
/// `stop_hook_active: true`, and a second block at that exit point stops anyway.
#[derive(Debug, Clone, Default)]
pub struct StopHookGuard {
    active: bool,
}

impl StopHookGuard {
    /// A guard for a fresh exit point.
    pub fn new() -> StopHookGuard {
        StopHookGuard::default()
    }

    /// The `stop_hook_active` value for the next Stop event.
    pub fn stop_hook_active(&self) -> bool {
        self.active
    }

    /// Given the Stop hooks' outcome: `Some(reason)` means continue the loop with
    /// `reason` for the model; `None` means stop.
    pub fn on_stop(&mut self, outcome: &HookOutcome) -> Option<String> {
        if !outcome.should_continue() {
            self.active = false;
            return None;
        }
        match outcome.blocked() {
            Some(reason) if !self.active => {
                self.active = true;
                Some(reason)
            }
            Some(_) | None => {
                self.active = false;
                None
            }
        }
    }
}
