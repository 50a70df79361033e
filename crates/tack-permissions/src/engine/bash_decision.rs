//! Bash decisions: each simple command of a script, its redirections and the
//! commands it wraps, against the rules (in the order of the parent module).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Call, Decision, PermissionContext, abs_rule_path, param_match, protected_reason};
use crate::bash::{
    self, Hazard, Match, ParsedScript, Redirect, RedirectKind, SimpleCommand, Word, basename,
    is_harmless, is_read_only_git, is_safe_env, is_safe_shell_variable, is_wrapper, parse_script,
};
use crate::mode::PermissionMode;
use crate::path::{ResolvedPath, is_inside, is_inside_any, resolve};
use crate::rule::{Specifier, ToolPattern};
use crate::settings_rules::{RuleBehavior, SourcedRule};

/// Write targets that are not files.
const DEVICE_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];
/// Recursion limit for `bash -c '...'` inside `bash -c '...'`.
const MAX_NESTING: usize = 4;
/// Commands whose second word is a subcommand, for "allow always" suggestions
/// (`Bash(git diff *)` rather than `Bash(git *)`), written in the current
/// space-star form (the legacy `:*` form is still read).
const SUBCOMMAND_TOOLS: &[&str] = &[
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "cargo",
    "go",
    "docker",
    "kubectl",
    "gh",
    "pip",
    "uv",
    "poetry",
    "dotnet",
    "terraform",
    "helm",
    "brew",
    "systemctl",
    "rustup",
    "deno",
];
/// Bash commands acceptEdits allows inside the working directories.
const ACCEPT_EDITS_COMMANDS: &[&str] = &["mkdir", "touch", "mv", "cp"];
/// Bash commands auto mode allows inside the working directories.
const AUTO_FILE_COMMANDS: &[&str] = &["mkdir", "touch", "mv", "cp", "rm", "rmdir"];
/// File commands that remove their operands: never a working directory or an
/// ancestor of one.
const REMOVING_COMMANDS: &[&str] = &["mv", "rm", "rmdir"];

