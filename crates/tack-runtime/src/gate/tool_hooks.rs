//! The gate's hook events beyond PreToolUse and PostToolUse, and the `if`
//! conditions of tool-event hooks.
//!
//! - `if` (`"if": "Bash(git *)"`): the rule is put alone into a copy of the
//!   session's permission engine as a deny rule (default mode) and the call
//!   is decided: a denial by that rule means the call matches. The same parser
//!   and matcher as the permission rules, so `Bash(git *)` matches `cd x &&
//!   git push` as a deny rule would.
//! - PermissionRequest: when the engine says Ask, before anyone is asked
//!   (the terminal, the SDK, the prompt tool, or print mode's denial): a hook
//!   may allow (with `updatedInput`, `updatedPermissions`) or deny (with
//!   `interrupt`).
//! - PermissionDenied: when a rule or the mode denied a call without asking
//!   anyone; `retry: true` tells the model it may try again.
//! - PostToolUseFailure: after a call that failed; feedback and context are
//!   appended to the error, as PostToolUse's are to a result.
//! - PreToolUse's `additionalContext` (of a call that then ran) is appended
//!   to the call's result or error the same way, before PostToolUse's.

use std::sync::PoisonError;

use serde_json::Value;
use tack_core::executor::ToolCallOutcome;
use tack_core::permission::{PermissionDecision, PostToolUseOutcome};
use tack_hooks::{HookEvent, PermissionDecision as HookDecision};
use tack_permissions::{Decision, PermissionMode, RuleBehavior, RuleSet, RuleSource};
use tack_protocol::control::PermissionUpdate;
use tack_tool::{Tool, ToolContext};

use super::Gate;

