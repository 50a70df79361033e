//! A person decides what the rules leave open: a PermissionRequest hook, a
//! teammate's lead, the front end's prompt or the
//! `--permission-prompt-tool`; with none of them the call is refused. The
//! answer is carried out here (updated input, permission updates, an
//! interrupt).

use serde_json::Value;
use tack_core::permission::PermissionDecision;
use tack_tool::{Tool, ToolContext};

use super::tool_hooks::DeniedBy;
use super::{Asked, Gate, original};
use crate::emit::Emitter;
use crate::event::{PermissionRequest, RuntimeEvent};
use crate::protocol::ask::{AskAnswer, PermissionAnswer};

impl Gate {
    /// A front end or the `--permission-prompt-tool` answers prompts.
    pub(super) fn someone_answers(&self) -> bool {
        self.prompts.is_some() || self.others.prompt_tool.get().is_some() || self.relays()
    }

    /// A person decides: a PermissionRequest hook, the front end, the
    /// `--permission-prompt-tool`; with none of them the call is refused
    /// (`refusal`, else the reason and that no prompt is available).
    pub(super) async fn ask_someone(
        &self,
        tool: &dyn Tool,
        effective: &Value,
        ctx: &ToolContext,
        (reason, suggestions): (String, Vec<String>),
        asked: Asked,
        refusal: Option<String>,
    ) -> PermissionDecision {
        let Asked {
            hook_updated,
            hook_asked,
        } = asked;
        if let Some(decided) = self
            .permission_request(tool, effective, ctx, &suggestions, hook_updated)
            .await
        {
            return decided;
        }
        if let Some(decided) = (self.ask_relay(
            tool,
            effective,
            ctx,
            (reason.clone(), &suggestions),
            hook_updated,
        ))
        .await
        {
            return decided;
        }
        match &self.prompts {
            None if self.others.prompt_tool.get().is_some() => {
                self.ask_tool(tool, effective, ctx, hook_updated).await
            }
            None if let Some(message) = refusal => {
                self.denied(tool, effective, ctx, message, DeniedBy::Classifier)
                    .await
            }
            None if hook_asked => {
                let message = format!("{reason} (no permission prompt available in print mode)");
                self.denied(tool, effective, ctx, message, DeniedBy::NobodyToAsk)
                    .await
            }
            None => {
                let message = format!("{reason} (no permission prompt available)");
                self.denied(tool, effective, ctx, message, DeniedBy::NobodyToAsk)
                    .await
            }
            Some(prompts) => {
                self.ask(
                    prompts,
                    tool,
                    effective,
                    ctx,
                    reason,
                    suggestions,
                    hook_updated,
                )
                .await
            }
        }
    }

    /// Asks the `--permission-prompt-tool` MCP tool about one call.
    pub(super) async fn ask_tool(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        hook_updated: bool,
    ) -> PermissionDecision {
        let Some(prompt_tool) = self.others.prompt_tool.get() else {
            return self.deny(tool, input, ctx, "no permission prompt tool".to_owned());
        };
        let asked = prompt_tool
            .ask(tool.name(), input, &ctx.tool_use_id, &ctx.cancel)
            .await;
        let answer = match asked {
            Ok(tack_mcp::PromptDecision::Allow {
                updated_input,
                updated_permissions,
            }) => PermissionAnswer::Allow {
                updated_input: Some(updated_input),
                updates: updated_permissions
                    .into_iter()
                    .filter_map(|u| serde_json::from_value(u).ok())
                    .collect(),
            },
            Ok(tack_mcp::PromptDecision::Deny { message, interrupt }) => {
                PermissionAnswer::Deny { message, interrupt }
            }
            Err(e) => PermissionAnswer::Deny {
                message: format!("The permission prompt tool failed: {e}"),
                interrupt: false,
            },
        };
        self.apply_answer(tool, input, ctx, Some(answer), hook_updated)
    }

    /// Asks the front end about one call (`input` as the rules saw it;
    /// `hook_updated`: a PreToolUse hook rewrote it) and applies the answer.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn ask(
        &self,
        prompts: &Emitter,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        reason: String,
        suggestions: Vec<String>,
        hook_updated: bool,
    ) -> PermissionDecision {
        if let Some(hooks) = self.hooks.clone().filter(|h| h.has("Notification")) {
            let message = format!("tack needs your permission to use {}", tool.name());
            // The notification must not hold up the prompt it announces.
            tokio::spawn(async move { hooks.notification("permission_prompt", message).await });
        }
        let blocked_path = tool
            .paths_touched(input, ctx)
            .into_iter()
            .find(|p| !self.ctx().working_dirs().iter().any(|d| p.starts_with(d)));
        let request = |id| PermissionRequest {
            id,
            tool_name: tool.name().to_owned(),
            input: self.shown_input(tool.name(), input),
            tool_use_id: ctx.tool_use_id.clone(),
            reason,
            suggestions,
            blocked_path,
            agent: ctx.env.agent().cloned(),
            original: original::original_file(tool.name(), input, &ctx.env.cwd()),
            choices: self.choices(tool.name()),
        };
        let Some(mut pending) =
            prompts.ask(|id| RuntimeEvent::PermissionRequest(Box::new(request(id))))
        else {
            return self.deny(tool, input, ctx, "the session is ending".to_owned());
        };
        let answer = tokio::select! {
            answer = pending.answer() => match answer {
                Some(AskAnswer::Permission(answer)) => Some(answer),
                Some(AskAnswer::Hook(_)) | None => None,
            },
            () = ctx.cancel.cancelled() => None,
        };
        self.apply_answer(tool, input, ctx, answer, hook_updated)
    }

    /// Carries out an answer to a prompt (`None`: nobody answered).
    pub(super) fn apply_answer(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        answer: Option<PermissionAnswer>,
        hook_updated: bool,
    ) -> PermissionDecision {
        match answer {
            Some(PermissionAnswer::Allow {
                updated_input,
                updates,
            }) => {
                for update in &updates {
                    self.apply(update);
                }
                match updated_input {
                    Some(v) => PermissionDecision::AllowWithInput(v),
                    None if hook_updated => PermissionDecision::AllowWithInput(input.clone()),
                    None => PermissionDecision::Allow,
                }
            }
            Some(PermissionAnswer::Deny { message, interrupt }) => {
                if interrupt {
                    self.turn.cancel();
                }
                self.deny(tool, input, ctx, message)
            }
            None => self.deny(
                tool,
                input,
                ctx,
                "The user did not answer the permission request".to_owned(),
            ),
        }
    }
}
