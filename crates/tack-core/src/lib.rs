//! tack's engine: the agent loop (`query`), the streaming tool executor, the
//! outer `Session`, and the assembly of what is sent to the model.
//!
//! Modules import one way (`tests/module_graph.rs` checks it):
//! `context` ← `request` ← `executor`/`permission` ← `compact` ← `deps` ←
//! `query` ← `session`.
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - the loop, steps 1-14 top to bottom: `query_loop` runs `Query::iteration` (steps 1-13; the
//!   compaction tiers, the model call with its fallbacks and the tool results each a method)
//!   and step 14's decision: `tack-core/src/query/mod.rs`
//! - `State`, `Transition`, `Terminal`, `LoopEvent`:
//!   `tack-core/src/query/{state,terminal,event}.rs`
//! - continue decision (the seeds' tree): `tack-core/src/query/continue_decision.rs`
//! - one file per recovery path:
//!   `tack-core/src/query/recovery/{max_output_tokens,reactive_compact,model_fallback,streaming_fallback,stop_hooks,token_budget}.rs`
//! - window limits and where each compaction tier fires: `tack-core/src/compact/limits.rs`
//! - compaction tiers, one file each (trigger, pure function, effect); summarisation shared by
//!   auto, reactive and manual compaction:
//!   `tack-core/src/compact/{tool_result_budget,snip,microcompact,autocompact,blocking_limit}.rs`
//! - module import directions (every crate), crate dependency directions, function and file
//!   sizes, checked: `tack-core/tests/{module_graph,crate_graph,sizes}.rs`
//! - streaming tool executor; one call's result (`ToolCallOutcome`): `tack-core/src/executor/`,
//!   `tack-core/src/outcome.rs`
//! - injectable dependencies (model call, compaction, ids); every `QueryDeps` is a
//!   `compact::CompactDeps`: `tack-core/src/deps.rs`
//! - `can_use_tool` callback (and the PostToolUse seam); a hook's `continue: false`
//!   (`PermissionDecision::Stop`, `PostToolUseOutcome::stops_turn`) ends the turn after that
//!   message's results (`Terminal::HookStopped`): `tack-core/src/permission.rs`
//! - outer layer: usage, cost, budget, result: `tack-core/src/session.rs`
//! - system prompt, CLAUDE.md / AGENTS.md, git state (tack-git's snapshot; its `git` processes
//!   on a thread and runtime of their own): `tack-core/src/context/*.rs`
//! - rules (`.claude/rules/**/*.md` of each project dir, `~/.claude/rules/`): without `paths`
//!   frontmatter, memory files at start (after `AGENTS.md`, before `CLAUDE.local.md`; user
//!   rules after the user's CLAUDE.md); with `paths`, only the frontmatter read at start, the
//!   body (and its imports) loaded once a session when a Read / Edit / MultiEdit / Write /
//!   NotebookEdit call touches a matching file (gitignore-style globs relative to the folder
//!   holding `.claude/`), sent as Claude Code's `Contents of <path>:` system reminder after
//!   that message's tool results (`ToolCallOutcome::attachments`); the same touch loads, once
//!   each, the memory of the folders between the cwd and the file (their `CLAUDE.md` files and
//!   `.claude/rules/`, Claude Code's nested memory; `PathRules::for_file`: user `paths` rules,
//!   nested folders, project `paths` rules; after a compaction or `/clear` they load again:
//!   `Gate::forget_loaded_rules`); `tack-runtime/src/rules.rs` `instructions_for_tool_call` is
//!   the one place a rule loads mid-session (each file with its `LoadReason`, for InstructionsLoaded):
//!   `tack-core/src/context/{rules,path_rules,memory_files}.rs`, `tack-runtime/src/rules.rs`,
//!   the gate's `post_tool_use`
//! - normalisation, user-context placement, cache breakpoints: `tack-core/src/request/*.rs`
//! - a PreToolUse hook's `defer` (`-p` and the SDKs; a warning in the terminal UI):
//!   `PermissionDecision::Defer` ends the turn with the message's calls pending and no result
//!   sent (`Terminal::ToolDeferred`, the result's `stop_reason: "tool_deferred"` and
//!   `deferred_tool_use`); an SDK resume (`ConversationOptions::run_pending`) takes back the results
//!   the loader made up for them (`LoadedSession::reopen_last_tool_uses`) and runs them first
//!   (`Work::ResumePending`, `Session::resume_pending`, `query` on a conversation ending in
//!   tool_uses), holding the `initialize` answer until they are checked (the SDK closes stdin
//!   at once when it has no prompt):
//!   `tack-core/src/{permission,query/mod,query/terminal,session}.rs`,
//!   `tack-runtime/src/{gate,start}.rs`, `runtime/turn.rs`, `tack-cli/src/sdk/mod.rs`
//! - model calls made on a session's behalf (sub-agents, side requests) in its totals and
//!   budget: `tack-core/src/session.rs` (`UsageLedger`)

pub mod compact;
pub mod context;
pub mod query;
pub mod request;

pub mod deps;
pub mod executor;
pub mod outcome;
pub mod permission;
pub mod session;

pub use query::{
    LoopEvent, ModelSwitch, QueryConfig, QueryParams, QueryStream, Terminal, Transition, query,
};
