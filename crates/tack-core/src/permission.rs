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

use futures::future::BoxFuture;
use serde_json::Value;
use tack_tool::{Tool, ToolContext};

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
}

/// Decides whether a tool call may run; see the module docs for when it is asked.
pub trait CanUseTool: Send + Sync {
    fn check<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, PermissionDecision>;
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
