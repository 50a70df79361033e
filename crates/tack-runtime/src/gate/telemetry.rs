//! Where a decision came from, in Claude Code's telemetry words (`source`
//! of `tool_decision`): `config` (rules and mode), `hook` (a PreToolUse
//! hook), `user_temporary` / `user_reject` (a person or an SDK answered).

use serde_json::Value;
use tack_core::permission::PermissionDecision;
use tack_permissions::Decision;
use tack_tool::{Tool, ToolContext};

use super::Gate;

impl Gate {
    /// Worked out after the fact, only when telemetry is on: the engine
    /// alone is asked again (a pure, in-memory decision).
    pub(super) fn decision_source(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        decision: &PermissionDecision,
    ) -> &'static str {
        let by_hook = match decision {
            PermissionDecision::Stop { .. } | PermissionDecision::Defer => true,
            PermissionDecision::Deny { message } => message.starts_with("PreToolUse hook"),
            PermissionDecision::Allow | PermissionDecision::AllowWithInput(_) => false,
        };
        if by_hook {
            return "hook";
        }
        let answered = self.prompts.is_some() || self.others.prompt_tool.get().is_some();
        let accepted = matches!(
            decision,
            PermissionDecision::Allow | PermissionDecision::AllowWithInput(_)
        );
        match self.decide(tool, input, ctx, false) {
            Decision::Allow { .. } | Decision::Deny { .. } => "config",
            Decision::Ask { .. } if !answered && accepted => "hook",
            Decision::Ask { .. } if !answered => "config",
            Decision::Ask { .. } if accepted => "user_temporary",
            Decision::Ask { .. } => "user_reject",
            Decision::Classify { .. } => "classifier",
        }
    }
}
