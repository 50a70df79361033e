//! Print-mode permissions: [`tack_permissions`]' engine behind core's
//! `can_use_tool`, with PreToolUse hooks in front of it and PostToolUse hooks
//! after each successful call.
//!
//! Per call ([`PermissionGate::check`]):
//! 1. PreToolUse hooks (if configured): `deny` (or exit 2) denies even when a
//!    rule allows; `ask` and `defer` deny too (print mode has nobody to ask);
//!    `allow` skips the mode default but deny and ask rules still apply;
//!    `updatedInput` replaces the input that the rules (and the tool) see.
//! 2. The engine's decision, with `Decision::without_prompt`: `Ask` is a denial.
//!
//! Every denial is recorded for the result's `permission_denials`. A deny rule's
//! message names the rule, its settings scope and its file.
//!
//! Not implemented: `--permission-prompt-tool` and SDK `can_use_tool` control
//! requests (there is nobody to answer `Ask`), so "allow always" never happens
//! in print mode (`tack_permissions::add_allow_rule_to_local_settings` is ready
//! for the prompt that will offer it).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use serde_json::Value;
use tack_core::executor::ToolCallOutcome;
use tack_core::permission::{CanUseTool, PermissionDecision, PostToolUseOutcome};
use tack_hooks::{HookEvent, PermissionDecision as HookDecision};
use tack_permissions::{
    Decision, PermissionContext, RuleBehavior, RuleLists, RuleSet, RuleSource, Specifier,
    ToolPattern, canonical_tool_name,
};
use tack_protocol::stream_json::PermissionDenial;
use tack_tool::{Tool, ToolContext};

use crate::hooks::Hooks;

/// Rules as read from settings and flags, one entry per source, not parsed yet.
pub type RuleSources = Vec<(RuleSource, RuleLists)>;

/// The `permissions.allow/ask/deny` lists of every settings file, lowest first,
/// each with its scope (`userSettings`, ...), file and root.
pub fn settings_rule_sources(p: &tack_config::Permissions) -> RuleSources {
    let mut out: Vec<(tack_config::Source, RuleLists)> = Vec::new();
    let lists = [
        (RuleBehavior::Allow, p.allow()),
        (RuleBehavior::Ask, p.ask()),
        (RuleBehavior::Deny, p.deny()),
    ];
    for (behavior, list) in lists {
        for rule in list {
            let i = match out.iter().position(|(s, _)| s == rule.source()) {
                Some(i) => i,
                None => {
                    out.push((rule.source().clone(), RuleLists::default()));
                    out.len() - 1
                }
            };
            let l = &mut out[i].1;
            match behavior {
                RuleBehavior::Allow => l.allow.push(rule.value().clone()),
                RuleBehavior::Ask => l.ask.push(rule.value().clone()),
                RuleBehavior::Deny => l.deny.push(rule.value().clone()),
            }
        }
    }
    out.into_iter()
        .map(|(source, lists)| {
            let rs = RuleSource {
                name: source.scope().name().to_owned(),
                file: Some(
                    source
                        .file_path()
                        .map_or_else(|| PathBuf::from("--settings"), Path::to_path_buf),
                ),
                root: Some(source.root().to_path_buf()),
            };
            (rs, lists)
        })
        .collect()
}

/// `--allowedTools` / `--disallowedTools` as a rule source (`cliArg`).
pub fn cli_rule_source(allow: Vec<String>, deny: Vec<String>) -> (RuleSource, RuleLists) {
    (
        RuleSource::named("cliArg"),
        RuleLists {
            allow,
            ask: Vec::new(),
            deny,
        },
    )
}

/// Parses every rule; the first invalid one is the error (one line naming the
/// rule and its file), reported before any request.
pub fn build_rules(sources: RuleSources) -> anyhow::Result<RuleSet> {
    let set = RuleSet::from_sources(sources).map_err(|(_, errors)| {
        let first = errors.into_iter().next().map(|e| e.to_string());
        anyhow::anyhow!(first.unwrap_or_else(|| "invalid permission rule".to_owned()))
    })?;
    for w in set.warnings() {
        eprintln!("warning: {w}");
    }
    Ok(set)
}

/// The permission state of a print-mode session.
pub struct PrintPermissions {
    ctx: PermissionContext,
    hooks: Option<Arc<Hooks>>,
    denials: Mutex<Vec<PermissionDenial>>,
}

impl PrintPermissions {
    pub fn new(ctx: PermissionContext, hooks: Option<Arc<Hooks>>) -> Self {
        PrintPermissions {
            ctx,
            hooks,
            denials: Mutex::new(Vec::new()),
        }
    }

