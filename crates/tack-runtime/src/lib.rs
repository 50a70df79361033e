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
//!    [`RuntimeHandle`] to send [`Command`]s (user messages, with
//!    [`TurnOptions`] for one turn if need be; messages appended without a
//!    turn, the user's `!command` and `#note`, interrupt, set permission
//!    mode, set model, compact, and a
//!    [`SessionSnapshot`] of the state for a front end's `/cost`, `/context`,
//!    `/status`) and reads [`RuntimeEvents`]. A user message that starts
//!    with `/compact`, `/skills`, a [custom command](custom_commands)'s or a
//!    user-invocable [skill](skills)'s `/name` is that command, whichever
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
//! ([`agents`]): a sub-agent is this machinery driven by a tool, its loop events
//! emitted as [`RuntimeEvent::Subagent`].

pub mod agents;
mod asks;
mod auth;
mod checkpoints;
mod client;
mod cloud;
mod config;
pub mod custom_commands;
mod emit;
mod event;
mod extensions;
pub use extensions::plugin_layers;
mod gate;
mod handle;
mod hook_services;
mod hook_watch;
mod hooks;
mod init_prompt;
mod mcp;
mod mentions;
mod metered;
mod model;
mod options;
pub mod output_styles;
mod place;
pub mod plugins;
mod prompt_size;
pub mod protocol;
mod providers;
pub mod records;
mod rules;
mod runtime;
mod sandbox;
pub mod serve;
mod session_tools;
pub mod skills;
mod slash;
mod snapshot;
mod start;
mod structured_output;
mod task_records;
mod telemetry;
mod transcript;
mod trust;
mod user_shell;

pub use auth::AuthError;
pub use checkpoints::RewindError;
pub use cloud::{CloudError, CloudPlatform, cloud_platform};
pub use config::{
    LoadedSettings, SettingsError, load_settings, load_settings_from, load_settings_trusting,
};
pub use event::{
    AgentSummary, ConversationReset, HookActivity, HookCallback, HookResponse, Notice, NoticeLevel,
    PermissionRequest, RuntimeEvent, SessionInfo, SubagentEvent, TaskEvent, TaskStatus, TaskUsage,
    TranscriptMirrorFrame, TurnEnd,
};
pub use handle::{PendingReply, RuntimeHandle, SessionClosed};
pub use mcp::McpError;
pub use model::{DEFAULT_MODEL, resolve_model, session_model};
pub use options::{PluginDir, SdkToolPolicy, SessionChoice, SessionOptions};
pub use place::{Env, NoConfigDir, Place};
pub use plugins::{SessionPlugins, session_plugins};
pub use protocol::ask::{AskAnswer, AskId, HookAnswer, PermissionAnswer, REJECTED};
pub use protocol::op::{McpControl, Op, OpId, ReceiptWanted, Submission, TurnOptions, UserInput};
pub use protocol::reply::{
    AnswerError, ConversationRewound, InterruptOutcome, InterruptReceipt, McpControlError,
    ModeError, Reply, RewindPoint, SessionState,
};
pub use providers::{ProviderSpec, provider_specs, route as route_model};
pub use runtime::{Answers, Runtime, RuntimeEvents};
pub use sandbox::{SandboxMode, sandbox_report};
pub use session_tools::UnknownTools;
pub use slash::slash_commands;
pub use snapshot::{ContextUsage, HookView, RuleView, SessionSnapshot, context_tokens};
pub use start::{StartError, start};
pub use trust::{Trust, TrustError, TrustStore, too_broad_to_trust};
pub use user_shell::{NoteError, SHELL_TIMEOUT, ShellRun, shell_output_shown};

// The runtime is a front end's one API boundary: the types of the crates behind
// it that appear in its events, commands and views are re-exported here, so a
// front end depends on the runtime (and tack-protocol) alone.
pub use tack_core::LoopEvent;
pub use tack_core::compact::COMPACT_SUMMARY_PREFIX;
pub use tack_core::context::{MemoryFile, discover_memory_files, project_memory_file};
pub use tack_core::query::{AssistantMessageEvent, ToolResultsEvent};
pub use tack_core::session::{ModelUsage, SessionTotals};
pub use tack_hooks::{CallbackHook, CallbackMatcher, OnFailure};
pub use tack_mcp::{SdkBridge, SdkHost};
pub use tack_protocol::extensions::{CommandSource, PluginFailure, PluginSummary, SlashCommand};
pub use tack_protocol::{PermissionMode, SessionSummary, TodoItem, TodoStatus};
pub use tack_store::{Rewound, SessionStore, is_valid_session_id};
pub use tack_tool::AgentIdentity;

pub use tack_sandbox::INIT_ARG as SANDBOX_INIT_ARG;
/// The sandbox's namespace init: `main` hands over to it when the first
/// argument is [`SANDBOX_INIT_ARG`] (the binary re-executes itself to
/// confine a Bash command), before anything else starts.
#[cfg(target_os = "linux")]
pub use tack_sandbox::init_main as sandbox_init_main;
