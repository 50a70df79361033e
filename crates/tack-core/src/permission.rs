//! The `can_use_tool` callback: asked before every tool call.
//!
//! # The model
//! The [`crate::executor::StreamingToolExecutor`] asks [`CanUseTool::check`] exactly
//! once per tool call, after the tool's `validate` accepted the input and before
//! `call`. It asks from the call's own task, so several concurrency-safe calls can be
//! waiting for an answer at the same time: an interactive implementation must
//! serialise its prompts itself. On abort the executor stops waiting for the answer
//! (the future is dropped), so an implementation needs no cancellation handling of
//! its own, though `ctx.cancel` is there if it wants it.
//!
//! A denial never fails the loop: it becomes an `is_error` tool_result carrying the
//! denial message, which the model reads and reacts to.
//!
//! The same object is told about every call that ran successfully
//! ([`CanUseTool::post_tool_use`], the PostToolUse hook seam; a no-op by default):
//! what it returns is appended to that call's tool_result text for the model.

use futures::future::BoxFuture;
use serde_json::Value;
use tack_tool::{Tool, ToolContext};

use crate::outcome::ToolCallOutcome;

/// The answer for one tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionDecision {
    /// Run the call with the input the model sent.
    Allow,
    /// Do not run it; `message` is what the model is told (sent as-is, `is_error`).
    Deny { message: String },
    /// Run it with this input instead (the user edited it). The input is validated
    /// again before the call.
    AllowWithInput(Value),
    /// Do not run it, and end the turn once this message's results are in (a
    /// hook's `continue: false`): the model is not called again.
    Stop { message: String },
    /// Do not run it, and end the turn at once with the call pending (a
    /// PreToolUse hook's `defer`): no tool_result is written, so a resumed
    /// session runs the call again, permission check first.
    Defer,
}

/// What runs after a successful call added for the model (PostToolUse hooks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PostToolUseOutcome {
    /// A blocking hook's message (exit 2 / `decision: "block"`): the call already
    /// ran, so it is feedback for the model, appended to the result.
    pub block_reason: Option<String>,
    /// `additionalContext`: appended to the result as a system reminder.
    pub additional_context: Option<String>,
    /// `continue: false`: the turn ends after this call's results.
    pub stops_turn: bool,
    /// Texts for the model that join the message after the tool results,
    /// each a system reminder of its own (rules the call's file loaded).
    pub attachments: Vec<String>,
}

impl PostToolUseOutcome {
    /// The text appended to the tool_result, if any.
    pub fn appendix(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(reason) = &self.block_reason {
            parts.push(format!("PostToolUse hook feedback:\n{reason}"));
        }
        if let Some(context) = &self.additional_context {
            parts.push(crate::request::system_reminder(context));
        }
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }
}

/// Decides whether a tool call may run; see the module docs for when it is asked.
pub trait CanUseTool: Send + Sync {
    fn check<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PermissionDecision>;

    /// Called after `tool` ran with `input` (before the result is handed to
    /// the loop), whether it succeeded or failed (`result.is_error`: the
    /// tool's error, or an error output); the answer is appended to the
    /// result's text. The default does nothing.
    fn post_tool_use<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        result: &'a ToolCallOutcome,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PostToolUseOutcome> {
        let _ = (tool, input, result, ctx);
        Box::pin(std::future::ready(PostToolUseOutcome::default()))
    }
}

/// Allows every call (`--dangerously-skip-permissions`, tests).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl CanUseTool for AllowAll {
    fn check<'a>(
        &'a self,
        _tool: &'a dyn Tool,
        _input: &'a Value,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PermissionDecision> {
        Box::pin(std::future::ready(PermissionDecision::Allow))
    }
}

/// A [`CanUseTool`] from a closure over the tool name and input, for callers that
/// do not need the tool object or the context.
pub struct PermissionFn<F>(pub F);

impl<F> CanUseTool for PermissionFn<F>
where
    F: Fn(&str, &Value) -> BoxFuture<'static, PermissionDecision> + Send + Sync,
{
    fn check<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PermissionDecision> {
        (self.0)(tool.name(), input)
    }
}
