//! What the runtime emits: one ordered stream of [`RuntimeEvent`]s per session.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_core::LoopEvent;
use tack_permissions::PermissionMode;
use tack_protocol::extensions::{PluginFailure, PluginSummary, SlashCommand};
use tack_protocol::stream_json::ResultRecord;

use crate::protocol::ask::AskId;
use crate::protocol::op::OpId;
use crate::protocol::reply::{Reply, SessionState};

/// One event of a session, in order. Every message an event carries is in the
/// transcript before the event is emitted ("shown ⇒ on disk").
// `Loop` is the common case (every stream delta): it goes by value, the rare
// large others are boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeEvent {
    /// Something for the user that is not part of the conversation: start-up
    /// warnings, hook errors and `systemMessage`s, a failed `/compact`. Print
    /// mode writes them on stderr; a terminal UI shows them dimmed.
    Notice(Notice),
    /// The session is about to run its first turn (or its first command): the
    /// stream-json `system/init` record. Emitted once, after the first prompt is
    /// on disk.
    Started(Box<SessionInfo>),
    /// An event of the agent loop (already persisted if it carries a message).
    /// A manual `/compact` is reported as `LoopEvent::Compacted` too.
    Loop(LoopEvent),
    /// A turn ended; always after its loop events.
    TurnEnded(Box<TurnEnd>),
    /// A `Command::Compact` ended; `error` if it failed (the history is then
    /// unchanged). A `/compact` user message ends with `TurnEnded` instead,
    /// like any message (Claude Code's result after a local command).
    CompactEnded { error: Option<String> },
    /// A tool call needs the user's answer (only when the front end said it
    /// answers prompts: `PermissionOptions::prompts`): an ask,
    /// answered by `Op::Answer` with [`PermissionRequest::id`] and an
    /// `AskAnswer::Permission`.
    PermissionRequest(Box<PermissionRequest>),
    /// A hook registered by the front end's client
    /// (`ExtensionOptions::hook_callbacks`) fired: the front end calls it and
    /// answers with `Op::Answer` (`AskAnswer::Hook`). The runtime stops
    /// waiting at the hook's timeout or when the turn is interrupted
    /// ([`RuntimeEvent::AskWithdrawn`]): the front end then abandons the call.
    HookCallback(Box<HookCallback>),
    /// The runtime no longer waits for the answer to this ask (its turn was
    /// interrupted, its hook timed out): a front end drops its question.
    AskWithdrawn { id: AskId },
    /// The answer to the op the front end sent as `id`.
    Reply { id: OpId, reply: Box<Reply> },
    /// Input is closed and everything queued has run; SessionEnd hooks ran. The
    /// last event.
    Ended,
    /// An event of a sub-agent's loop (the Agent tool), already in the
    /// sub-agent's sidechain transcript if it carries a message. Raw stream
    /// deltas are not forwarded (stream-json shows none for sub-agents); a
    /// sub-agent that ends (not one stopped with its turn) ends with its loop's
    /// `Terminal`.
    Subagent(Box<SubagentEvent>),
    /// A command hook started or ended (stream-json's `hook_started` and
    /// `hook_response`): SessionStart's always, every event's with
    /// `SessionOptions::hook_events` (Claude Code's `--include-hook-events`).
    Hook(Box<HookActivity>),
    /// `/clear`: the conversation was dropped and the session goes on under a
    /// new id, in a new transcript. Emitted after SessionEnd (`clear`) and
    /// SessionStart (`clear`) hooks ran, before the command's result.
    ConversationReset(Box<ConversationReset>),
    /// `SessionOptions::session_mirror`: records just written to a transcript
    /// (the main one or a sub-agent's), for the SDKs' SessionStore
    /// (stream-json's `transcript_mirror` frame). Before the events they
    /// persist, so before the turn's result.
    TranscriptMirror(Box<TranscriptMirrorFrame>),
    /// A background agent started or finished (stream-json's
    /// `system/task_started` and `system/task_notification`: the SDKs keep
    /// stdin open while one runs, for the turn its end wakes).
    Task(Box<TaskEvent>),
    /// The session went `running` (work started) or `idle` (nothing queued
    /// and no background agent whose end is still owed a turn): stream-json's
    /// `system/session_state_changed`, which the SDKs read to know when the
    /// run is over.
    SessionState(SessionState),
    /// A tool call was refused without asking anyone (a deny rule, the mode,
    /// auto mode's classifier or its denial limit): stream-json's
    /// `system/permission_denied`. The model gets the message as the call's
    /// result.
    PermissionDenied(Box<PermissionDenied>),
    /// Input another front end attached to the same served session sent
    /// (`crate::serve`): a session in this process never emits it.
    Input(Box<crate::protocol::op::UserInput>),
    /// One of the session's teammates joined, changed state or left
    /// (stream-json's `system/teammate_state`, tack's own subtype).
    Teammate(Box<TeammateEvent>),
}