impl Gate {
    /// Decides hooks' `if` rules against this call (see the module docs).
    pub(super) fn condition<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        ctx: &'a ToolContext,
    ) -> impl Fn(&str) -> bool + Sync + 'a {
        move |rule: &str| {
            let paths = tool.paths_touched(input, ctx);
            let read_only = tool.is_read_only(input);
            self.rule_matches(
                rule,
                (tool.name(), tool.aliases()),
                input,
                read_only,
                &paths,
            )
        }
    }

    /// Whether a call matches a hook's `if` rule: the rule alone, as a deny
    /// rule in a copy of the session's engine (default mode), denies it.
    pub(super) fn rule_matches(
        &self,
        rule: &str,
        (name, aliases): (&str, &[&str]),
        input: &Value,
        read_only: bool,
        paths: &[std::path::PathBuf],
    ) -> bool {
        let mut rules = RuleSet::new();
        if rules
            .add(&RuleSource::named("hook if"), RuleBehavior::Deny, rule)
            .is_err()
        {
            return false;
        }
        let mut engine = self.ctx().clone();
        *engine.rules_mut() = rules;
        engine.set_mode(PermissionMode::Default);
        matches!(
            engine.decide(name, aliases, input, read_only, paths),
            Decision::Deny { rule: Some(_), .. }
        )
    }

    /// PermissionRequest hooks before a prompt: `Some` when one decided.
    /// `hook_updated`: a PreToolUse hook rewrote `input`.
    pub(super) async fn permission_request(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        suggestions: &[String],
        hook_updated: bool,
    ) -> Option<PermissionDecision> {
        let hooks = self.hooks.as_ref().filter(|h| h.has("PermissionRequest"))?;
        let event = HookEvent::PermissionRequest {
            tool_name: tool.name().to_owned(),
            tool_input: input.clone(),
            permission_suggestions: suggestions
                .iter()
                .filter_map(|r| serde_json::to_value(PermissionUpdate::allow_rule(r)).ok())
                .collect(),
        };
        let cond = self.condition(tool, input, ctx);
        let outcome = hooks
            .run_for(&event, ctx.env.agent(), Some(&cond), &ctx.cancel)
            .await;
        match outcome.permission_decision() {
            Some((HookDecision::Allow, _)) => {
                for update in outcome.updated_permissions() {
                    match serde_json::from_value::<PermissionUpdate>(update.clone()) {
                        Ok(update) => self.apply(&update),
                        Err(e) => self.notify(format!(
                            "warning: a PermissionRequest hook's permission update was skipped: {e}"
                        )),
                    }
                }
                Some(match outcome.updated_input() {
                    Some(v) => PermissionDecision::AllowWithInput(v.clone()),
                    None if hook_updated => PermissionDecision::AllowWithInput(input.clone()),
                    None => PermissionDecision::Allow,
                })
            }
            Some((HookDecision::Deny, reason)) => {
                let message = format!(
                    "Permission to use {} was denied by a PermissionRequest hook: {}",
                    tool.name(),
                    reason.unwrap_or("no reason given")
                );
                if outcome.interrupt() {
                    self.turn.cancel();
                }
                Some(self.deny(tool, input, ctx, message))
            }
            Some((HookDecision::Ask | HookDecision::Defer, _)) | None => None,
        }
    }

    /// PreToolUse hooks on a call: `Err` when they decided it (a deny, a
    /// stop, a defer), else what they said for the rules to weigh.
    pub(super) async fn pre_tool_use(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
    ) -> Result<PreHook, PermissionDecision> {
        let mut pre = PreHook::default();
        let Some(hooks) = self.hooks.as_ref().filter(|h| h.has("PreToolUse")) else {
            return Ok(pre);
        };
        let event = HookEvent::PreToolUse {
            tool_name: tool.name().to_owned(),
            tool_input: input.clone(),
            tool_use_id: ctx.tool_use_id.clone(),
        };
        let cond = self.condition(tool, input, ctx);
        let outcome = hooks
            .run_for(&event, ctx.env.agent(), Some(&cond), &ctx.cancel)
            .await;
        if let Some(context) = outcome.additional_context() {
            self.pre_context
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(ctx.tool_use_id.clone(), context);
        }
        if !outcome.should_continue() {
            let why = outcome
                .stop_reason()
                .unwrap_or("a PreToolUse hook stopped the session");
            let message = format!("Execution stopped by PreToolUse hook: {why}");
            self.record_denial(tool, input, ctx);
            return Err(PermissionDecision::Stop { message });
        }
        match outcome.permission_decision() {
            Some((HookDecision::Deny, reason)) => {
                let reason = reason
                    .map(str::to_owned)
                    .or_else(|| outcome.blocked())
                    .unwrap_or_else(|| "no reason given".to_owned());
                let message = format!("PreToolUse hook denied this tool call: {reason}");
                return Err(self.deny(tool, input, ctx, message));
            }
            Some((HookDecision::Defer, _)) if self.defers => {
                return Err(PermissionDecision::Defer);
            }
            Some((HookDecision::Defer, _)) => {
                if let Some(emit) = &self.prompts {
                    emit.notice(crate::event::Notice::warning(
                        "warning: a PreToolUse hook's `defer` applies only with -p; ignored",
                    ));
                }
            }
            Some((HookDecision::Ask, reason)) => {
                pre.asks = Some(
                    reason
                        .unwrap_or("a PreToolUse hook asked for approval")
                        .to_owned(),
                );
            }
            Some((HookDecision::Allow, _)) => pre.allowed = true,
            None => {}
        }
        pre.updated = outcome.updated_input().cloned();
        Ok(pre)
    }

    /// A denial by a rule, the mode, auto mode's classifier or for want of
    /// someone to ask ([`DeniedBy`]): PermissionDenied hooks hear of it first
    /// (`retry: true` adds that the model may try again), then the front end
    /// (`system/permission_denied`).
    pub(super) async fn denied(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        mut message: String,
        by: DeniedBy,
    ) -> PermissionDecision {
        if let Some(hooks) = self.hooks.as_ref().filter(|h| h.has("PermissionDenied")) {
            let event = HookEvent::PermissionDenied {
                tool_name: tool.name().to_owned(),
                tool_input: input.clone(),
                tool_use_id: ctx.tool_use_id.clone(),
                reason: message.clone(),
            };
            let cond = self.condition(tool, input, ctx);
            let outcome = hooks
                .run_for(&event, ctx.env.agent(), Some(&cond), &ctx.cancel)
                .await;
            if outcome.retry() {
                message.push_str(
                    "\n\nA PermissionDenied hook says you may retry this call (the denial may not hold again).",
                );
            }
        }
        if let Some(events) = &self.events {
            events.emit(crate::event::RuntimeEvent::PermissionDenied(Box::new(
                crate::event::PermissionDenied {
                    tool_name: tool.name().to_owned(),
                    tool_use_id: ctx.tool_use_id.clone(),
                    message: message.clone(),
                    reason_type: by.reason_type().to_owned(),
                    nobody_to_ask: by == DeniedBy::NobodyToAsk,
                    agent_id: ctx.env.agent().map(|a| a.id.clone()),
                },
            )));
        }
        self.deny(tool, input, ctx, message)
    }

    /// After a main-agent call: CwdChanged, FileChanged, ConfigChange for
    /// what it changed.
    pub(super) async fn after_tool(&self, ctx: &ToolContext) {
        if let Some(hooks) = self.hooks.as_ref().filter(|_| ctx.env.agent().is_none()) {
            hooks.after_tool(&ctx.env.cwd()).await;
        }
    }

    /// PostToolUseFailure hooks after a failed call.
    pub(super) async fn post_tool_use_failure(
        &self,
        tool: &dyn Tool,
        input: &Value,
        result: &ToolCallOutcome,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        let event = || HookEvent::PostToolUseFailure {
            tool_name: tool.name().to_owned(),
            tool_input: input.clone(),
            tool_use_id: ctx.tool_use_id.clone(),
            error: result.content.to_text(),
            is_interrupt: ctx.cancel.is_cancelled(),
        };
        self.after_call("PostToolUseFailure", event, tool, input, ctx)
            .await
    }

    /// The hooks of `name` (PostToolUse, PostToolUseFailure) after a call,
    /// with `event` made only when some are configured: their feedback for
    /// the result.
    pub(super) async fn after_call(
        &self,
        name: &str,
        event: impl FnOnce() -> HookEvent,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        let pre = self.take_pre_context(&ctx.tool_use_id);
        let Some(hooks) = self.hooks.as_ref().filter(|h| h.has(name)) else {
            return PostToolUseOutcome {
                additional_context: pre,
                ..PostToolUseOutcome::default()
            };
        };
        let cond = self.condition(tool, input, ctx);
        let outcome = hooks
            .run_for(&event(), ctx.env.agent(), Some(&cond), &ctx.cancel)
            .await;
        let context: Vec<String> = pre
            .into_iter()
            .chain(outcome.additional_context())
            .collect();
        PostToolUseOutcome {
            block_reason: outcome.blocked(),
            additional_context: (!context.is_empty()).then(|| context.join("\n\n")),
            stops_turn: !outcome.should_continue(),
            attachments: Vec::new(),
        }
    }
}

/// What the PreToolUse hooks said of a call they did not decide.
#[derive(Debug, Default)]
pub(super) struct PreHook {
    /// A hook said `allow` (deny and ask rules still apply; auto mode still
    /// classifies).
    pub allowed: bool,
    /// A hook said `ask`, with this reason.
    pub asks: Option<String>,
    /// A hook's `updatedInput`.
    pub updated: Option<Value>,
}

/// Who refused a call, for the denial's event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DeniedBy {
    /// A deny rule.
    Rule,
    /// The permission mode (plan, dontAsk, ...).
    Mode,
    /// Auto mode's classifier.
    Classifier,
    /// Nobody could be asked: the call needed a "yes".
    NobodyToAsk,
}

impl DeniedBy {
    /// Claude Code's `decision_reason_type`: a refusal for want of a prompt
    /// is the mode's.
    fn reason_type(self) -> &'static str {
        match self {
            DeniedBy::Rule => "rule",
            DeniedBy::Mode | DeniedBy::NobodyToAsk => "mode",
            DeniedBy::Classifier => "classifier",
        }
    }
}