impl PermissionContext {
    pub(super) fn decide_bash(&self, call: &Call, hook_allowed: bool) -> Decision {
        let Some(command) = call.input.get("command").and_then(Value::as_str) else {
            return Decision::ask("Bash call without a `command`", Vec::new());
        };
        let bash_rules = |b: RuleBehavior| {
            self.rules
                .with(b)
                .filter(|r| call.names.iter().any(|n| r.rule.tool.matches(n)))
                .collect::<Vec<_>>()
        };
        let deny = bash_rules(RuleBehavior::Deny);
        let ask = bash_rules(RuleBehavior::Ask);
        let allow: Vec<_> = bash_rules(RuleBehavior::Allow)
            .into_iter()
            .filter(|r| self.in_force(r))
            .collect();

        // Tool-wide and parameter rules.
        for r in &deny {
            match &r.rule.specifier {
                Specifier::None => return Decision::deny_rule(r, "Bash"),
                Specifier::Param { key, value }
                    if param_match(call.input, key, value) == Match::Yes =>
                {
                    return Decision::deny_rule(r, "Bash");
                }
                Specifier::Param { .. }
                | Specifier::Bash(_)
                | Specifier::Path(_)
                | Specifier::Domain(_)
                | Specifier::AgentType(_)
                | Specifier::SkillName(_) => {}
            }
        }
        for r in &deny {
            if let Specifier::Bash(bash::BashPattern::Script(s)) = &r.rule.specifier
                && s.trim() == command.trim()
            {
                return Decision::deny_rule(r, "Bash");
            }
        }
        let parsed = parse_script(command);
        let mut analysis = Analysis::default();
        match &parsed {
            Ok(script) => self.deny_scan(script, &deny, &mut analysis, 0),
            Err(e) => {
                if deny
                    .iter()
                    .any(|r| matches!(r.rule.specifier, Specifier::Bash(_)))
                    || self.has_path_denies()
                {
                    analysis.unsure = Some(format!("{e}; deny rules cannot be checked"));
                }
            }
        }
        if let Some(d) = analysis.denied {
            return d;
        }
        let suggestions = match &parsed {
            Ok(script) => self.suggest_bash(script, &allow),
            Err(_) => Vec::new(),
        };
        for r in &ask {
            let hit = match &r.rule.specifier {
                Specifier::None => true,
                Specifier::Param { key, value } => {
                    param_match(call.input, key, value) == Match::Yes
                }
                Specifier::Bash(bash::BashPattern::Script(s)) => s.trim() == command.trim(),
                Specifier::Bash(p) => match &parsed {
                    Ok(script) => script
                        .commands
                        .iter()
                        .any(|c| self.command_matches(p, c, 0) != Match::No),
                    Err(_) => true,
                },
                Specifier::Path(_)
                | Specifier::Domain(_)
                | Specifier::AgentType(_)
                | Specifier::SkillName(_) => false,
            };
            if hit {
                return Decision::ask(
                    format!("Bash command requires approval (rule `{}`)", r.rule.text),
                    suggestions,
                );
            }
        }
        if let Some(u) = analysis.unsure {
            return Decision::ask(format!("Bash: {u}"), suggestions);
        }
        if self.mode == PermissionMode::Plan && !call.is_read_only {
            return Decision::Deny {
                reason: "Bash commands that are not read-only are not available in plan mode: only read-only tools may run until the plan is approved".into(),
                rule: None,
            };
        }
        if hook_allowed {
            return Decision::allow("allowed by a PreToolUse hook");
        }
        let protected_write = parsed.as_ref().is_ok_and(|s| {
            s.redirects.iter().any(|r| {
                r.kind == RedirectKind::Write
                    && r.target
                        .as_ref()
                        .and_then(|t| self.word_path(t))
                        .is_some_and(|p| self.is_protected(&p))
            })
        });
        if self.mode == PermissionMode::BypassPermissions {
            if protected_write {
                return Decision::ask(
                    "Bash writes to a protected path (.git, .claude, .tack)",
                    suggestions,
                );
            }
            return Decision::allow("bypassPermissions mode");
        }
        let auto = self.mode == PermissionMode::Auto;
        if auto && let Ok(script) = &parsed {
            let guarded = self.protected_writes(script);
            if !guarded.is_empty() {
                return Decision::ask(protected_reason("Bash", &guarded), suggestions);
            }
        }
        let trimmed = command.trim();
        for r in &allow {
            match &r.rule.specifier {
                Specifier::None => return Decision::allow_rule(r),
                Specifier::Bash(bash::BashPattern::Script(s)) if s.trim() == trimmed => {
                    return Decision::allow_rule(r);
                }
                Specifier::Bash(_)
                | Specifier::Path(_)
                | Specifier::Domain(_)
                | Specifier::AgentType(_)
                | Specifier::SkillName(_)
                | Specifier::Param { .. } => {}
            }
        }
        let script = match parsed {
            Ok(s) => s,
            Err(e) => return self.no_rule(format!("Bash: {e}"), suggestions),
        };
        match self.bash_allowed(&script, &allow, call.is_read_only || auto) {
            Ok((reason, rule)) => Decision::Allow { reason, rule },
            Err(reason) => self.no_rule(format!("Bash: {reason}"), suggestions),
        }
    }

    fn has_path_denies(&self) -> bool {
        self.rules.with(RuleBehavior::Deny).any(|r| {
            matches!(r.rule.specifier, Specifier::Path(_))
                && matches!(&r.rule.tool, ToolPattern::Name(n) if n == "Edit" || n == "Read")
        })
    }

