//! What the permission rules alone say of a call, with no hook run and
//! nobody asked: the engine's decision (with the sandbox's auto-allow), a
//! denial's message naming the rule's file, which tools a bare deny takes
//! out of the model's view, a user's `@` mention and a command's
//! `` !`cmd` `` line, the rules of one turn, and "allow calls like this".

use std::path::{Path, PathBuf};
use std::sync::PoisonError;

use serde_json::Value;
use tack_permissions::{
    Decision, PermissionMode, RuleBehavior, RuleSource, Specifier, ToolPattern, canonical_tool_name,
};
use tack_tool::{Tool, ToolContext};

use super::Gate;
use crate::snapshot::RuleView;

/// The source name of rules that hold for one turn only.
const TURN_RULES: &str = "command";

impl Gate {
    /// Every rule in force, as a front end lists them.
    pub(crate) fn rule_views(&self) -> Vec<RuleView> {
        self.ctx()
            .rules()
            .rules()
            .iter()
            .map(|r| RuleView {
                behavior: r.behavior.as_str().to_owned(),
                rule: r.rule.text.clone(),
                source: r.source.name.clone(),
                file: r.source.file.clone(),
            })
            .collect()
    }

    /// Allows `rules` until [`Gate::clear_turn_rules`] (one turn of a custom
    /// command with `allowed-tools`). Returns the rules that are invalid.
    pub(crate) fn add_turn_rules(&self, rules: &[String]) -> Vec<String> {
        let source = RuleSource::named(TURN_RULES);
        let mut ctx = self.ctx.write().unwrap_or_else(PoisonError::into_inner);
        rules
            .iter()
            .filter_map(|rule| {
                ctx.rules_mut()
                    .add(&source, RuleBehavior::Allow, rule)
                    .err()
                    .map(|e| e.to_string())
            })
            .collect()
    }

    pub(crate) fn clear_turn_rules(&self) {
        self.ctx
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .rules_mut()
            .remove_source(TURN_RULES);
    }

    /// True if a deny rule names the whole tool: it is not offered to the model.
    pub fn removes_tool(&self, tool: &dyn Tool) -> bool {
        let mut names = vec![canonical_tool_name(tool.name())];
        names.extend(tool.aliases().iter().map(|a| canonical_tool_name(a)));
        // MultiEdit (Edit applied several times) and NotebookEdit edit files
        // in place as Edit does: removing Edit (so that an editor's adapter
        // sees every edit) removes them too, or the model would edit behind
        // the editor's back. Write is a tool of its own to remove.
        if names
            .iter()
            .any(|n| matches!(*n, "MultiEdit" | "NotebookEdit"))
        {
            names.push("Edit");
        }
        self.ctx().rules().rules().iter().any(|r| {
            r.behavior == RuleBehavior::Deny
                && matches!(r.rule.specifier, Specifier::None)
                && match &r.rule.tool {
                    ToolPattern::Name(n) => names.contains(&n.as_str()),
                    // `*`, `mcp__*`, `mcp__server__*`, and `mcp__server`: as in
                    // Claude Code, a bare deny takes the tools out of context.
                    ToolPattern::Glob(_) | ToolPattern::McpServer(_) => {
                        names.iter().any(|n| r.rule.tool.matches(n))
                    }
                }
        })
    }

    /// May the user's `@` mention of `path` (absolute) be attached to their
    /// message? As a Read of it would be, with one difference: what would
    /// ask (an ask rule, a path outside the working directories) does not
    /// stop it, since the user typed the path themselves, which is the
    /// approval the question waits for (Claude Code attaches `@/abs/path`
    /// from anywhere too). A deny rule stops it. No PreToolUse hook runs (no
    /// tool is called). `Err`: why not, naming the rule and its settings
    /// file.
    pub(crate) fn mention_read(&self, path: &Path) -> Result<(), String> {
        let input = serde_json::json!({ "file_path": path });
        let decision = self
            .ctx()
            .decide("Read", &[], &input, true, &[path.to_path_buf()]);
        match decision {
            Decision::Allow { .. } | Decision::Ask { .. } | Decision::Classify { .. } => Ok(()),
            Decision::Deny { reason, rule } => Err(self.deny_message(reason, rule.as_deref())),
        }
    }

