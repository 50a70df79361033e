//! A skill's or custom command's `` !`command` `` line before it runs:
//! PreSkillShellCommand hooks, then the permission rules (as a Bash call
//! would be decided, with no one to ask).
//!
//! A hook's `allow` adds nothing: the rules still decide. `deny`, `ask`,
//! `defer`, a block (exit 2) or any `updatedInput` keeps the line from
//! running (Claude Code never runs a rewritten line).

use serde_json::json;
use tack_hooks::{HookEvent, PermissionDecision as HookDecision};
use tokio_util::sync::CancellationToken;

use super::Gate;
use tack_extensions::custom_commands::inline_shell::ShellOwner;

const EVENT: &str = "PreSkillShellCommand";

impl Gate {
    /// `Ok` when `command` may run; else why not (shown in its place).
    pub(crate) async fn inline_shell(
        &self,
        command: &str,
        owner: Option<&ShellOwner>,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let input = json!({ "command": command });
        if let (Some(hooks), Some(owner)) = (self.hooks.as_ref().filter(|h| h.has(EVENT)), owner) {
            let event = HookEvent::PreSkillShellCommand {
                tool_name: "Bash".to_owned(),
                tool_input: input.clone(),
                tool_use_id: format!("skillsh_{}", uuid::Uuid::new_v4().simple()),
                command_name: owner.name.clone(),
                command_source: owner.source.map(str::to_owned),
                invoked_by: owner.invoked_by,
            };
            let cond = |rule: &str| self.rule_matches(rule, ("Bash", &[]), &input, false, &[]);
            let outcome = hooks.run_for(&event, None, Some(&cond), cancel).await;
            let refused = |reason: Option<&str>| {
                format!(
                    "a {EVENT} hook refused it: {}",
                    reason.unwrap_or("no reason given")
                )
            };
            if let Some(reason) = outcome.blocked() {
                return Err(refused(Some(&reason)));
            }
            match outcome.permission_decision() {
                Some((HookDecision::Deny | HookDecision::Ask | HookDecision::Defer, reason)) => {
                    return Err(refused(reason));
                }
                Some((HookDecision::Allow, _)) | None => {}
            }
            if outcome.updated_input().is_some() {
                return Err(format!(
                    "a {EVENT} hook rewrote it, and a rewritten line never runs"
                ));
            }
        }
        self.inline_bash(command)
    }
}
