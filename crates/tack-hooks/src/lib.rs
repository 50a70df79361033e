//! tack's hook runner: Claude Code's hook events, matchers, command hooks and the
//! meaning of their exit codes and JSON output.
//!
//! # The model
//! Settings' `hooks` values are parsed into a [`HooksConfig`] (several files merge).
//! The agent loop owns one [`HookRunner`] per session and calls
//! [`HookRunner::run`] at each event with a typed [`HookEvent`]; the matching
//! command hooks run concurrently (`sh -c`, JSON on stdin, in the session cwd,
//! each in its own process group, killed with the group at its timeout or when the
//! cancellation token fires). The call always returns a [`HookOutcome`]: nothing a
//! hook does can hang or crash tack. The loop then acts on it:
//!
//! - PreToolUse: [`HookOutcome::permission_decision`] — `Deny` blocks the call even
//!   if a rule allows it (reason to the model); `Allow` skips the prompt but deny and
//!   ask rules still apply; `Ask` forces a prompt; [`HookOutcome::updated_input`]
//!   replaces the input.
//! - PostToolUse: [`HookOutcome::blocked`] goes to the model next to the result.
//! - UserPromptSubmit: `blocked` rejects the prompt (message to the user).
//! - Stop / SubagentStop: `blocked` continues the loop once per exit point
//!   ([`StopHookGuard`]).
//! - UserPromptSubmit, SessionStart, PreToolUse, PostToolUse:
//!   [`HookOutcome::additional_context`] goes to the model as a system reminder.
//! - PostToolUseFailure: like PostToolUse, next to the error result.
//! - PermissionRequest: `permission_decision` Allow / Deny (`hookSpecificOutput.
//!   decision`, exit 2 denies), with `updated_input`, `updated_permissions`,
//!   `interrupt`. PermissionDenied: [`HookOutcome::retry`].
//! - SubagentStart: `additional_context` goes to the sub-agent.
//! - SessionStart, CwdChanged, FileChanged: [`HookOutcome::watch_paths`].
//! - Every event: `should_continue() == false` stops the turn (`stop_reason` to the
//!   user); `system_messages` and `errors` are shown to the user.
//!
//! A handler is a command, an HTTP endpoint or a prompt ([`HookKind`]; the last
//! two run through the [`HookServices`] the owner gives the runner). `if` is
//! decided by the caller ([`HookRunner::run_if`]), `once` by the runner, and an
//! `asyncRewake` hook that exits with 2 is handed to the runner's [`Rewake`].
//!
//! A [`HookObserver`] (`HookRunner::with_observer`) hears of each command hook
//! as it starts and ends: stream-json's hook lifecycle records.

mod callback;
mod config;
mod event;
mod lifecycle;
mod outcome;
mod process;
mod remote;
mod runner;

pub use callback::{CallbackCall, HookCallbacks, callback_label};
pub use config::{
    CallbackHook, CallbackMatcher, CommandHook, EVENTS, HookConfigError, HookGroup, HookKind,
    HooksConfig, LEGACY_TOOL_NAMES, Matcher, OnFailure,
};
pub use event::{BlockAudience, HookEvent};
pub use lifecycle::{HookEnd, HookLabel, HookObserver};
pub use outcome::{HookOutcome, PermissionDecision, StopHookGuard};
pub use process::{HookRun, OUTPUT_CAP, RunStatus};
pub use remote::{HookServices, PROMPT_HOOK_SYSTEM, expand_env};
pub use runner::{AsyncReports, Condition, DEFAULT_TIMEOUT, HookRunner, PROMPT_TIMEOUT, Rewake};
