//! The decision: given a tool call, allow it, deny it, or ask the user.
//!
//! Order (first that applies wins):
//! 1. **deny rules** (any source) → `Deny`. A deny rule that *might* match (a
//!    dynamic word, an unparseable command, an unresolvable path) → `Ask`.
//! 2. **ask rules** → `Ask`.
//! 3. **plan mode**: a call that is not read-only → `Deny` (present the plan first).
//! 4. **bypassPermissions**: `Allow`, except writes to protected paths (`.git`,
//!    `.claude`, `.tack` inside a working directory) → `Ask`.
//! 5. **allow rules** → `Allow`. A tool-wide allow of a file tool (`Edit`, `Read`)
//!    covers paths inside the working directories only; a path rule covers what it
//!    names. A Bash call is allowed only if *every* simple command in it is allowed
//!    and every redirection target is an allowed path.
//! 6. **mode defaults**: read-only file tools inside the working directories and the
//!    bookkeeping tools (TodoWrite, TaskOutput, TaskStop, Agent, Skill, ExitPlanMode, ...)
//!    → `Allow`; in acceptEdits also file edits (and Bash `mkdir`/`touch`/`mv`/`cp`,
//!    output redirections) inside the working directories; dontAsk → `Deny`;
//!    otherwise `Ask`.
//!
//! **Auto mode** keeps steps 1-2, then:
//! 3. **safety checks**: writes to protected paths (the above, plus the shell
//!    start-up files in the home directory, `~/.claude/` and `~/.claude.json`),
//!    by a file tool, a Bash redirection or a file command → `Ask`: a person
//!    decides, never the classifier.
//! 4. A PreToolUse hook's allow does not skip what follows.
//! 5. **allow rules**, except the ones auto mode sets aside ([`auto::sets_aside`]).
//! 6. **fast paths** → `Allow`: the mode defaults above, edits inside the working
//!    directories, and Bash commands the parser proves read-only (`ls`, `cat`,
//!    `grep`, read-only git, ...) or only creating, copying, moving or removing
//!    files inside the working directories (`bash_auto.rs`).
//! 7. everything else → `Classify` (a path that cannot be resolved still asks).
//!
//! Plan mode with `useAutoModeDuringPlan` ([`AutoOptions::during_plan`]) also
//! classifies what it would otherwise ask about.
//!
//! Print mode has no one to ask: the caller turns `Ask` into `Deny`
//! ([`Decision::without_prompt`]) and lists it in `permission_denials`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::bash::{Match, glob_match};
use crate::mode::PermissionMode;
use crate::path::{ResolvedPath, is_inside, is_inside_any, resolve, resolve_dir};
use crate::rule::{PathBases, Specifier, ToolPattern, canonical_tool_name, domain_matches};
use crate::settings_rules::{RuleBehavior, RuleSet, SourcedRule};

mod auto;
mod bash_auto;
mod bash_decision;

pub use auto::{AutoOptions, sets_aside};

/// Tools whose rules are `Edit(path)` rules.
const WRITE_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];
/// Tools whose rules are `Read(path)` rules.
/// `LSP` reads the file it names (Claude Code checks Read's permission on it).
const READ_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead", "LSP"];
/// Tools that need no permission (their effects are checked elsewhere or are
/// session bookkeeping).
const NO_PERMISSION_TOOLS: &[&str] = &[
    "TodoWrite",
    // The shared task list: bookkeeping, like TodoWrite.
    "TaskCreate",
    "TaskGet",
    "TaskUpdate",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "Agent",
    "AskUserQuestion",
    // Scheduling prompts for this session: what a firing runs is checked
    // like any other call when it runs.
    "CronCreate",
    "CronList",
    "CronDelete",
    "ScheduleWakeup",
    // `--json-schema`'s answer: it reports, and touches nothing.
    "StructuredOutput",
    // Loads instructions into the turn; the rules a skill's `allowed-tools`
    // add apply only when the user invokes it (`/name`).
    "Skill",
    // Agent teams: a message to another agent or session, and who can be
    // messaged (what the receiver does with it goes through its own rules).
    "SendMessage",
    "ListAgents",
    // Move the session into a worktree of its own and back (Claude Code's
    // tools reference: no permission); the tools in it ask as ever.
    "EnterWorktree",
    "ExitWorktree",
    // Loads deferred tools' definitions; each tool loaded asks when called.
    "ToolSearch",
];
/// Tools allowed in plan mode even though they are not read-only.
const PLAN_MODE_TOOLS: &[&str] = &[
    "ExitPlanMode",
    "EnterPlanMode",
    "TodoWrite",
    "TaskCreate",
    "TaskUpdate",
    "AskUserQuestion",
];
/// Tools that move the session in or out of plan mode: a person approves
/// each call (Claude Code's dialogs), whatever the mode; a deny rule, an
/// allow rule or a PreToolUse hook's allow still decide first.
const MODE_SWITCH_TOOLS: &[&str] = &["ExitPlanMode", "EnterPlanMode"];
/// Directory names that stay guarded in bypassPermissions and acceptEdits.
const PROTECTED_DIRS: &[&str] = &[".git", ".claude", ".tack"];

