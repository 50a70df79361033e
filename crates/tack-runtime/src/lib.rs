//! tack's session runtime: the one place that turns settings and options into
//! a running session, and the only thing a front end talks to.
//!
//! # The model
//! A front end (print mode, the Agent SDK protocol, the terminal UI, a
//! sub-agent) does three things:
//! 1. [`load_settings`] for a [`Place`] (every settings file, checked, with the
//!    workspace's [trust](TrustStore) applied), then [`start`] with its
//!    [`SessionOptions`]: credentials, the conversation (new, `--continue`,
//!    `--resume`), the transcript, model, tools, permission gate, hooks and
//!    prompt context. Every problem is a [`StartError`] before anything is sent.
//! 2. [`Runtime::spawn`]: the session becomes a task; the front end keeps a
//!    [`RuntimeHandle`] to send [`Op`]s (user messages, with
//!    [`TurnOptions`] for one turn if need be; messages appended without a
//!    turn, the user's `!command` and `#note`, interrupt, set permission
//!    mode, set model, compact, and a
//!    [`SessionSnapshot`] of the state for a front end's `/cost`, `/context`,
//!    `/status`) and reads [`RuntimeEvents`]. A user message that starts
//!    with `/compact`, `/skills`, a custom command's or a user-invocable
//!    skill's `/name` (tack-extensions loads them) is that command, whichever
//!    front end sent it.
//!    A front end where a person types sets
//!    [`Runtime::with_idle_notification`]; one that shows a resumed
//!    conversation reads [`Runtime::messages`] first.
//! 3. Renders each [`RuntimeEvent`]: notices, `Started` (the init record), the
//!    loop's events, turn ends with their result record, permission requests
//!    and client hook callbacks it answers, and `Ended`.
//!
//! The runtime persists (the transcript is core's sink: a message is on disk
//! before any front end sees it), runs every hook event on its own, decides
//! permissions and shapes results; front ends decide nothing of that. User
//! messages queue behind a running turn; an interrupt stops the turn at once
//! (model stream and tools) and is answered when the turn has ended.
//! [`records::Records`] turns events into stream-json records.
//!
//! A session's tools include WebFetch, WebSearch and the Agent tool
//! (`agents/`): a sub-agent is this machinery driven by a tool, its loop events
//! emitted as [`RuntimeEvent::Subagent`].
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - `CLAUDE_CODE_USE_BEDROCK` / `CLAUDE_CODE_USE_VERTEX`: Claude Code's variables, the
//!   `~/.aws` files and application-default credentials → a `Platform` and where its
//!   credentials came from (`tack doctor`); the session model shown as the platform's id:
//!   `tack-runtime/src/cloud.rs`, `auth.rs`, `model.rs`; `tack-cli/src/doctor.rs`
//! - the session's sandbox from settings and `--sandbox`, its temp dir and proxy; auto-allow
//!   (`Gate::decide`); network asks as permission requests: `tack-runtime/src/sandbox.rs`,
//!   `tack-runtime/src/gate.rs`, `tack-runtime/src/gate/network.rs`
//! - the runtime's ops, replies, asks and events; the handle front ends hold:
//!   `tack-runtime/src/protocol/{op,reply,ask}.rs`, `event.rs`, `handle.rs`
//! - a front end's choices in five groups (`SessionOptions`): `options.rs`; the parts a
//!   running session holds (`Policy`, `TurnSettings`, `Extensions`, `Services`, `Book`):
//!   `runtime/parts.rs`
//! - building a ready session: credentials, resume, transcript, model, tools, gate, hooks,
//!   context (one function per concern; the prompt context loads beside the rest and is awaited
//!   where the tools need it; `session_tools` does not import `start`):
//!   `tack-runtime/src/{start,auth,model}.rs`, `start/{model,assemble,conversation}.rs`
//! - the session task: queue, commands mid-turn, interrupt, `/compact`, `/clear` (new id, new
//!   transcript via `transcript.rs`'s `TranscriptPlace`, `ConversationReset`),
//!   `Started`/`TurnEnded`: `tack-runtime/src/runtime/{mod,conversation}.rs`; one turn's run
//!   (prompt made ready, events passed on) in `runtime/turn.rs`
//! - a sub-agent's life as a task (every Agent call, foreground or background):
//!   `RuntimeEvent::Task` (stream-json `system/task_started`, then `task_updated` and
//!   `task_notification` at its end, `task_type: "local_agent"`; a background one joins and
//!   leaves `background_tasks_changed` around them: `task_records.rs`); a background agent's
//!   end (`agents::Woken`, counted in flight by `AgentsShared::wake_owed`) wakes the session
//!   for a turn of its own with a `<task-notification>` message; `RuntimeEvent::SessionState`
//!   (`running` / `idle`, idle only when no agent's end is still owed; only with
//!   `FrontEndOptions::session_state`) becomes `system/session_state_changed` in SDK mode when
//!   `CLAUDE_CODE_SDK_READS_SESSION_STATE` (marked `sdk_host_only`) or
//!   `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS` asks, so the SDKs keep stdin open for the woken
//!   turn: `tack-runtime/src/agents/{mod,tool}.rs`, `runtime/mod.rs` (`Driver::woken`,
//!   `set_state`), `records.rs`, `task_records.rs`, `tack-cli/src/sdk/mod.rs`
//! - custom commands, skills, output styles, plugins and agent definitions are loaded by
//!   tack-extensions (its `lib.rs` maps them: files, frontmatter, precedence, trust); what a
//!   session does with them is here
//! - a user message's `/name` dispatched for every front end (`/compact`, `/clear` and its
//!   aliases, `/init`, `/skills`, custom commands, skills, unknown; `/compact` and `/clear`
//!   messages end with a result like a turn); a plugin's command or skill also as plain
//!   `/name` when no command or skill has that exact name and it is the only plugin one of
//!   that plain name, as Claude Code registers plugin skills (`invocable`); the list
//!   `system/init`, `initialize` and the UI's menu show (each entry tack-extensions'
//!   terminal-safe `listed()`): `tack-runtime/src/slash.rs`
//! - the `Skill` tool: a skill's body on demand (`${CLAUDE_SKILL_DIR}`; the full name only); a
//!   `context: fork` skill's body is the prompt of a foreground sub-agent of its `agent` type,
//!   default general-purpose, run by the session's Agent tool (`AgentTool::run_forked_skill`),
//!   its answer the result as `Skill "x" completed (forked execution).`; the first prompt's
//!   listing reminder (names and descriptions only); `Skill(name)` rules in
//!   `tack-permissions/src/rule.rs` (`Specifier::SkillName`): `tack-runtime/src/skill_tool.rs`
//! - the output style a session has: its part of the system prompt (`# Output Style: <name>`
//!   last, no "be concise", the coding section only with `keep-coding-instructions`) and the
//!   reminder every prompt carries: `start.rs`; the prompt in
//!   `tack-core/src/context/system_prompt.rs` (`OutputStylePrompt`)
//! - what the extension points bring to a session, read once at start by tack-extensions'
//!   loaders, their warnings (and plugins' `PluginFailure`s, also `system/init`'s
//!   `plugin_errors`) emitted as notices: plugins (`--plugin-dir`s and the installed, enabled
//!   ones, nothing read unless a settings file names `enabledPlugins`), commands and skills,
//!   output styles (plugins' as `plugin:style`), settings' and plugins' hooks (with
//!   `${CLAUDE_PLUGIN_ROOT}` / `${CLAUDE_PLUGIN_DATA}` set in the hook's env); plugins' MCP
//!   servers join the session's in `mcp.rs`; the marketplace auto-update of a terminal UI
//!   session: `tack-runtime/src/extensions.rs`
//! - `` !`cmd` `` lines of a custom command's or skill's body, run before the prompt is sent
//!   or, for the model's `Skill` call, before the body is returned (invariant 25);
//!   PreSkillShellCommand hooks first (`command_name`, `command_source`, `invoked_by` from
//!   `ShellOwner`): `tack-runtime/src/inline_shell.rs`, `gate/skill_shell.rs`
//!   (`Gate::inline_shell`), `skill_tool.rs`
//! - settings loading with workspace trust; the trust store (`tack trust`):
//!   `tack-runtime/src/{config,trust}.rs`; what untrusted settings lose:
//!   `tack-config/src/settings.rs` (`IgnoredUntrusted`)
//! - the transcript writer (core's `TranscriptSink`; one record per content block, each with
//!   the message's `id`, whole `usage` and the response's `requestId` from the `request-id`
//!   header (`StreamEvent::RequestId`), so usage readers that count each (`id`, `requestId`)
//!   once total the result's usage: `tack-cli/tests/usage_dedup.rs`); `--session-mirror` (each
//!   written record also a `RuntimeEvent::TranscriptMirror`, through tack-store's
//!   `TranscriptMirror` hook on every transcript, sub-agents' included, with their `.meta.json`
//!   as an `agent_metadata` entry); `--resume-drops-turn`'s check before a truncating resume:
//!   `tack-runtime/src/transcript.rs`, `tack-store/src/{writer,drops_turn}.rs`
//! - the permission gate: rules, PreToolUse/PostToolUse hooks (a PreToolUse `additionalContext`
//!   is kept by tool_use id and appended to that call's result with PostToolUse's), prompts to
//!   the front end, permission updates; the Read decision for an `@` mention
//!   (`Gate::mention_read`): `tack-runtime/src/gate.rs`
//! - the gate's other tool events: PermissionRequest (when the engine says Ask, before any
//!   prompt, print mode included), PermissionDenied (a rule's or the mode's denial; `retry`),
//!   PostToolUseFailure (core's `CanUseTool::post_tool_use`, on an error outcome), hooks' `if`
//!   conditions: `tack-runtime/src/gate/tool_hooks.rs`
//! - `@path` / `@server:uri` mentions of a submitted message, for every front end:
//!   `tack-runtime/src/mentions.rs`
//! - a prompt past the context window answered locally: `tack-runtime/src/prompt_size.rs`
//! - the user's `!cmd` (into the conversation as `<bash-input>` / `<bash-stdout>`) and `#note`
//!   (tack-core's `project_memory_file`): `tack-runtime/src/user_shell.rs`
//! - every hook event, each wired on its own (core's `LoopHooks` for Stop / PreCompact; Stop
//!   and a sub-agent's SubagentStop share `SessionHooks::stop_hooks`; SubagentStart's context
//!   joins the sub-agent's prompt; PostCompact and InstructionsLoaded `compact` after each
//!   compaction; InstructionsLoaded `session_start` before SessionStart, and
//!   `path_glob_match` / `nested_traversal` / `include` after a tool call loads rules):
//!   `tack-runtime/src/hooks.rs`
//! - what `http`, `prompt`, `mcp_tool` and `agent` hooks run on (the metered model client, the
//!   session's MCP servers, a read-only sub-agent answering through `StructuredOutput`):
//!   `tack-runtime/src/{hook_services,hook_agent}.rs`
//! - the worktrees tack makes, `--worktree`'s and an `isolation: worktree` sub-agent's, made
//!   and removed one way (WorktreeCreate / WorktreeRemove hooks or git, `worktree.baseRef`):
//!   `tack-runtime/src/made_worktree.rs`; their hooks (`--worktree`'s run before the session
//!   exists, from the settings of the folder tack started in; a sub-agent's are the
//!   session's): `tack-runtime/src/worktree_hooks.rs`
//! - after EnterWorktree / ExitWorktree, the next request's system prompt (environment section,
//!   git snapshot) recomputed for the new folder: `tack-runtime/src/worktree_place.rs`
//! - the shared task list in a session: which list (`CLAUDE_CODE_TASK_LIST_ID`, a team, the
//!   session), Task tools instead of TodoWrite (`CLAUDE_CODE_ENABLE_TASKS`), their TaskCreated /
//!   TaskCompleted hooks: `tack-runtime/src/task_hooks.rs` (the store and tools:
//!   `tack-tools/src/tasks/`)
//! - `/name` of a `context: fork` skill: the Skill tool's sub-agent, the answer into the
//!   conversation without a model call: `tack-runtime/src/runtime/forked_skill.rs`
//! - CwdChanged / FileChanged / ConfigChange without a watcher thread: mtimes compared after
//!   each main-agent tool call and before each prompt; FileChanged matchers' file names and
//!   hooks' `watchPaths` are the watched files: `tack-runtime/src/hook_watch.rs`
//! - stream-json records and result records from events (an API error is Claude Code's
//!   `success` with `is_error`, its text in `result`, `terminal_reason: "api_error"`; the user
//!   line's `uuid` and `origin` echoed): `tack-runtime/src/records.rs`, `command.rs`
//!   (`TurnEcho`)
//! - a thinking budget the API accepts (≥ 1,024, below `max_tokens`, which rises to 32,000):
//!   `tack-runtime/src/model.rs` (`fit_thinking`)
//! - HTTP client built off the start-up path: `tack-runtime/src/client.rs`
//! - model → provider: `<provider>/<id>` to that provider's client (built on first use, prefix
//!   stripped, answers named `<provider>/<id>`), anything else to the Anthropic client; the
//!   `openai` provider from `OPENAI_API_KEY` / `OPENAI_BASE_URL`; the settings' `PriceBook`:
//!   `tack-runtime/src/providers.rs` (`ProviderRouter`)
//! - a session's tools: built-ins (one background-task registry shared with the Agent tool),
//!   WebFetch / WebSearch with their side requests metered into the session's `UsageLedger`,
//!   the Agent tool: `tack-runtime/src/{session_tools,metered}.rs`
//! - sub-agents (definitions and their precedence: tack-extensions' `agents/`): the Agent
//!   tool (`Task`), the sub-session driver (fresh context, tool subset incl. the
//!   session's MCP tools through a weak `McpManager` handle, deferred behind the sub-agent's
//!   own ToolSearch by the session's rule (`mcp::subagent_tool_set`), sidechain transcript,
//!   `RuntimeEvent::Subagent`), read-only Bash, SubagentStop hooks; a sub-agent's `ToolEnv`
//!   carries its `AgentIdentity`, so hook inputs and permission requests for its calls name it:
//!   `tack-runtime/src/agents/{tool,run,read_only,stop_hooks}.rs`
//! - agent teams and messages between sessions (with `CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS`):
//!   Claude Code's team files, inboxes and session registry (`teams/files/`, no runtime types),
//!   the messaging socket (`teams/peer.rs`), the inbox watch (`teams/watch.rs`, inotify), what
//!   arrives wrapped as `<teammate-message>` / `<cross-session-message>` and pushed to the
//!   session's `Arrivals` (`teams/{session,tools,wrap}.rs`), SendMessage and ListAgents
//!   (`teams/{send_message,list_agents,route}.rs`), in-process teammates (the Agent tool's
//!   `name`; `teams/teammate.rs`, follow-up turns in `agents/run.rs`), plan approval for a
//!   teammate spawned with `mode: "plan"` (`teams/plan_approval.rs`, its own mode in
//!   `gate/plan.rs`), a teammate process's death seen through a pidfd (`teams/left.rs`);
//!   `docs/teams.md`
//! - file checkpointing for every front end (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING` or
//!   `SessionOptions::file_checkpointing`, on in the terminal UI): the gate keeps a file tool's
//!   file once its call is allowed, each turn begins a checkpoint, `Command::RewindFiles` (the
//!   SDK's `rewind_files`): `tack-runtime/src/checkpoints.rs`, `gate.rs` (`CanUseTool::check`),
//!   `runtime/mod.rs`
//! - rewinding the conversation: `Command::RewindPoints` (the prompts still in the
//!   conversation, each with its turn's checkpoint id) and `Command::RewindConversation`
//!   (refused while a turn runs; drops the prompt and what followed, `Session::rewind_to`
//!   writes `TranscriptEntry::Branch` so the next record's `parentUuid` is the record before it
//!   and a resume follows the new branch; answers with the prompt's text and the conversation
//!   left); `/clear`: `tack-runtime/src/runtime/conversation.rs`, `tack-core/src/session.rs`
//! - a session's telemetry: every `RuntimeEvent` observed as the `Emitter` sends it
//!   (`api_request`, `api_error`, `tool_result`, tokens, cost, lines, commits, active time),
//!   the prompt from `runtime/turn.rs`, the gate's decisions and their `source`
//!   (`gate/telemetry.rs`), the flush before `Ended`; the test receiver (tonic's generated gRPC
//!   services and axum HTTP routes on one port): `tack-runtime/src/{telemetry,emit}.rs`;
//!   `tack-cli/tests/otel.rs`, `otel/receiver.rs`
//! - a session's state for a front end (context usage, totals, rules, hooks):
//!   `tack-runtime/src/snapshot.rs`
//! - `isolation: worktree` (an agent definition's or an Agent call's): the sub-agent's
//!   `ToolEnv` in the worktree's copy of its parent's folder; settled however it ended; a kept
//!   worktree's path and branch in the Agent result: `tack-runtime/src/agents/isolation.rs`,
//!   `agents/run.rs` (`run_subagent`)
//! - structured output (`--json-schema`, `initialize.jsonSchema`): the `StructuredOutput` tool
//!   (its input schema the user's, validated with `boon`; 5 invalid answers per turn), the
//!   Stop-seam reminder, `result.structured_output`:
//!   `tack-runtime/src/structured_output/{mod,schema}.rs`; end-turn tools in core: `tack-tool`
//!   `TurnEnd`, `Terminal::{Answered,StructuredOutputRetryExhausted}`

