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
//! A handler is a command, an HTTP endpoint, a prompt, an MCP tool or an agent
//! ([`HookKind`]; all but the command run through the [`HookServices`] the
//! owner gives the runner). `if` is
//! decided by the caller ([`HookRunner::run_if`]), `once` by the runner, and an
//! `asyncRewake` hook that exits with 2 is handed to the runner's [`Rewake`].
//!
//! A [`HookObserver`] (`HookRunner::with_observer`) hears of each command hook
//! as it starts and ends: stream-json's hook lifecycle records.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - hook config, runner, outcome semantics; each command hook's start and end to a
//!   `HookObserver` (the runtime's `RuntimeEvent::Hook`, stream-json's `hook_started` /
//!   `hook_response`): `tack-hooks/src/{config,runner,outcome,lifecycle}.rs`; the runtime's
//!   observer: `tack-runtime/src/hooks.rs` (`HookEvents`)
//! - the 18 events tack fires and each one's input fields (the SDKs' `*HookInput` names),
//!   matcher target and block audience; handler options: `if` (decided by the caller through a
//!   `Condition`: the gate puts the rule alone into a copy of the permission engine as a deny
//!   rule), `once` (per session, shared by the runner's clones), `async` / `asyncRewake` +
//!   `rewakeMessage` (an exit 2 goes to the runner's `Rewake`: the runtime submits it as a new
//!   user turn, holding the command channel weakly): `tack-hooks/src/{event,config,runner}.rs`
//! - `type: "http"`, `"prompt"`, `"mcp_tool"` and `"agent"` hooks: run through a `HookServices`
//!   the session's owner gives the runner (their results fold like a command's stdout; prompt
//!   and agent `{ok: false}` is a block; an mcp_tool's `input` strings take `${path}` from the
//!   hook input); the runtime's: one reqwest client, the session's metered model client and
//!   small fast model, its MCP servers, a read-only sub-agent: `tack-hooks/src/remote.rs`;
//!   `tack-runtime/src/hook_services.rs`
//! - callback hooks (an SDK's hooks, by callback id) and the executor trait that reaches them:
//!   `tack-hooks/src/callback.rs`; the runtime's executor: `tack-runtime/src/hooks.rs`
//!   (`FrontEndCallbacks`)

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
pub use event::{BlockAudience, HookEvent, TaskHookFields};
pub use lifecycle::{HookEnd, HookLabel, HookObserver};
pub use outcome::{HookOutcome, PermissionDecision, StopHookGuard};
pub use process::{HookRun, OUTPUT_CAP, RunStatus};
pub use remote::{AGENT_HOOK_SYSTEM, HookServices, PROMPT_HOOK_SYSTEM, expand_env, substitute};
pub use runner::{
    AGENT_TIMEOUT, AsyncReports, Condition, DEFAULT_TIMEOUT, HookRunner, PROMPT_TIMEOUT, Rewake,
};