/// The engine's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run the tool.
    Allow {
        /// Why (the rule, mode default or fast path), for logs.
        reason: String,
        /// The allow rule that matched, as written; `None` when a mode
        /// default, a fast path or a hook allowed the call.
        rule: Option<String>,
    },
    /// Do not run it; `reason` goes to the model.
    Deny {
        /// Why.
        reason: String,
        /// The deny rule that matched, if one did.
        rule: Option<String>,
    },
    /// Ask the user (or the prompt tool / SDK callback).
    Ask {
        /// What needs approval, for the prompt.
        reason: String,
        /// Rules that would allow this call, for "allow always" (best first).
        suggestions: Vec<String>,
    },
    /// Auto mode: no rule, safety check or fast path decides; the classifier
    /// does. Where auto mode cannot classify (nobody configured it), this is
    /// an `Ask`.
    Classify {
        /// What would need approval in the default mode.
        reason: String,
        /// Rules that would allow this call, for "allow always" (best first).
        suggestions: Vec<String>,
    },
}

impl Decision {
    /// Print mode and other prompt-less callers: `Ask` becomes `Deny`.
    pub fn without_prompt(self) -> Decision {
        match self {
            Decision::Ask { reason, .. } | Decision::Classify { reason, .. } => Decision::Deny {
                reason: format!("{reason} (no permission prompt available)"),
                rule: None,
            },
            d @ (Decision::Allow { .. } | Decision::Deny { .. }) => d,
        }
    }

    /// True for `Allow`.
    pub fn is_allow(&self) -> bool {
        matches!(self, Decision::Allow { .. })
    }

    fn allow(reason: impl Into<String>) -> Decision {
        Decision::Allow {
            reason: reason.into(),
            rule: None,
        }
    }

    fn allow_rule(r: &SourcedRule) -> Decision {
        Decision::Allow {
            reason: format!("allowed by rule `{}`", r.rule.text),
            rule: Some(r.rule.text.clone()),
        }
    }

    fn deny_rule(r: &SourcedRule, what: &str) -> Decision {
        Decision::Deny {
            reason: format!(
                "Permission to use {what} has been denied by rule `{}` ({})",
                r.rule.text, r.source.name
            ),
            rule: Some(r.rule.text.clone()),
        }
    }

    fn ask(reason: impl Into<String>, suggestions: Vec<String>) -> Decision {
        Decision::Ask {
            reason: reason.into(),
            suggestions,
        }
    }
}

/// Everything a decision depends on. Cheap to clone; rebuild or mutate it when the
/// mode changes or a rule is added ("allow always").
#[derive(Debug, Clone)]
pub struct PermissionContext {
    mode: PermissionMode,
    rules: RuleSet,
    cwd: PathBuf,
    home: PathBuf,
    working_dirs: Vec<PathBuf>,
    auto: AutoOptions,
    /// Files and directories outside the project auto mode protects
    /// ([`auto::protected_home_paths`]).
    protected_home: Vec<PathBuf>,
    /// The session's plan file: the one file plan mode lets a tool write.
    plan_file: Option<PathBuf>,
}

/// A tool call as the engine sees it.
struct Call<'a> {
    names: Vec<&'a str>,
    canonical: &'a str,
    input: &'a Value,
    is_read_only: bool,
    paths: Vec<Result<ResolvedPath, String>>,
}