    /// May a custom command's `` !`command` `` line run? As a Bash call
    /// would be, with the command's `allowed-tools` (the turn's rules) in
    /// force, and read-only git commands (`git status`, `git diff HEAD`)
    /// allowed as Claude Code allows them; there is no one to ask, so what
    /// would need approval does not run. No PreToolUse hook runs (no tool is
    /// called). `Err`: why not.
    pub(crate) fn inline_bash(&self, command: &str) -> Result<(), String> {
        let input = serde_json::json!({ "command": command });
        // The user typed the command whose line this is: its `allowed-tools`
        // are their word, which auto mode does not set aside.
        let mut ctx = self.ctx().clone();
        if ctx.mode() == PermissionMode::Auto {
            ctx.set_mode(PermissionMode::Default);
        }
        let decision = ctx.decide("Bash", &[], &input, true, &[]);
        match decision {
            Decision::Allow { .. } => Ok(()),
            Decision::Deny { reason, rule } => Err(self.deny_message(reason, rule.as_deref())),
            Decision::Ask { reason, .. } | Decision::Classify { reason, .. } => Err(format!(
                "{reason}; a command's `allowed-tools` or a permission rule must allow it"
            )),
        }
    }

    /// Why the permission rules deny this call, if they do; no hook runs
    /// and what would ask is not denied (an agent hook's reads).
    pub(crate) fn rules_deny(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
    ) -> Option<String> {
        match self.decide(tool, input, ctx, true) {
            Decision::Deny { reason, rule } => Some(self.deny_message(reason, rule.as_deref())),
            Decision::Allow { .. } | Decision::Ask { .. } | Decision::Classify { .. } => None,
        }
    }

    /// The engine's decision; `hook_allowed`: a PreToolUse hook said `allow`.
    pub(super) fn decide(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        hook_allowed: bool,
    ) -> Decision {
        let paths = tool.paths_touched(input, ctx);
        let read_only = tool.is_read_only(input);
        // Claude Code's auto-allow: deny and ask rules still apply, as for a
        // hook's `allow`; only the mode's default "ask" is skipped.
        let hook_allowed = hook_allowed || self.sandbox_auto_allows(tool, input);
        self.with_engine(ctx, |engine| match hook_allowed {
            true => {
                engine.decide_hook_allowed(tool.name(), tool.aliases(), input, read_only, &paths)
            }
            false => engine.decide(tool.name(), tool.aliases(), input, read_only, &paths),
        })
    }

    pub(super) fn sandbox_auto_allows(&self, tool: &dyn Tool, input: &Value) -> bool {
        // Plan mode runs nothing that writes, sandboxed or not.
        let Some(sandbox) = self
            .late
            .sandbox
            .get()
            .filter(|_| self.mode() != PermissionMode::Plan)
        else {
            return false;
        };
        let command = input.get("command").and_then(Value::as_str);
        let disable = input
            .get("dangerouslyDisableSandbox")
            .and_then(Value::as_bool);
        tool.name() == "Bash"
            && command.is_some_and(|c| sandbox.auto_allows(c, disable.unwrap_or(false)))
    }

    /// The model's message for a denial: the engine's reason, plus the file of
    /// the deny rule when there is one.
    pub(super) fn deny_message(&self, reason: String, rule: Option<&str>) -> String {
        let file = rule.and_then(|text| {
            self.ctx()
                .rules()
                .rules()
                .iter()
                .find(|r| r.behavior == RuleBehavior::Deny && r.rule.text == text)
                .and_then(|r| r.source.file.clone())
        });
        match file {
            Some(f) => format!("{reason} in {}", f.display()),
            None => reason,
        }
    }

    /// A front end's "allow calls like this" (`Op::AddAllowRule`): `rule`
    /// joins the session's allow rules and the local settings file.
    pub(crate) fn add_allow_rule(&self, rule: &str) -> Result<PathBuf, String> {
        if tack_sys::terminal_text::has_control(rule, true) {
            return Err(format!(
                "`{}` contains control characters",
                tack_sys::terminal_text::visible(rule)
            ));
        }
        self.ctx
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .rules_mut()
            .add(&RuleSource::named("session"), RuleBehavior::Allow, rule)
            .map_err(|e| e.to_string())?;
        let file = &self.files.local;
        tack_permissions::add_allow_rule_to_local_settings(file, rule).map_err(|e| {
            format!(
                "added for this session, but not saved to {}: {e}",
                file.display()
            )
        })?;
        Ok(file.clone())
    }
}
