//! One call's decision ([`Gate::check`]): PreToolUse hooks, then the
//! engine, auto mode's classifier where the engine would ask, and a person
//! for what neither decides; every denial recorded for the turn's
//! `permission_denials`.

use std::sync::PoisonError;

use serde_json::Value;
use tack_core::permission::PermissionDecision;
use tack_permissions::{Decision, PermissionMode};
use tack_protocol::stream_json::PermissionDenial;
use tack_tool::{Tool, ToolContext};

use super::tool_hooks::{self, DeniedBy};
use super::{Asked, Gate, auto};

impl Gate {
    pub(super) async fn check(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
    ) -> PermissionDecision {
        let tool_hooks::PreHook {
            allowed: hook_allowed,
            asks: hook_asks,
            updated,
        } = match self.pre_tool_use(tool, input, ctx).await {
            Ok(pre) => pre,
            Err(decided) => return decided,
        };
        if let Some(allowed) = self.teammate_plan_exit(tool, ctx, &updated) {
            return allowed;
        }
        let effective = updated.as_ref().unwrap_or(input);
        let auto = self.auto.as_ref().filter(|_| self.classifies());
        if let Some(auto) = auto {
            auto.note_call(tool, effective);
        }
        let hook_asked = hook_asks.is_some();
        let decision = match hook_asks {
            Some(reason) => Decision::Ask {
                reason,
                suggestions: Vec::new(),
            },
            None => self.decide(tool, effective, ctx, hook_allowed),
        };
        let hook_updated = updated.is_some();
        let allow = |v: Option<Value>| match v {
            Some(v) => PermissionDecision::AllowWithInput(v),
            None => PermissionDecision::Allow,
        };
        if let Some(auto) = auto {
            auto.record_engine(&decision, tool, effective, ctx);
        }
        match decision {
            Decision::Allow { .. } => allow(updated),
            Decision::Deny { reason, rule } => {
                let by = if rule.is_some() {
                    DeniedBy::Rule
                } else {
                    DeniedBy::Mode
                };
                let message = self.deny_message(reason, rule.as_deref());
                self.denied(tool, effective, ctx, message, by).await
            }
            Decision::Classify {
                reason,
                suggestions,
            } if let Some(auto) = auto => {
                let asked = Asked {
                    hook_updated,
                    hook_asked,
                };
                match auto
                    .judge(
                        tool,
                        effective,
                        ctx,
                        suggestions.first().map(String::as_str),
                    )
                    .await
                {
                    auto::Judged::Allow => allow(updated),
                    auto::Judged::Block { message } => {
                        self.denied(tool, effective, ctx, message, DeniedBy::Classifier)
                            .await
                    }
                    auto::Judged::Person { why, limit } => {
                        let refusal = if limit {
                            format!("{why}; with nobody to ask, this call was not run: {reason}")
                        } else {
                            format!("{why}; with nobody to ask, this call was not run")
                        };
                        let decided = self
                            .ask_someone(
                                tool,
                                effective,
                                ctx,
                                (why, suggestions),
                                asked,
                                Some(refusal),
                            )
                            .await;
                        if self.someone_answers() {
                            auto.record_person(&decided, tool, effective, ctx);
                        }
                        decided
                    }
                }
            }
            Decision::Ask {
                reason,
                suggestions,
            }
            | Decision::Classify {
                reason,
                suggestions,
            } => {
                let asked = Asked {
                    hook_updated,
                    hook_asked,
                };
                let decided = self
                    .ask_someone(tool, effective, ctx, (reason, suggestions), asked, None)
                    .await;
                if let Some(auto) = auto.filter(|_| self.someone_answers()) {
                    auto.record_person(&decided, tool, effective, ctx);
                }
                decided
            }
        }
    }

    /// Auto mode decides this session's calls now: the mode is auto, or plan
    /// with `useAutoModeDuringPlan` (the engine classifies only then).
    pub(super) fn classifies(&self) -> bool {
        let ctx = self.ctx();
        match ctx.mode() {
            PermissionMode::Auto => true,
            PermissionMode::Plan => ctx.auto_options().during_plan,
            _ => false,
        }
    }

    pub(super) fn deny(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        message: String,
    ) -> PermissionDecision {
        self.record_denial(tool, input, ctx);
        PermissionDecision::Deny { message }
    }

    /// The call goes into `result.permission_denials`.
    pub(super) fn record_denial(&self, tool: &dyn Tool, input: &Value, ctx: &ToolContext) {
        self.denials
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(PermissionDenial {
                tool_name: tool.name().to_owned(),
                tool_use_id: ctx.tool_use_id.clone(),
                tool_input: input.clone(),
            });
    }
}