impl PermissionContext {
    /// `cwd` is the session's working directory; `additional_dirs` are `--add-dir`s
    /// and `permissions.additionalDirectories` (relative ones against `cwd`).
    pub fn new(
        mode: PermissionMode,
        rules: RuleSet,
        cwd: &Path,
        home: &Path,
        additional_dirs: &[PathBuf],
    ) -> PermissionContext {
        let mut working_dirs = vec![resolve_dir(cwd, cwd, home)];
        for d in additional_dirs {
            let r = resolve_dir(d, cwd, home);
            if !working_dirs.contains(&r) {
                working_dirs.push(r);
            }
        }
        PermissionContext {
            mode,
            rules,
            cwd: cwd.to_path_buf(),
            home: home.to_path_buf(),
            working_dirs,
            auto: AutoOptions::default(),
            protected_home: auto::protected_home_paths(home, &resolve_dir(home, cwd, home)),
            plan_file: None,
        }
    }

    /// Auto mode's settings (`autoMode.classifyAllShell`, `useAutoModeDuringPlan`).
    pub fn set_auto_options(&mut self, options: AutoOptions) {
        self.auto = options;
    }

    /// Auto mode's settings.
    pub fn auto_options(&self) -> AutoOptions {
        self.auto
    }

    /// The allow rules auto mode sets aside while it is on, as written (for
    /// `/permissions`), once each, whatever the current mode: they stay in the
    /// rule set and apply in every other mode.
    pub fn set_aside_rules(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.rules.with(RuleBehavior::Allow) {
            if sets_aside(&r.rule, self.auto.classify_all_shell) && !out.contains(&r.rule.text) {
                out.push(r.rule.text.clone());
            }
        }
        out
    }

    /// True when `r` counts: not an allow rule auto mode sets aside right now.
    fn in_force(&self, r: &SourcedRule) -> bool {
        self.mode != PermissionMode::Auto
            || r.behavior != RuleBehavior::Allow
            || !sets_aside(&r.rule, self.auto.classify_all_shell)
    }

    /// The current mode.
    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// The session's plan file, which Write and Edit may change in plan mode
    /// without asking (the plan is built there).
    pub fn set_plan_file(&mut self, file: PathBuf) {
        self.plan_file = Some(resolve(&file, &self.cwd, &self.home).map_or(file, |r| r.lexical));
    }

    /// Switches mode (Shift+Tab, ExitPlanMode approved, ...).
    pub fn set_mode(&mut self, mode: PermissionMode) {
        self.mode = mode;
    }

    /// The rules.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The rules, to add one ("allow always", session rules).
    pub fn rules_mut(&mut self) -> &mut RuleSet {
        &mut self.rules
    }

    /// The resolved working directories (cwd first).
    pub fn working_dirs(&self) -> &[PathBuf] {
        &self.working_dirs
    }

    /// Decides about one tool call. `aliases` are the tool's other names
    /// ([`tack_tool::Tool::aliases`]-style); `paths` are the paths it touches
    /// (`Tool::paths_touched`), read if `is_read_only`, written otherwise.
    /// For Bash, `is_read_only` also allows read-only git commands without a
    /// rule (`bash::is_read_only_git`; the Bash tool passes `false`).
    pub fn decide(
        &self,
        tool_name: &str,
        aliases: &[&str],
        input: &Value,
        is_read_only: bool,
        paths: &[PathBuf],
    ) -> Decision {
        self.decide_inner(tool_name, aliases, input, is_read_only, paths, false)
    }

    /// The decision when a PreToolUse hook answered `allow`: deny and ask rules
    /// still apply, everything else is allowed. In auto mode a hook's allow
    /// changes nothing: this is [`PermissionContext::decide`].
    pub fn decide_hook_allowed(
        &self,
        tool_name: &str,
        aliases: &[&str],
        input: &Value,
        is_read_only: bool,
        paths: &[PathBuf],
    ) -> Decision {
        self.decide_inner(tool_name, aliases, input, is_read_only, paths, true)
    }