/// A teammate as the lead sees it ([`RuntimeEvent::Teammate`]): every event
/// carries the whole picture, so a front end needs no earlier one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeammateEvent {
    pub team_name: String,
    /// Its agent name (`alice`); its id is `<name>@<team_name>`.
    pub name: String,
    pub state: TeammateState,
    pub color: Option<String>,
    /// Its definition's name (`general-purpose`).
    pub agent_type: String,
    /// Where it runs: `in-process` or `tmux` (a background session of its
    /// own; config.json's `backendType`).
    pub backend_type: String,
}

/// What a teammate is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeammateState {
    /// It is a member now (before its first turn).
    Joined,
    Working,
    /// Its turn ended; it waits for messages.
    Idle,
    /// It will take no more turns (shut down, a hook's `continue: false`).
    Stopped,
    /// Its process is gone (a background teammate).
    Left,
}

impl TeammateState {
    pub fn as_str(self) -> &'static str {
        match self {
            TeammateState::Joined => "joined",
            TeammateState::Working => "working",
            TeammateState::Idle => "idle",
            TeammateState::Stopped => "stopped",
            TeammateState::Left => "left",
        }
    }
}

/// One refusal ([`RuntimeEvent::PermissionDenied`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionDenied {
    pub tool_name: String,
    pub tool_use_id: String,
    pub message: String,
    /// `rule`, `mode`, `classifier`, `hook`, `other` (Claude Code's names).
    pub reason_type: String,
    /// Refused only because nobody could be asked (print mode, no prompt
    /// tool, `--permission-prompts none`): a flag or a rule would allow it.
    #[serde(default)]
    pub nobody_to_ask: bool,
    /// The sub-agent that made the call.
    pub agent_id: Option<String>,
}

/// Records written to one transcript file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptMirrorFrame {
    pub file_path: PathBuf,
    /// The records as written, one JSON object per line.
    pub entries: Vec<Value>,
}

/// One command hook's start or end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookActivity {
    /// Shared by the start and the end of one run.
    pub hook_id: String,
    /// `PreToolUse:Bash`, `SessionStart:startup`, `Stop`.
    pub hook_name: String,
    /// `PreToolUse`, `SessionStart`, ...
    pub hook_event: String,
    /// `None`: it started. Its end otherwise.
    pub response: Option<HookResponse>,
}

/// How a command hook ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookResponse {
    pub stdout: String,
    pub stderr: String,
    /// `None` when it did not exit (timed out, killed, never started).
    pub exit_code: Option<i32>,
    /// `success`, `error` or `cancelled`.
    pub outcome: String,
}

/// What `/clear` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationReset {
    /// The id the session had.
    pub old_session_id: String,
    /// The id it has from now on (records, transcript, hooks).
    pub new_session_id: String,
    /// The id of the user message that was `/clear`, if it had one.
    pub user_message_uuid: Option<String>,
}

/// One loop event of a sub-agent, and which sub-agent it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentEvent {
    /// The Agent tool call that started it (stream-json's `parent_tool_use_id`).
    pub parent_tool_use_id: String,
    /// Its id (`a` + 8 base36 characters): its transcript is
    /// `subagents/agent-<id>.jsonl`, a background agent's task id.
    pub agent_id: String,
    /// Its definition's name (`subagent_type`).
    pub agent_type: String,
    pub event: LoopEvent,
}

/// A line for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

impl Notice {
    pub fn warning(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Warning,
            text: text.into(),
        }
    }

    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Info,
            text: text.into(),
        }
    }

    pub fn error(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Error,
            text: text.into(),
        }
    }
}

/// What a front end shows about the session (stream-json's `system/init`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub session_id: String,
    pub cwd: PathBuf,
    pub model: String,
    /// Tool names offered to the model, in order.
    pub tools: Vec<String>,
    pub permission_mode: PermissionMode,
    /// `ANTHROPIC_API_KEY`, `apiKeyHelper` or `none`.
    pub api_key_source: String,
    /// `firstParty`, `bedrock` or `vertex` (Claude Code's `apiProvider`).
    pub api_provider: String,
    /// The transcript, unless persistence is off.
    pub transcript_path: Option<PathBuf>,
    /// The session continues an earlier one.
    pub resumed: bool,
    /// Each MCP server and its status (`connected`, `failed`, ...).
    pub mcp_servers: Vec<tack_protocol::stream_json::McpServerStatus>,
    pub version: String,
    /// The session's sub-agents, commands, styles, skills and plugins.
    pub extensions: ExtensionsInfo,
}