    /// The denials since the last call (one turn's `permission_denials`).
    pub fn take_denials(&self) -> Vec<PermissionDenial> {
        std::mem::take(&mut *self.denials.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// True if a deny rule names the whole tool: it is not offered to the model.
    pub fn removes_tool(&self, tool: &dyn Tool) -> bool {
        let mut names = vec![canonical_tool_name(tool.name())];
        names.extend(tool.aliases().iter().map(|a| canonical_tool_name(a)));
        self.ctx.rules().rules().iter().any(|r| {
            r.behavior == RuleBehavior::Deny
                && matches!(r.rule.specifier, Specifier::None)
                && match &r.rule.tool {
                    ToolPattern::Name(n) => names.contains(&n.as_str()),
                    ToolPattern::Glob(g) => g == "*",
                    ToolPattern::McpServer(_) => false,
                }
        })
    }

    /// The engine's decision without a prompt; `hook_allowed`: a PreToolUse
    /// hook said `allow`.
    fn decide(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        hook_allowed: bool,
    ) -> Decision {
        let paths = tool.paths_touched(input, ctx);
        let read_only = tool.is_read_only(input);
        let decision = if hook_allowed {
            self.ctx
                .decide_hook_allowed(tool.name(), tool.aliases(), input, read_only, &paths)
        } else {
            self.ctx
                .decide(tool.name(), tool.aliases(), input, read_only, &paths)
        };
        decision.without_prompt()
    }

    /// The model's message for a denial: the engine's reason, plus the file of
    /// the deny rule when there is one.
    fn deny_message(&self, reason: String, rule: Option<&str>) -> String {
        let file = rule.and_then(|text| {
            self.ctx
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

    fn deny(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        message: String,
    ) -> PermissionDecision {
        self.denials
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(PermissionDenial {
                tool_name: tool.name().to_owned(),
                tool_use_id: ctx.tool_use_id.clone(),
                tool_input: input.clone(),
            });
        PermissionDecision::Deny { message }
    }

    async fn check(&self, tool: &dyn Tool, input: &Value, ctx: &ToolContext) -> PermissionDecision {
        let mut hook_allowed = false;
        let mut updated: Option<Value> = None;
        if let Some(hooks) = self.hooks.as_ref().filter(|h| h.has("PreToolUse")) {
            let event = HookEvent::PreToolUse {
                tool_name: tool.name().to_owned(),
                tool_input: input.clone(),
                tool_use_id: ctx.tool_use_id.clone(),
            };
            let outcome = hooks.run(&event, &ctx.cancel).await;
            if !outcome.should_continue() {
                let why = outcome
                    .stop_reason()
                    .unwrap_or("a PreToolUse hook stopped the session");
                let message = format!("Execution stopped by PreToolUse hook: {why}");
                return self.deny(tool, input, ctx, message);
            }
            match outcome.permission_decision() {
                Some((HookDecision::Deny, reason)) => {
                    let reason = reason
                        .map(str::to_owned)
                        .or_else(|| outcome.blocked())
                        .unwrap_or_else(|| "no reason given".to_owned());
                    let message = format!("PreToolUse hook denied this tool call: {reason}");
                    return self.deny(tool, input, ctx, message);
                }
                Some((HookDecision::Ask | HookDecision::Defer, reason)) => {
                    let reason = reason.unwrap_or("a PreToolUse hook asked for approval");
                    let message =
                        format!("{reason} (no permission prompt available in print mode)");
                    return self.deny(tool, input, ctx, message);
                }
                Some((HookDecision::Allow, _)) => hook_allowed = true,
                None => {}
            }
            updated = outcome.updated_input().cloned();
        }
        let effective = updated.as_ref().unwrap_or(input);
        match self.decide(tool, effective, ctx, hook_allowed) {
            Decision::Allow { .. } => match updated {
                Some(v) => PermissionDecision::AllowWithInput(v),
                None => PermissionDecision::Allow,
            },
            Decision::Deny { reason, rule } => {
                let message = self.deny_message(reason, rule.as_deref());
                self.deny(tool, effective, ctx, message)
            }
            // `without_prompt` turned every Ask into a Deny.
            Decision::Ask { reason, .. } => self.deny(tool, effective, ctx, reason),
        }
    }

    async fn post_tool_use(
        &self,
        tool: &dyn Tool,
        input: &Value,
        result: &ToolCallOutcome,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        let Some(hooks) = self.hooks.as_ref().filter(|h| h.has("PostToolUse")) else {
            return PostToolUseOutcome::default();
        };
        let response = result
            .structured
            .clone()
            .unwrap_or_else(|| Value::String(result.content.to_text()));
        let event = HookEvent::PostToolUse {
            tool_name: tool.name().to_owned(),
            tool_input: input.clone(),
            tool_response: response,
            tool_use_id: ctx.tool_use_id.clone(),
        };
        let outcome = hooks.run(&event, &ctx.cancel).await;
        PostToolUseOutcome {
            block_reason: outcome.blocked(),
            additional_context: outcome.additional_context(),
        }
    }
}

/// [`PrintPermissions`] as the loop's `can_use_tool`.
pub struct PermissionGate(pub Arc<PrintPermissions>);

impl CanUseTool for PermissionGate {
    fn check<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PermissionDecision> {
        Box::pin(self.0.check(tool, input, ctx))
    }

    fn post_tool_use<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        result: &'a ToolCallOutcome,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PostToolUseOutcome> {
        Box::pin(self.0.post_tool_use(tool, input, result, ctx))
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn invalid_rules_name_the_rule_and_the_file() {
        let source = RuleSource {
            name: "projectSettings".into(),
            file: Some(PathBuf::from("/p/.claude/settings.json")),
            root: Some(PathBuf::from("/p")),
        };
        let lists = RuleLists {
            allow: vec!["Bash(echo *)".into(), "Bash(:*".into()],
            ..RuleLists::default()
        };
        let err = build_rules(vec![(source, lists)]).unwrap_err().to_string();
        assert!(err.contains("`Bash(:*`"), "{err}");
        assert!(err.contains("/p/.claude/settings.json"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