    fn decide_inner(
        &self,
        tool_name: &str,
        aliases: &[&str],
        input: &Value,
        is_read_only: bool,
        paths: &[PathBuf],
        hook_allowed: bool,
    ) -> Decision {
        let canonical = canonical_tool_name(tool_name);
        let mut names = vec![tool_name, canonical];
        names.extend(aliases.iter().copied().map(canonical_tool_name));
        names.extend_from_slice(aliases);
        // Monitor's `ws` reaches a host as a WebFetch of it would: its
        // `WebFetch(domain:…)` rules decide it, and a `Monitor` rule allows
        // it whole.
        let ws = (canonical == "Monitor")
            .then(|| input.get("ws").and_then(Value::as_str))
            .flatten()
            .map(|url| serde_json::json!({ "url": url }));
        let (canonical, input) = match &ws {
            Some(as_fetch) => {
                names.push("WebFetch");
                ("WebFetch", as_fetch)
            }
            None => (canonical, input),
        };
        // Monitor runs a shell command: Bash's rules and checks decide it.
        let shell = canonical == "Bash" || canonical == "Monitor";
        if canonical == "Monitor" {
            names.push("Bash");
        }
        let call = Call {
            names,
            canonical,
            input,
            is_read_only,
            paths: paths
                .iter()
                .map(|p| resolve(p, &self.cwd, &self.home).map_err(|e| e.to_string()))
                .collect(),
        };
        let hook_allowed = hook_allowed && self.mode != PermissionMode::Auto;
        let decision = if shell {
            self.decide_bash(&call, hook_allowed)
        } else {
            self.decide_tool(&call, hook_allowed)
        };
        // An ask rule asks nobody in dontAsk mode (the mode's default already
        // says so in `no_rule`).
        match decision {
            Decision::Ask { reason, .. } if self.mode == PermissionMode::DontAsk => {
                Decision::Deny {
                    reason: format!("{reason}; dontAsk mode denies anything not pre-allowed"),
                    rule: None,
                }
            }
            other => other,
        }
    }

    fn bases<'a>(&'a self, r: &'a SourcedRule) -> PathBases<'a> {
        PathBases {
            cwd: &self.cwd,
            home: &self.home,
            root: r.source.root.as_deref(),
        }
    }

    /// Auto mode's safety check: a protected path of the working directories,
    /// or one of [`auto::protected_home_paths`].
    fn is_protected_in_auto(&self, p: &ResolvedPath) -> bool {
        self.is_protected(p)
            || p.forms()
                .any(|f| self.protected_home.iter().any(|h| is_inside(f, h)))
    }

    fn is_protected(&self, p: &ResolvedPath) -> bool {
        p.forms().any(|f| {
            self.working_dirs.iter().any(|wd| {
                is_inside(f, wd)
                    && f.components()
                        .skip(wd.components().count())
                        .any(|c| PROTECTED_DIRS.iter().any(|d| c.as_os_str() == *d))
            })
        })
    }

    // ---------------------------------------------------------------- non-Bash

    /// Does a rule's tool part name this call? File rules cover their families.
    fn rule_names_tool(&self, r: &SourcedRule, call: &Call) -> bool {
        match &r.rule.tool {
            ToolPattern::Name(n) if n == "Edit" => {
                WRITE_TOOLS.contains(&call.canonical) || call.names.iter().any(|t| t == n)
            }
            ToolPattern::Name(n) if n == "Read" => {
                READ_TOOLS.contains(&call.canonical)
                    || (r.behavior != RuleBehavior::Allow
                        && matches!(r.rule.specifier, Specifier::Path(_))
                        && WRITE_TOOLS.contains(&call.canonical))
                    || call.names.iter().any(|t| t == n)
            }
            t => call.names.iter().any(|name| t.matches(name)),
        }
    }

    fn rule_matches_tool(&self, r: &SourcedRule, call: &Call) -> Match {
        if !self.rule_names_tool(r, call) {
            return Match::No;
        }
        let deny_like = r.behavior != RuleBehavior::Allow;
        match &r.rule.specifier {
            Specifier::None => {
                let is_file_tool =
                    WRITE_TOOLS.contains(&call.canonical) || READ_TOOLS.contains(&call.canonical);
                if deny_like || !is_file_tool {
                    return Match::Yes;
                }
                // A tool-wide allow of a file tool covers the working directories.
                let inside = call.paths.iter().all(|p| {
                    p.as_ref()
                        .is_ok_and(|p| is_inside_any(p, &self.working_dirs))
                });
                if inside { Match::Yes } else { Match::No }
            }
            Specifier::Path(pat) => {
                if call.paths.is_empty() {
                    return Match::No;
                }
                let bases = self.bases(r);
                if deny_like {
                    let mut result = Match::No;
                    for p in &call.paths {
                        match p {
                            Ok(p) if p.forms().any(|f| pat.matches(f, &bases)) => {
                                return Match::Yes;
                            }
                            Ok(_) => {}
                            Err(_) => result = Match::Maybe,
                        }
                    }
                    result
                } else {
                    let all = call.paths.iter().all(|p| {
                        p.as_ref()
                            .is_ok_and(|p| p.real.iter().all(|f| pat.matches(f, &bases)))
                    });
                    if all { Match::Yes } else { Match::No }
                }
            }
            Specifier::Domain(d) => match url_host(call.input) {
                Some(host) if domain_matches(d, &host) => Match::Yes,
                Some(_) => Match::No,
                None => Match::Maybe,
            },
            Specifier::AgentType(t) => {
                let ty = call
                    .input
                    .get("subagent_type")
                    .and_then(Value::as_str)
                    .unwrap_or("general-purpose");
                if ty == t { Match::Yes } else { Match::No }
            }
            Specifier::SkillName(pattern) => {
                match call.input.get("skill").and_then(Value::as_str) {
                    Some(name) if glob_match(pattern, name.trim().trim_start_matches('/')) => {
                        Match::Yes
                    }
                    Some(_) => Match::No,
                    None => Match::Maybe,
                }
            }
            Specifier::Param { key, value } => param_match(call.input, key, value),
            Specifier::Bash(_) => Match::No,
        }
    }

