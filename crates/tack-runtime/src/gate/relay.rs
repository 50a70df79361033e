//! Permission questions that go through someone else's front end.
//!
//! - A teammate in a process of its own asks its lead: the gate hands the
//!   question to its [`AskRelay`] (the team's inboxes,
//!   `crate::teams::relay`) in place of its own front end, and only the
//!   answer that comes back allows anything.
//! - The lead answers for it: [`Gate::ask_for_teammate`] raises the same
//!   ask its own tools raise (a `PermissionRequest` whose `agent` names the
//!   teammate), or asks the `--permission-prompt-tool`, or, with nobody to
//!   ask, refuses. An "always allow" in its answer (rule updates) goes back
//!   with it and the teammate applies it as it would its own front end's.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tack_tool::{AgentIdentity, Tool, ToolContext};

use super::Gate;
use crate::event::{PermissionRequest, RuntimeEvent};
use crate::protocol::ask::{AskAnswer, PermissionAnswer};

/// Who a gate asks besides its front end (each set once).
#[derive(Default)]
pub(super) struct OtherAskers {
    /// `--permission-prompt-tool mcp__server__tool`: asked when no front end
    /// answers (set once the MCP servers are up).
    pub(super) prompt_tool: std::sync::OnceLock<tack_mcp::PermissionPromptTool>,
    /// A teammate's lead, asked in place of its front end.
    pub(super) relay: std::sync::OnceLock<Arc<dyn AskRelay>>,
}

/// One question a teammate asks its lead.
#[derive(Debug, Clone, PartialEq)]
pub struct RelayedAsk {
    pub tool_name: String,
    pub input: Value,
    pub tool_use_id: String,
    /// Why the teammate's rules ask.
    pub reason: String,
    /// Rules that would allow calls like this one (the teammate's "don't
    /// ask again" suggestions, offered to the lead's front end).
    pub suggestions: Vec<String>,
}

/// Where a teammate's questions go instead of its own front end.
pub trait AskRelay: Send + Sync {
    /// The lead's answer; a refusal when there is none (no lead, a timeout).
    fn ask(&self, ask: RelayedAsk) -> BoxFuture<'static, PermissionAnswer>;

    /// Whether the lead approves this teammate's plans (its member entry's
    /// `planModeRequired`), and how to ask it.
    fn plan_lead(&self) -> Option<Arc<dyn PlanApprover>> {
        None
    }
}

/// The lead's answer to a teammate's plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanVerdict {
    pub approved: bool,
    /// What to change (a refusal's reasons, or notes with an approval).
    pub feedback: Option<String>,
    /// The mode to work in once approved (Claude Code's lead sends its own,
    /// plan mode read as `default`); `None`: the mode before plan mode.
    pub permission_mode: Option<tack_permissions::PermissionMode>,
}

/// What a teammate does with its lead's answer once it is read.
pub type OnVerdict = Box<dyn FnOnce(PlanVerdict) + Send>;

/// Who approves a teammate's plans: its lead, through the team's inboxes
/// (`crate::teams::plan_approval`).
pub trait PlanApprover: Send + Sync {
    /// Sends `plan` (saved in `file`) to the lead; `on_verdict` runs when
    /// the lead's answer is read. The request's id, or why it could not be
    /// sent.
    fn submit(
        &self,
        plan: &str,
        file: &std::path::Path,
        on_verdict: OnVerdict,
    ) -> Result<String, String>;
}

impl Gate {
    /// From now on, questions go to `relay` (set once).
    pub(crate) fn set_relay(&self, relay: Arc<dyn AskRelay>) {
        let _ = self.others.relay.set(relay);
    }

    pub(super) fn relays(&self) -> bool {
        self.others.relay.get().is_some()
    }

    /// A teammate process's lead, when it approves the teammate's plans.
    pub(crate) fn plan_lead(&self) -> Option<Arc<dyn PlanApprover>> {
        self.others.relay.get()?.plan_lead()
    }

    /// Asks the relay about one call and carries out its answer.
    pub(super) async fn ask_relay(
        &self,
        tool: &dyn Tool,
        input: &Value,
        ctx: &ToolContext,
        (reason, suggestions): (String, &[String]),
        hook_updated: bool,
    ) -> Option<tack_core::permission::PermissionDecision> {
        let relay = self.others.relay.get()?;
        let ask = RelayedAsk {
            tool_name: tool.name().to_owned(),
            input: input.clone(),
            tool_use_id: ctx.tool_use_id.clone(),
            reason,
            suggestions: suggestions.to_vec(),
        };
        let answer = tokio::select! {
            answer = relay.ask(ask) => Some(answer),
            () = ctx.cancel.cancelled() => None,
        };
        Some(self.apply_answer(tool, input, ctx, answer, hook_updated))
    }

    /// The lead's answer to its teammate `who` (`<name>@<team>`, of type
    /// `agent_type`): its front end's, its prompt tool's, or a refusal.
    pub(crate) async fn ask_for_teammate(
        &self,
        who: AgentIdentity,
        ask: RelayedAsk,
    ) -> PermissionAnswer {
        let refuse = |message: String| PermissionAnswer::Deny {
            message,
            interrupt: false,
        };
        if let Some(prompt_tool) = self.others.prompt_tool.get() {
            let cancel = tokio_util::sync::CancellationToken::new();
            return match prompt_tool
                .ask(&ask.tool_name, &ask.input, &ask.tool_use_id, &cancel)
                .await
            {
                Ok(tack_mcp::PromptDecision::Allow {
                    updated_input,
                    updated_permissions,
                }) => PermissionAnswer::Allow {
                    updated_input: Some(updated_input),
                    updates: (updated_permissions.into_iter())
                        .filter_map(|u| serde_json::from_value(u).ok())
                        .collect(),
                },
                Ok(tack_mcp::PromptDecision::Deny { message, .. }) => refuse(message),
                Err(e) => refuse(format!("The permission prompt tool failed: {e}")),
            };
        }
        let Some(prompts) = &self.prompts else {
            return refuse(format!(
                "{} asked the lead, which has no permission prompt: {}",
                who.id, ask.reason
            ));
        };
        let reason = format!("teammate {} asks: {}", who.id, ask.reason);
        let request = |id| PermissionRequest {
            id,
            tool_name: ask.tool_name.clone(),
            input: ask.input.clone(),
            tool_use_id: ask.tool_use_id.clone(),
            reason,
            suggestions: ask.suggestions.clone(),
            blocked_path: None,
            agent: Some(who),
            original: None,
            choices: self.choices(&ask.tool_name),
        };
        let Some(mut pending) =
            prompts.ask(|id| RuntimeEvent::PermissionRequest(Box::new(request(id))))
        else {
            return refuse("the lead's session is ending".to_owned());
        };
        match pending.answer().await {
            Some(AskAnswer::Permission(answer)) => answer,
            Some(AskAnswer::Hook(_)) | None => {
                refuse("The lead did not answer the permission request".to_owned())
            }
        }
    }
}