mod agents;
mod asks;
mod auth;
mod checkpoints;
pub mod claude_json;
mod client;
mod cloud;
mod config;
mod deferral;
mod emit;
mod event;
mod extensions;
mod gate;
mod handle;
mod hook_agent;
mod hook_services;
mod hook_watch;
mod hooks;
mod init_prompt;
mod inline_shell;
mod lsp_tools;
mod made_worktree;
mod main_agent;
mod mcp;
mod mentions;
mod metered;
mod model;
mod model_choices;
mod notifier;
mod options;
mod place;
mod plan_mode_tools;
mod plugin_details;
mod prompt_size;
pub mod protocol;
mod providers;
pub mod records;
mod rules;
mod runtime;
mod sandbox;
pub mod schedule;
pub mod serve;
mod session_tools;
mod skill_tool;
mod slash;
mod snapshot;
mod start;
mod structured_output;
mod task_hooks;
mod task_records;
pub mod teams;
mod telemetry;
mod transcript;
mod trust;
mod user_shell;
mod worktree_hooks;
mod worktree_place;
mod worktree_tools;

pub use auth::AuthError;
pub use checkpoints::RewindError;
pub use cloud::{CloudError, CloudPlatform, cloud_platform};
pub use config::{
    LoadedSettings, SettingsError, load_settings, load_settings_from, load_settings_trusting,
};
pub use event::{
    AgentSummary, ConversationReset, ExtensionsInfo, HookActivity, HookCallback, HookResponse,
    Notice, NoticeLevel, PermissionDenied, PermissionRequest, RuntimeEvent, SessionInfo,
    SubagentEvent, TaskEvent, TaskStatus, TaskUsage, TranscriptMirrorFrame, TurnEnd,
};
pub use handle::Answers;
pub use handle::{PendingReply, RuntimeHandle, SessionClosed};
pub use made_worktree::{KeptWorktree, MadeWorktree, MakeWorktreeError, Settled, make_worktree};
pub use mcp::McpError;
pub use model::{DEFAULT_MODEL, ModelAliases, resolve_model, session_model, session_model_name};
pub use model_choices::model_choices;
pub use notifier::Notifier;
pub use options::{
    ConversationOptions, ExtensionOptions, FrontEndOptions, PermissionOptions, RequestOptions,
    SdkToolPolicy, SessionChoice, SessionOptions,
};
pub use place::{Env, NoConfigDir, Place};
pub use plugin_details::plugin_components;
pub use protocol::ask::{AskAnswer, AskId, HookAnswer, PermissionAnswer, REJECTED};
pub use protocol::op::{McpControl, Op, OpId, ReceiptWanted, Submission, TurnOptions, UserInput};
pub use protocol::reply::{
    AnswerError, ConversationRewound, InterruptOutcome, InterruptReceipt, McpControlError,
    ModeError, Reply, RewindPoint, SessionState,
};
pub use providers::{BadOpenAiBaseUrl, ProviderSpec, provider_specs, route as route_model};
pub use runtime::{Runtime, RuntimeEvents};
pub use sandbox::{SandboxMode, sandbox_report};
pub use session_tools::UnknownTools;
pub use slash::slash_commands;
pub use snapshot::{
    AUTO_DECISIONS_KEPT, AutoDecider, AutoDecisionView, ClassifierUsage, ContextUsage, HookView,
    RuleView, SessionPlace, SessionSnapshot, context_tokens,
};
pub use start::auto::{auto_mode_config, auto_mode_critique};
pub use start::{StartError, start};
/// `tack auto-mode defaults|config`: the classifier's rules as JSON.
pub use tack_automode::{
    config_json as auto_mode_config_json, defaults_json as auto_mode_defaults_json,
};
pub use telemetry::lines_changed;
pub use trust::{Trust, TrustError, TrustStore, too_broad_to_trust};
pub use user_shell::{NoteError, SHELL_TIMEOUT, ShellRun, shell_output_shown};
pub use worktree_hooks::WorktreeHooks;