    fn decide_tool(&self, call: &Call, hook_allowed: bool) -> Decision {
        let what = call.canonical;
        let mut unsure: Option<String> = None;
        for r in self.rules.with(RuleBehavior::Deny) {
            match self.rule_matches_tool(r, call) {
                Match::Yes => return Decision::deny_rule(r, what),
                Match::Maybe => unsure = Some(r.rule.text.clone()),
                Match::No => {}
            }
        }
        let suggestions = self.suggest_tool(call);
        for r in self.rules.with(RuleBehavior::Ask) {
            if self.rule_matches_tool(r, call) != Match::No {
                return Decision::ask(
                    format!("{what} requires approval (rule `{}`)", r.rule.text),
                    suggestions,
                );
            }
        }
        if let Some(rule) = unsure {
            return Decision::ask(
                format!("{what}: cannot rule out deny rule `{rule}`"),
                suggestions,
            );
        }
        if let Some(Err(e)) = call.paths.iter().find(|p| p.is_err()) {
            return Decision::ask(format!("{what}: {e}"), suggestions);
        }
        let writes = !call.is_read_only;
        let protected = writes
            && call
                .paths
                .iter()
                .any(|p| p.as_ref().is_ok_and(|p| self.is_protected(p)));
        if self.mode == PermissionMode::Plan && writes && self.writes_only_the_plan(call) {
            return Decision::allow("plan mode: the session's plan file");
        }
        if self.mode == PermissionMode::Plan
            && !call.is_read_only
            && !PLAN_MODE_TOOLS.contains(&call.canonical)
        {
            return Decision::Deny {
                reason: format!(
                    "{what} is not available in plan mode: only read-only tools may run until the plan is approved"
                ),
                rule: None,
            };
        }
        if hook_allowed {
            return Decision::allow("allowed by a PreToolUse hook");
        }
        if self.mode == PermissionMode::BypassPermissions {
            if protected {
                return Decision::ask(
                    format!("{what} writes to a protected path (.git, .claude, .tack)"),
                    suggestions,
                );
            }
            return Decision::allow("bypassPermissions mode");
        }
        let auto = self.mode == PermissionMode::Auto;
        if auto && writes {
            let guarded: Vec<String> = call
                .paths
                .iter()
                .filter_map(|p| p.as_ref().ok())
                .filter(|p| self.is_protected_in_auto(p))
                .map(|p| p.lexical.display().to_string())
                .collect();
            if !guarded.is_empty() {
                return Decision::ask(protected_reason(what, &guarded), suggestions);
            }
        }
        for r in self.rules.with(RuleBehavior::Allow) {
            if self.in_force(r) && self.rule_matches_tool(r, call) == Match::Yes {
                return Decision::allow_rule(r);
            }
        }
        if MODE_SWITCH_TOOLS.contains(&call.canonical) {
            return Decision::ask(format!("{what} needs your approval"), Vec::new());
        }
        if NO_PERMISSION_TOOLS.contains(&call.canonical) {
            return Decision::allow(format!("{what} needs no permission"));
        }
        let inside = call.paths.iter().all(|p| {
            p.as_ref()
                .is_ok_and(|p| is_inside_any(p, &self.working_dirs))
        });
        let file_tool =
            READ_TOOLS.contains(&call.canonical) || WRITE_TOOLS.contains(&call.canonical);
        if call.is_read_only && inside && (file_tool || !call.paths.is_empty()) {
            return Decision::allow("read-only, inside the working directories");
        }
        if (self.mode == PermissionMode::AcceptEdits || auto)
            && WRITE_TOOLS.contains(&call.canonical)
            && inside
            && !call.paths.is_empty()
            && !protected
        {
            return Decision::allow(if auto {
                "auto mode fast path: edit inside the working directories"
            } else {
                "acceptEdits: edit inside the working directories"
            });
        }
        let reason = if protected {
            format!("{what} writes to a protected path (.git, .claude, .tack)")
        } else if !inside {
            format!(
                "{what} touches a path outside the working directories ({})",
                self.outside_paths(call).join(", ")
            )
        } else {
            format!("{what} requires approval")
        };
        self.no_rule(reason, suggestions)
    }