    /// Matches a pattern against a command, its basename form, and (for wrappers)
    /// every argv suffix and the script it runs.
    fn command_matches(&self, p: &bash::BashPattern, cmd: &SimpleCommand, depth: usize) -> Match {
        let mut best = p.matches(cmd);
        let mut consider = |m: Match| {
            best = match (best, m) {
                (Match::Yes, _) | (_, Match::Yes) => Match::Yes,
                (Match::Maybe, _) | (_, Match::Maybe) => Match::Maybe,
                (Match::No, Match::No) => Match::No,
            }
        };
        if let Some(name) = cmd.name()
            && name.contains('/')
        {
            let mut argv = cmd.argv.clone();
            argv[0] = Word {
                raw: basename(name).to_string(),
                value: Some(basename(name).to_string()),
            };
            consider(p.matches_argv(&argv));
        }
        if is_wrapper(cmd) {
            for i in 1..cmd.argv.len() {
                let argv = cmd.argv[i..].to_vec();
                if depth < MAX_NESTING {
                    let inner = SimpleCommand {
                        env: Vec::new(),
                        text: bash::render(&argv),
                        argv,
                        redirects: Vec::new(),
                    };
                    consider(self.command_matches(p, &inner, depth + 1));
                } else {
                    consider(p.matches_argv(&argv));
                }
            }
            match bash::inner_script(cmd) {
                Some(Some(text)) if depth < MAX_NESTING => match parse_script(&text) {
                    Ok(inner) => {
                        for c in &inner.commands {
                            consider(self.command_matches(p, c, depth + 1));
                        }
                    }
                    Err(_) => consider(Match::Maybe),
                },
                Some(_) => consider(Match::Maybe),
                None => {}
            }
        }
        best
    }

    /// Deny rules against every command, redirection and path-like argument.
    fn deny_scan(
        &self,
        script: &ParsedScript,
        deny: &[&SourcedRule],
        out: &mut Analysis,
        depth: usize,
    ) {
        let path_denies = self.has_path_denies();
        let cwd_changes = script.commands.iter().any(|c| {
            !c.argv.is_empty()
                && c.name()
                    .is_none_or(|n| matches!(basename(n), "cd" | "pushd" | "popd"))
        });
        if path_denies && cwd_changes {
            out.unsure =
                Some("the command changes directory, so file deny rules cannot be checked".into());
        }
        for cmd in &script.commands {
            if path_denies
                && !is_harmless(cmd)
                && let Some(w) = cmd.argv.iter().skip(1).find(|w| !w.is_static())
            {
                out.unsure = Some(format!(
                    "argument `{}` is not static, so file deny rules cannot be checked",
                    w.raw
                ));
            }
            for r in deny {
                if let Specifier::Bash(p) = &r.rule.specifier {
                    match self.command_matches(p, cmd, depth) {
                        Match::Yes => {
                            out.denied = Some(Decision::deny_rule(r, "Bash"));
                            return;
                        }
                        Match::Maybe => {
                            out.unsure = Some(format!(
                                "`{}` might match deny rule `{}`",
                                cmd.text, r.rule.text
                            ));
                        }
                        Match::No => {}
                    }
                }
            }
            // Arguments naming a denied file (`cat .env` with `Read(./.env)` denied).
            for w in cmd.argv.iter().skip(1) {
                let Some(v) = w.value.as_deref() else {
                    continue;
                };
                let candidate = match v.split_once('=') {
                    Some((opt, val)) if opt.starts_with('-') => val,
                    _ if v.starts_with('-') => continue,
                    _ => v,
                };
                if candidate.is_empty() {
                    continue;
                }
                let Some(p) = self.word_path(&Word {
                    raw: candidate.to_string(),
                    value: Some(candidate.to_string()),
                }) else {
                    continue;
                };
                if let Some(r) = self.path_deny(&p, false) {
                    out.denied = Some(Decision::deny_rule(r, "Bash"));
                    return;
                }
                if let Some(r) = self.path_deny(&p, true) {
                    out.unsure = Some(format!(
                        "argument `{v}` names a path covered by deny rule `{}`",
                        r.rule.text
                    ));
                }
            }
        }
        for red in &script.redirects {
            let write = match red.kind {
                RedirectKind::Write => true,
                RedirectKind::Read => false,
                RedirectKind::Descriptor | RedirectKind::Input => continue,
            };
            match red.target.as_ref().and_then(|t| self.word_path(t)) {
                Some(p) => {
                    if let Some(r) = self.path_deny(&p, write) {
                        out.denied = Some(Decision::deny_rule(r, "Bash"));
                        return;
                    }
                }
                None => {
                    if self.has_path_denies() {
                        out.unsure = Some(format!(
                            "redirection target `{}` is not static; file deny rules cannot be checked",
                            red.target.as_ref().map_or("", |t| t.raw.as_str())
                        ));
                    }
                }
            }
        }
    }