// The runtime is a front end's one API boundary: the types of the crates behind
// it that appear in its events, commands and views are re-exported here, so a
// front end depends on the runtime (and tack-protocol) alone.
pub use tack_core::LoopEvent;
pub use tack_core::compact::COMPACT_SUMMARY_PREFIX;
pub use tack_core::context::{MemoryFile, discover_memory_files, project_memory_file};
pub use tack_core::query::{AssistantMessageEvent, ToolResultsEvent};
pub use tack_core::session::{ModelUsage, SessionTotals};
pub use tack_extensions::custom_commands::{CommandScope, CustomCommand, CustomCommands};
pub use tack_extensions::plugins::{PluginDir, plugin_layers};
pub use tack_extensions::skills::Skills;
pub use tack_hooks::{CallbackHook, CallbackMatcher, OnFailure};
pub use tack_mcp::{SdkBridge, SdkHost};
pub use tack_protocol::extensions::{CommandSource, PluginFailure, PluginSummary, SlashCommand};
pub use tack_protocol::{PermissionMode, SessionSummary, TodoItem, TodoStatus};
pub use tack_store::{Rewound, SessionStore, is_valid_session_id, load_before, session_head};
pub use tack_tool::AgentIdentity;
pub use tack_tool::EnteredWorktree;
pub use tack_tool::client_files::{ClientFileSystem, ClientFiles};
pub use tack_tool::client_terminal::{
    ClientTerminal, ClientTerminals, TerminalCommand, TerminalEnd, TerminalRun,
};
pub use tack_tool::{Arrival, Arrivals, Delivery, Expecting};

pub use tack_sandbox::INIT_ARG as SANDBOX_INIT_ARG;
/// The sandbox's namespace init: `main` hands over to it when the first
/// argument is [`SANDBOX_INIT_ARG`] (the binary re-executes itself to
/// confine a Bash command), before anything else starts.
#[cfg(target_os = "linux")]
pub use tack_sandbox::init_main as sandbox_init_main;