    /// A file tool's call whose every path is the plan file.
    fn writes_only_the_plan(&self, call: &Call) -> bool {
        let Some(plan) = &self.plan_file else {
            return false;
        };
        WRITE_TOOLS.contains(&call.canonical)
            && !call.paths.is_empty()
            && call.paths.iter().all(|p| {
                p.as_ref()
                    .is_ok_and(|p| p.forms().any(|f| f == plan.as_path()))
            })
    }

    fn outside_paths(&self, call: &Call) -> Vec<String> {
        call.paths
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .filter(|p| !is_inside_any(p, &self.working_dirs))
            .map(|p| p.real[0].display().to_string())
            .collect()
    }

    /// What the mode does when nothing decided: dontAsk denies, auto mode (and
    /// plan mode with `useAutoModeDuringPlan`) classifies, the others ask.
    fn no_rule(&self, reason: String, suggestions: Vec<String>) -> Decision {
        match self.mode {
            PermissionMode::DontAsk => Decision::Deny {
                reason: format!("{reason}; dontAsk mode denies anything not pre-allowed"),
                rule: None,
            },
            PermissionMode::Auto => Decision::Classify {
                reason,
                suggestions,
            },
            PermissionMode::Plan if self.auto.during_plan => Decision::Classify {
                reason,
                suggestions,
            },
            PermissionMode::Default
            | PermissionMode::AcceptEdits
            | PermissionMode::Plan
            | PermissionMode::BypassPermissions => Decision::ask(reason, suggestions),
        }
    }

    fn suggest_tool(&self, call: &Call) -> Vec<String> {
        let dirs: Vec<String> = call
            .paths
            .iter()
            .filter_map(|p| p.as_ref().ok())
            .map(|p| {
                let real = &p.real[0];
                let dir = if call.is_read_only && real.is_dir() {
                    real.as_path()
                } else {
                    real.parent().unwrap_or(real)
                };
                abs_rule_path(dir)
            })
            .collect();
        if WRITE_TOOLS.contains(&call.canonical) || READ_TOOLS.contains(&call.canonical) {
            let tool = if WRITE_TOOLS.contains(&call.canonical) {
                "Edit"
            } else {
                "Read"
            };
            let mut out: Vec<String> = dirs.iter().map(|d| format!("{tool}({d}/**)")).collect();
            out.dedup();
            return out;
        }
        if call.canonical == "WebFetch"
            && let Some(h) = url_host(call.input)
        {
            return vec![format!("WebFetch(domain:{h})")];
        }
        vec![call.canonical.to_string()]
    }
}

/// Why auto mode asks a person about a write to protected paths.
fn protected_reason(what: &str, paths: &[String]) -> String {
    format!(
        "{what} writes to a protected path ({}): auto mode asks a person about project metadata, settings and shell start-up files",
        paths.join(", ")
    )
}

/// `//abs/path` form of an absolute path, glob-escaped.
fn abs_rule_path(p: &Path) -> String {
    format!("/{}", globset::escape(&p.to_string_lossy()))
}

fn url_host(input: &Value) -> Option<String> {
    let u = url::Url::parse(input.get("url")?.as_str()?).ok()?;
    u.host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

fn param_match(input: &Value, key: &str, value: &str) -> Match {
    match input.get(key) {
        Some(Value::String(s)) if s == value => Match::Yes,
        Some(Value::Bool(b)) if b.to_string() == value => Match::Yes,
        Some(Value::Number(n)) if n.to_string() == value => Match::Yes,
        _ => Match::No,
    }
}
