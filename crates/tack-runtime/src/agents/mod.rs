//! Sub-agents: the Agent tool (Claude Code's `Task`) and the sessions it runs.
//!
//! # The model
//! A sub-agent is the runtime's machinery driven by a tool. An Agent call
//! ([`tool::AgentTool`]) picks a definition (tack-extensions' `agents`:
//! built-ins, `.claude/agents/*.md` and `~/.claude/agents/*.md` (and `.tack/`),
//! plugins', `--agents` JSON) and runs a core [`tack_core::session::Session`] of its own
//! ([`run`]) with
//! - a fresh context: the definition's prompt as the system prompt, plus the
//!   session's project context (memory files, date, git), no parent history;
//! - its own tool subset (the definition's `tools`, never the Agent tool
//!   unless named there; Explore's Bash refuses anything not read-only) and its
//!   own file-read records;
//! - the session's permission [`crate::gate::Gate`] (rules, PreToolUse and
//!   PostToolUse hooks, the front end's prompts apply to its tools);
//! - a sidechain transcript beside the session's
//!   (`<session-dir>/subagents/agent-<id>.jsonl`, `isSidechain: true`);
//! - SubagentStop hooks where the main loop has Stop hooks;
//! - cancellation: a child of the Agent call's token, so an interrupt of the
//!   turn reaches every running sub-agent at once.
//!
//! Its loop events go out as [`crate::RuntimeEvent::Subagent`] (stream-json
//! records with `parent_tool_use_id`), its model calls into the session's
//! [`tack_core::session::UsageLedger`] (cost, `modelUsage`, budget), and its
//! final text is the tool result. Several Agent calls in one message run
//! concurrently. With `run_in_background` the call returns an id at once and the
//! sub-agent runs as a task of the session's [`tack_tools::BackgroundTasks`]
//! (TaskOutput reads its result, TaskStop stops it); background agents stop
//! when the session ends.

mod isolation;
mod read_only;
mod run;
mod stop_hooks;
mod team_process;
mod tool;

use std::sync::{Arc, PoisonError, RwLock};

use tack_core::QueryConfig;
use tack_core::context::PromptContext;
use tack_core::deps::QueryDeps;
use tack_core::session::UsageLedger;
use tack_extensions::agents::Catalog;
use tack_store::RecordMeta;
use tack_tool::Tool;
use tack_tools::BackgroundTasks;
use tokio_util::sync::CancellationToken;

use crate::emit::Emitter;
use crate::gate::Gate;
use crate::hooks::SessionHooks;
use crate::model::RequestEnv;

pub(crate) use run::names_tool;
pub(crate) use tool::AgentTool;

/// The session's current model, shared with the Agent tool (`inherit`).
#[derive(Debug, Clone)]
pub(crate) struct ModelCell(Arc<RwLock<String>>);

impl ModelCell {
    pub(crate) fn new(model: String) -> ModelCell {
        ModelCell(Arc::new(RwLock::new(model)))
    }

    pub(crate) fn get(&self) -> String {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn set(&self, model: String) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = model;
    }
}

/// Everything a sub-agent is built from, shared by the session's Agent tool,
/// the Agent tools of sub-agents allowed to start sub-agents, and background
/// agents.
pub(crate) struct AgentsShared {
    pub catalog: Catalog,
    pub toolbox: Toolbox,
    pub gate: Arc<Gate>,
    pub hooks: Option<Arc<SessionHooks>>,
    pub emit: Emitter,
    /// The session's context: its user and system context go to sub-agents.
    pub context: Arc<PromptContext>,
    pub models: AgentModels,
    pub records: AgentRecords,
    pub lifetime: AgentLifetime,
    /// The settings' `worktree.baseRef`, for `isolation: worktree`.
    pub worktree_base: tack_config::WorktreeBase,
    /// The session's messaging when agent teams are on: an Agent call with
    /// `name` makes a teammate of its team.
    pub team: Option<Arc<crate::teams::session::Messaging>>,
    /// The session's Task tools' makings: a teammate gets its own, on the
    /// team's list.
    pub tasks: crate::task_hooks::SessionTasks,
    /// Where its teammates run (in-process, or a background session each).
    pub teammates: crate::teams::backend::Backend,
}

/// The tools a sub-agent picks from.
pub(crate) struct Toolbox {
    /// The session's tools, without the Agent tool or MCP's.
    pub tools: Vec<Arc<dyn Tool>>,
    /// The session's MCP servers: their tools as they are when a sub-agent
    /// starts, deferred behind its own ToolSearch when the session's would be.
    pub mcp: Option<tack_mcp::WeakMcpManager>,
    /// `ENABLE_TOOL_SEARCH`: whether a sub-agent's MCP tools are deferred.
    pub tool_search: Option<String>,
    /// Whether its built-ins are (for its model), as the main loop's.
    pub deferral: crate::deferral::DeferralRule,
}

/// What a sub-agent's requests are sent with, and where their usage counts.
pub(crate) struct AgentModels {
    pub deps: Arc<dyn QueryDeps>,
    pub ledger: UsageLedger,
    pub base_config: QueryConfig,
    pub request_env: RequestEnv,
    /// The session's model, as `set_model` leaves it.
    pub model: ModelCell,
    /// `ANTHROPIC_SMALL_FAST_MODEL`, else haiku.
    pub small_model: String,
}

/// Where a sub-agent's transcript is written and mirrored.
pub(crate) struct AgentRecords {
    /// Stamped on sidechain records; `None`: no transcripts
    /// (`--no-session-persistence`).
    pub record_meta: Option<RecordMeta>,
    /// `--session-mirror`: sub-agents' records are mirrored too.
    pub mirror: tack_store::Mirror,
    pub session_id: String,
}

/// Background agents: how they are tracked, stopped, and wake the session.
pub(crate) struct AgentLifetime {
    pub tasks: BackgroundTasks,
    /// Fires when the session's Agent tool is dropped (the session ended):
    /// background agents stop.
    pub session_over: CancellationToken,
    /// A background agent that ended on its own wakes the session with it
    /// (the runtime queues a turn telling the model).
    pub wake: tokio::sync::mpsc::UnboundedSender<Woken>,
    /// Background agents started whose [`Woken`] the session has not taken
    /// yet (it is not idle while one is owed).
    pub wake_owed: Arc<std::sync::atomic::AtomicUsize>,
}

/// A background agent that completed or failed: what the turn it wakes
/// tells the model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Woken {
    pub task_id: String,
    pub description: String,
    /// `completed`, `failed` (each wakes a turn) or `stopped`.
    pub status: &'static str,
    /// Its final message, or why it failed.
    pub result: String,
}

impl Woken {
    /// The user message of the turn it wakes (Claude Code's
    /// `<task-notification>`).
    pub(crate) fn message(&self) -> tack_protocol::Message {
        let text = format!(
            "<task-notification>\n<task-id>{}</task-id>\n<status>{}</status>\n<summary>Agent \"{}\" {}</summary>\n<result>{}</result>\n</task-notification>",
            self.task_id, self.status, self.description, self.status, self.result
        );
        tack_protocol::Message::user(vec![tack_protocol::ContentBlock::text(text)])
    }
}
