//! After a call that succeeded: its PostToolUse hooks, and the path rules
//! (`.claude/rules/*.md` with `paths:`) the files it touched load, as
//! attachments of its result.

use serde_json::Value;
use tack_core::context::attachment_text;
use tack_core::executor::ToolCallOutcome;
use tack_core::permission::PostToolUseOutcome;
use tack_hooks::HookEvent;
use tack_tool::{Tool, ToolContext};

use super::Gate;

impl Gate {
    /// PostToolUse hooks after a call that succeeded, then the path rules
    /// the files it touched load.
    pub(super) async fn post_tool_use(
        &self,
        tool: &dyn Tool,
        input: &Value,
        result: &ToolCallOutcome,
        ctx: &ToolContext,
    ) -> PostToolUseOutcome {
        let event = || HookEvent::PostToolUse {
            tool_name: tool.name().to_owned(),
            tool_input: input.clone(),
            tool_response: result
                .structured
                .clone()
                .unwrap_or_else(|| Value::String(result.content.to_text())),
            tool_use_id: ctx.tool_use_id.clone(),
        };
        let mut outcome = self
            .after_call("PostToolUse", event, tool, input, ctx)
            .await;
        let loaded = (self.late.path_rules.get()).and_then(|rules| {
            crate::rules::instructions_for_tool_call(rules, tool.name(), input, &ctx.env)
        });
        if let Some((trigger, files, warnings)) = loaded {
            outcome.attachments = files.iter().map(|f| attachment_text(&f.file)).collect();
            for warning in warnings {
                self.notify(format!("warning: {warning}"));
            }
            if let Some(hooks) = &self.hooks {
                hooks.instructions_loaded_for(&files, &trigger).await;
            }
        }
        outcome
    }
}