    /// A deny rule (Read, or Edit when `write`) matching any form of `p`.
    fn path_deny(&self, p: &ResolvedPath, write: bool) -> Option<&SourcedRule> {
        self.rules.with(RuleBehavior::Deny).find(|r| {
            let Specifier::Path(pat) = &r.rule.specifier else {
                return false;
            };
            let applies = match &r.rule.tool {
                ToolPattern::Name(n) => n == "Read" || (write && n == "Edit"),
                ToolPattern::McpServer(_) | ToolPattern::Glob(_) => false,
            };
            applies && p.forms().any(|f| pat.matches(f, &self.bases(r)))
        })
    }

    /// An allow rule of `tool` covering every real form of `p`.
    fn path_allow(&self, p: &ResolvedPath, tools: &[&str]) -> bool {
        self.rules.with(RuleBehavior::Allow).any(|r| {
            let Specifier::Path(pat) = &r.rule.specifier else {
                return false;
            };
            matches!(&r.rule.tool, ToolPattern::Name(n) if tools.contains(&n.as_str()))
                && p.real.iter().all(|f| pat.matches(f, &self.bases(r)))
        })
    }

    /// The path a static word names (`~` expanded, relative to the cwd).
    pub(super) fn word_path(&self, w: &Word) -> Option<ResolvedPath> {
        self.word_path_from(w, &self.cwd)
    }

    /// The path a static word names, relative to `base`.
    pub(super) fn word_path_from(&self, w: &Word, base: &Path) -> Option<ResolvedPath> {
        let v = w.value.as_deref()?;
        // `~user`, `~+`, `~-` expand to directories tack does not know.
        if v.is_empty() || (v.starts_with('~') && v != "~" && !v.starts_with("~/")) {
            return None;
        }
        resolve(Path::new(v), base, &self.home).ok()
    }

    /// `Ok((reason, rule))` when every part of the script is allowed (`rule`: the
    /// first allow rule that allowed a command), else every reason not.
    /// `read_only_git`: the caller allows read-only git commands
    /// ([`is_read_only_git`]) without a rule (a custom command's `!` lines, and
    /// auto mode).
    fn bash_allowed(
        &self,
        script: &ParsedScript,
        allow: &[&SourcedRule],
        read_only_git: bool,
    ) -> Result<(String, Option<String>), String> {
        if let Some(h) = script.hazards.first() {
            return Err(match h {
                Hazard::Arithmetic => "arithmetic evaluation needs approval".into(),
                Hazard::Subscript => "array subscripts need approval".into(),
                Hazard::FunctionDefinition(n) => format!("defines a shell function `{n}`"),
                Hazard::TestCommand => "`[[ ... ]]` needs approval".into(),
            });
        }
        if let Some(a) = script
            .assignments
            .iter()
            .find(|a| !is_safe_shell_variable(&a.name))
        {
            return Err(format!("sets shell variable `{}`", a.name));
        }
        let auto = self.mode == PermissionMode::Auto;
        let bases = self.script_bases(script);
        let mut reasons = Vec::new();
        let mut rule = None;
        let mut files = false;
        for cmd in &script.commands {
            if cmd.argv.is_empty() {
                continue;
            }
            if let Some(r) = self.command_allowed_by_rules(cmd, allow) {
                rule.get_or_insert_with(|| r.rule.text.clone());
                continue;
            }
            let read_only = is_harmless(cmd)
                || (read_only_git && is_read_only_git(cmd))
                || (auto && self.cd_target(cmd).is_some())
                || (auto
                    && bases
                        .as_ref()
                        .is_some_and(|b| self.read_only_in_project(cmd, b)));
            if read_only {
                continue;
            }
            if bases.as_ref().is_some_and(|b| self.file_command(cmd, b)) {
                files = true;
                continue;
            }
            reasons.push(format!("`{}` is not allowed by any rule", cmd.text));
        }
        let mut writes = false;
        for red in &script.redirects {
            match self.redirect_allowed(red, bases.as_deref()) {
                Ok(by_mode) => writes |= by_mode,
                Err(reason) => reasons.push(reason),
            }
        }
        if !reasons.is_empty() {
            return Err(reasons.join("; "));
        }
        if !auto {
            return Ok(("every command and redirection is allowed".into(), rule));
        }
        let mut parts = Vec::new();
        if files {
            parts.push(
                "only creates, copies, moves or removes files inside the working directories",
            );
        }
        if writes {
            parts.push("writes output inside the working directories");
        }
        let reason = match (&rule, parts.is_empty()) {
            (Some(r), true) => format!("allowed by rule `{r}`"),
            (Some(r), false) => format!(
                "allowed by rule `{r}`; auto mode fast path: {}",
                parts.join("; ")
            ),
            (None, true) => "auto mode fast path: read-only".into(),
            (None, false) => format!("auto mode fast path: {}", parts.join("; ")),
        };
        Ok((reason, rule))
    }

