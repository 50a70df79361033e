//! The `Tool` trait: the contract between the agent loop (`tack-core`) and every
//! tool, built-in (`tack-tools`) or from an MCP server (`tack-mcp`).
//!
//! It lives in its own crate so that tools compile without the engine and the
//! engine without the tools; the binary wires the two together.
//!
//! # The model
//! The loop's streaming executor drives tools. When a `tool_use` block has finished
//! streaming it looks the tool up by name (or alias), checks the input against the
//! tool's schema by calling [`Tool::validate`], asks the permission layer, then calls
//! [`Tool::call`] with a [`ToolContext`]. Tools for which
//! [`Tool::is_concurrency_safe`] is true for that input may run in parallel with
//! each other; all others run alone, in order.
//!
//! A tool never fails the loop: `Err(ToolError)` becomes an `is_error` tool_result
//! (the message wrapped in `<tool_use_error>` tags) that the model reads and reacts to.
//! Cancellation is the context's token: a tool must return promptly once it fires
//! and must stop any child process it started (the executor also drops the future).
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - `Tool` trait, `ToolContext`, session file-read records: `tack-tool/src/{lib,context}.rs`
//! - tool input schemas from the Rust input types, input parsing with errors naming the field
//!   and the expected shape (every tool: built-ins and web): `tack-tool/src/input.rs`
//! - large tool results to disk (per result, per message): `tack-tool/src/budget.rs`
//! - messages for the model from outside the conversation (teammates, other sessions,
//!   Monitor, scheduled prompts), delivered mid-turn or waking an idle session:
//!   `tack-tool/src/arrivals.rs`
//! - the system prompt's cwd-dependent parts after the session moved (EnterWorktree):
//!   `tack-tool/src/moved_prompt.rs`

mod arrivals;
pub mod budget;
pub mod client_files;
pub mod client_terminal;
mod context;
pub mod input;
mod mode_source;
mod moved_prompt;
mod output;

pub use arrivals::{Arrival, Arrivals, Delivery, Expecting, IdleWatch};
pub use budget::{apply_message_budget, apply_result_budget};
pub use context::{
    AgentIdentity, DEFAULT_BASH_TIMEOUT, ProgressSink, ReadRecord, ToolContext, ToolEnv,
    ToolProgress,
};
pub use mode_source::{ModeSlot, ModeSource};
pub use moved_prompt::{EnteredWorktree, MovedPrompt, PromptPlace};
pub use output::{ToolError, ToolOutput, ToolResult, TurnEnd};

use std::path::PathBuf;

use futures::future::BoxFuture;
use serde_json::Value;

/// A tool the model can call. Implementations are cheap to share (`Arc<dyn Tool>`)
/// and hold per-session state (background tasks, todo list) behind their own locks.
pub trait Tool: Send + Sync {
    /// The name the model calls it by (`"Read"`, `"Bash"`, `"mcp__srv__tool"`).
    fn name(&self) -> &str;

    /// Older names accepted in tool calls, permission rules, hooks and transcripts
    /// (`TaskOutput` also answers to `BashOutput`).
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// The description sent to the model in the tool definition.
    fn description(&self) -> String;

    /// JSON Schema of the input object, sent as `input_schema`.
    fn input_schema(&self) -> Value;

    /// True if the call only reads (plan mode allows only these).
    fn is_read_only(&self, input: &Value) -> bool;

    /// True if this call may run concurrently with other concurrency-safe calls.
    /// Decided per input (a read-only `Bash` command could say yes).
    fn is_concurrency_safe(&self, input: &Value) -> bool {
        self.is_read_only(input)
    }

    /// Checks the input before anything runs: schema (required fields, types) and
    /// tool preconditions that need no side effect. `Err` is shown to the model,
    /// so it must say what was wrong and how to call the tool correctly.
    fn validate(&self, input: &Value, ctx: &ToolContext) -> Result<(), ToolError>;

    /// Text results longer than this many characters are stored on disk by the
    /// loop's result budget ([`budget::apply_result_budget`]), the model getting a
    /// preview and the path. `None` exempts the tool (Read: its output is already
    /// capped, and storing it in a file the model must Read again would loop).
    fn max_result_chars(&self) -> Option<usize> {
        Some(budget::DEFAULT_MAX_RESULT_CHARS)
    }

    /// Absolute paths this call would read or write, for the permission layer
    /// (which decides about paths outside the working directories).
    fn paths_touched(&self, _input: &Value, _ctx: &ToolContext) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Runs the tool. Progress goes to `ctx.progress`; the future resolves to the
    /// result for the model. Must return soon after `ctx.cancel` fires.
    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult>;
}