/// What a session's extensions offer, as `system/init` lists it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExtensionsInfo {
    /// The sub-agent types the Agent tool offers (`system/init`'s `agents`).
    pub agents: Vec<AgentSummary>,
    /// The agent the main session runs as (`--agent`, the `agent` setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub main_agent: Option<String>,
    /// The slash commands a user message may start with: built-ins, then
    /// the session's custom commands.
    pub slash_commands: Vec<SlashCommand>,
    /// The active output style's name (`default` when unset).
    pub output_style: String,
    /// Every output style the session could pick.
    pub output_styles: Vec<String>,
    /// Every skill's name (`system/init`'s `skills`).
    pub skills: Vec<String>,
    /// The plugins loaded (`system/init`'s `plugins`).
    pub plugins: Vec<PluginSummary>,
    /// The plugins, or parts of them, that did not load (`plugin_errors`).
    pub plugin_errors: Vec<PluginFailure>,
}

/// One sub-agent type as front ends list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSummary {
    pub name: String,
    pub description: String,
    /// Its own model (an alias or id); `None`: the session's.
    pub model: Option<String>,
}

/// The end of one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnEnd {
    /// stream-json's `result` record (also the whole `--output-format json`).
    pub record: ResultRecord,
    /// The turn succeeded (subtype `success` and not an error).
    pub ok: bool,
    /// For a failed turn: the one line print mode writes on stderr.
    pub error_line: Option<String>,
}

/// A tool call the rules did not decide: the user (or the SDK's
/// `can_use_tool` callback) answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRequest {
    /// The ask's id: the answer carries it.
    pub id: AskId,
    pub tool_name: String,
    pub input: Value,
    pub tool_use_id: String,
    /// Why the engine asks.
    pub reason: String,
    /// Rules that would allow calls like this one ("don't ask again").
    pub suggestions: Vec<String>,
    /// A path outside the working directories that the call touches, if that
    /// is why it asks.
    pub blocked_path: Option<PathBuf>,
    /// The sub-agent whose tool call this is (`None`: the main session's).
    pub agent: Option<tack_tool::AgentIdentity>,
    /// For a file edit (Write, Edit, MultiEdit): the file as it is now, so a
    /// dialog can show the change as a diff without reading files itself.
    /// `None` for a new file, one over 1 MiB, or anything but a regular
    /// UTF-8 file.
    #[serde(default)]
    pub original: Option<String>,
    /// The answers this request offers, when the runtime decides them
    /// (ExitPlanMode: the mode to work in); empty: the front end's usual
    /// ones (allow, always allow, reject).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<tack_protocol::PermissionChoice>,
}

/// One call of a client's hook callback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookCallback {
    /// The ask's id: the answer carries it.
    pub id: AskId,
    /// The id the client registered it under (`hook_0`, ...).
    pub callback_id: String,
    /// The hook input, as a command hook reads it on stdin.
    pub input: Value,
    /// The tool call the event is about (PreToolUse, PostToolUse).
    pub tool_use_id: Option<String>,
}

impl From<Notice> for RuntimeEvent {
    fn from(notice: Notice) -> Self {
        RuntimeEvent::Notice(notice)
    }
}

/// One step of a sub-agent's life as a task: every Agent call is one, run in
/// the foreground (the call waits for it) or the background.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskEvent {
    Started {
        task_id: String,
        /// The Agent call that started it.
        tool_use_id: String,
        description: String,
        /// Its definition's name.
        subagent_type: String,
        /// What it was asked.
        prompt: String,
        /// Started with `run_in_background` (its call returned at once).
        background: bool,
    },
    Finished {
        task_id: String,
        tool_use_id: String,
        status: TaskStatus,
        summary: String,
        /// Where its final message is (what TaskOutput reads); a foreground
        /// agent's transcript.
        output_file: std::path::PathBuf,
        usage: TaskUsage,
        background: bool,
    },
}

/// How a background agent ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Completed,
    Failed,
    Stopped,
}

impl TaskStatus {
    /// As stream-json's `task_notification` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Stopped => "stopped",
        }
    }
}

/// What a finished task used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskUsage {
    /// Input, output and cache tokens of its model calls.
    pub total_tokens: u64,
    pub tool_uses: u32,
    pub duration_ms: u64,
}