    /// `Ok(true)` for a write the mode allows inside the working directories,
    /// `Ok(false)` for a redirection allowed otherwise, `Err(why)` if not allowed.
    /// `bases`: see [`PermissionContext::script_bases`].
    fn redirect_allowed(&self, red: &Redirect, bases: Option<&[PathBuf]>) -> Result<bool, String> {
        let write = match red.kind {
            RedirectKind::Write => true,
            RedirectKind::Read => false,
            RedirectKind::Descriptor | RedirectKind::Input => return Ok(false),
        };
        let Some(target) = &red.target else {
            return Err(format!("redirection `{}` has no target", red.op));
        };
        let Some(v) = target.value.as_deref() else {
            return Err(format!("redirection target `{}` is not static", target.raw));
        };
        if DEVICE_TARGETS.contains(&v) {
            return Ok(false);
        }
        let Some(paths) = self.word_paths(target, bases) else {
            return Err(if bases.is_none() && !v.starts_with('/') {
                format!("relative redirection target `{v}` after a directory change")
            } else {
                format!("redirection target `{v}` cannot be resolved")
            });
        };
        let mut writes = false;
        for p in &paths {
            writes |= self.redirect_path_allowed(p, write, v)?;
        }
        Ok(writes)
    }

    /// One path a redirection may name: see [`PermissionContext::redirect_allowed`].
    fn redirect_path_allowed(
        &self,
        p: &ResolvedPath,
        write: bool,
        v: &str,
    ) -> Result<bool, String> {
        let by_mode = matches!(
            self.mode,
            PermissionMode::AcceptEdits | PermissionMode::Auto
        ) && is_inside_any(p, &self.working_dirs)
            && !self.is_protected(p);
        if write && self.path_allow(p, &["Edit"]) {
            return Ok(false);
        }
        let ok = if write {
            by_mode
        } else {
            self.path_allow(p, &["Read", "Edit"]) || is_inside_any(p, &self.working_dirs)
        };
        if ok {
            Ok(write)
        } else {
            Err(format!(
                "{} `{v}` ({}) needs approval",
                if write { "writes to" } else { "reads from" },
                p.real[0].display()
            ))
        }
    }

    fn command_allowed_by_rules<'r>(
        &self,
        cmd: &SimpleCommand,
        allow: &[&'r SourcedRule],
    ) -> Option<&'r SourcedRule> {
        cmd.name()?;
        if cmd.env.iter().any(|a| !is_safe_env(&a.name)) {
            return None;
        }
        let wrapper = is_wrapper(cmd);
        // Prefix and wildcard rules need every word static: a dynamic argument
        // could carry options (`git diff $x` with x=--output=~/.bashrc).
        let all_static = cmd.argv.iter().all(Word::is_static);
        allow.iter().copied().find(|r| match &r.rule.specifier {
            Specifier::Bash(p @ bash::BashPattern::Exact(_)) => p.matches(cmd) == Match::Yes,
            Specifier::Bash(p @ (bash::BashPattern::Prefix(_) | bash::BashPattern::Glob(_))) => {
                !wrapper && all_static && p.matches(cmd) == Match::Yes
            }
            // Tool-wide and whole-script rules are handled before per-command checks.
            Specifier::Bash(bash::BashPattern::Any | bash::BashPattern::Script(_))
            | Specifier::None
            | Specifier::Path(_)
            | Specifier::Domain(_)
            | Specifier::AgentType(_)
            | Specifier::SkillName(_)
            | Specifier::Param { .. } => false,
        })
    }

    /// acceptEdits: `mkdir`/`touch`/`mv`/`cp`, auto mode: those and `rm`/`rmdir`,
    /// whose operands are all static and inside the working directories (not
    /// protected, not denied; for `mv`, `rm` and `rmdir` not a working
    /// directory or an ancestor of one). Relative operands are resolved
    /// against every one of `bases` ([`PermissionContext::script_bases`]).
    fn file_command(&self, cmd: &SimpleCommand, bases: &[PathBuf]) -> bool {
        let commands = match self.mode {
            PermissionMode::AcceptEdits => ACCEPT_EDITS_COMMANDS,
            PermissionMode::Auto => AUTO_FILE_COMMANDS,
            PermissionMode::Default
            | PermissionMode::Plan
            | PermissionMode::BypassPermissions
            | PermissionMode::DontAsk => return false,
        };
        if !cmd.env.is_empty() {
            return false;
        }
        let Some(name) = cmd.name() else {
            return false;
        };
        if !commands.contains(&name) {
            return false;
        }
        let removes = REMOVING_COMMANDS.contains(&name);
        let mut operands = 0;
        let mut options_done = false;
        for w in &cmd.argv[1..] {
            let Some(v) = w.value.as_deref() else {
                return false;
            };
            if !options_done && v == "--" {
                options_done = true;
                continue;
            }
            if !options_done && v.starts_with('-') {
                if v.contains('=') {
                    return false;
                }
                continue;
            }
            let Some(paths) = self.word_paths(w, Some(bases)) else {
                return false;
            };
            let refused = |p: &ResolvedPath| {
                !is_inside_any(p, &self.working_dirs)
                    || self.is_protected(p)
                    || self.path_deny(p, true).is_some()
                    || (removes
                        && p.forms()
                            .any(|f| self.working_dirs.iter().any(|wd| is_inside(wd, f))))
            };
            if paths.iter().any(refused) {
                return false;
            }
            operands += 1;
        }
        operands > 0
    }

    fn suggest_bash(&self, script: &ParsedScript, allow: &[&SourcedRule]) -> Vec<String> {
        let mut out = Vec::new();
        for cmd in &script.commands {
            if cmd.argv.is_empty()
                || self.command_allowed_by_rules(cmd, allow).is_some()
                || is_harmless(cmd)
            {
                continue;
            }
            let Some(words) = cmd
                .argv
                .iter()
                .map(|w| w.value.clone())
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let simple = |s: &str| {
                !s.is_empty()
                    && s.bytes().all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/')
                    })
            };
            let rule = if is_wrapper(cmd) || !cmd.env.is_empty() || !words.iter().all(|w| simple(w))
            {
                format!("Bash({})", cmd.text)
            } else if words.len() >= 2
                && SUBCOMMAND_TOOLS.contains(&words[0].as_str())
                && words[1]
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && words[1].starts_with(|c: char| c.is_ascii_lowercase())
            {
                format!("Bash({} {} *)", words[0], words[1])
            } else {
                format!("Bash({} *)", words[0])
            };
            if !out.contains(&rule) {
                out.push(rule);
            }
        }
        for red in &script.redirects {
            if red.kind == RedirectKind::Write
                && red
                    .target
                    .as_ref()
                    .and_then(|t| t.value.as_deref())
                    .is_some_and(|v| !DEVICE_TARGETS.contains(&v))
                && let Some(p) = red.target.as_ref().and_then(|t| self.word_path(t))
            {
                let rule = format!("Edit({})", abs_rule_path(&p.real[0]));
                if !out.contains(&rule) {
                    out.push(rule);
                }
            }
        }
        out
    }
}

#[derive(Default)]
struct Analysis {
    denied: Option<Decision>,
    unsure: Option<String>,
}
