//! What the runtime emits: one ordered stream of [`RuntimeEvent`]s per session.

use std::path::PathBuf;

use serde_json::Value;
use tack_core::LoopEvent;
use tack_permissions::PermissionMode;
use tack_protocol::control::{
    PermissionBehavior, PermissionDestination, PermissionRuleValue, PermissionUpdate, RulesUpdate,
};
use tack_protocol::stream_json::ResultRecord;
use tokio::sync::oneshot;

/// One event of a session, in order. Every message an event carries is in the
/// transcript before the event is emitted ("shown ⇒ on disk").
// `Loop` is the common case (every stream delta): it goes by value, the rare
// large others are boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
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
    /// answers prompts: `SessionOptions::permission_prompts`). Answer through
    /// [`PermissionRequest::reply`]; dropping it denies the call.
    PermissionRequest(Box<PermissionRequest>),
    /// A hook registered by the front end's client
    /// (`SessionOptions::hook_callbacks`) fired: the front end calls it and
    /// answers through [`HookCallback::reply`]. The runtime stops waiting at the
    /// hook's timeout or when the turn is interrupted, dropping the receiver
    /// (`reply.closed()` resolves): the front end then abandons the call.
    HookCallback(Box<HookCallback>),
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
    SessionState(&'static str),
}

/// Records written to one transcript file.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptMirrorFrame {
    pub file_path: PathBuf,
    /// The records as written, one JSON object per line.
    pub entries: Vec<Value>,
}

/// One command hook's start or end.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookResponse {
    pub stdout: String,
    pub stderr: String,
    /// `None` when it did not exit (timed out, killed, never started).
    pub exit_code: Option<i32>,
    /// `success`, `error` or `cancelled`.
    pub outcome: String,
}

/// What `/clear` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationReset {
    /// The id the session had.
    pub old_session_id: String,
    /// The id it has from now on (records, transcript, hooks).
    pub new_session_id: String,
    /// The id of the user message that was `/clear`, if it had one.
    pub user_message_uuid: Option<String>,
}

/// One loop event of a sub-agent, and which sub-agent it belongs to.
#[derive(Debug)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq)]
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
    pub api_provider: &'static str,
    /// The transcript, unless persistence is off.
    pub transcript_path: Option<PathBuf>,
    /// The session continues an earlier one.
    pub resumed: bool,
    /// Each MCP server and its status (`connected`, `failed`, ...).
    pub mcp_servers: Vec<tack_protocol::stream_json::McpServerStatus>,
    pub version: String,
    /// The sub-agent types the Agent tool offers (`system/init`'s `agents`).
    pub agents: Vec<AgentSummary>,
    /// The slash commands a user message may start with: built-ins, then
    /// the session's custom commands.
    pub slash_commands: Vec<crate::SlashCommand>,
    /// The active output style's name (`default` when unset).
    pub output_style: String,
    /// Every output style the session could pick.
    pub output_styles: Vec<String>,
    /// Every skill's name (`system/init`'s `skills`).
    pub skills: Vec<String>,
    /// The plugins loaded (`system/init`'s `plugins`).
    pub plugins: Vec<PluginSummary>,
    /// The plugins, or parts of them, that did not load (`plugin_errors`).
    pub plugin_errors: Vec<crate::PluginFailure>,
}

/// One loaded plugin as front ends list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginSummary {
    pub name: String,
    pub path: PathBuf,
    /// `name@marketplace`, `name@inline` for a `--plugin-dir` one.
    pub source: String,
    /// The manifest's `version`, as written.
    pub version: Option<String>,
}

/// One sub-agent type as front ends list it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSummary {
    pub name: String,
    pub description: String,
    /// Its own model (an alias or id); `None`: the session's.
    pub model: Option<String>,
}

/// The end of one turn.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug)]
pub struct PermissionRequest {
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
    pub reply: oneshot::Sender<PermissionAnswer>,
}

/// One call of a client's hook callback.
#[derive(Debug)]
pub struct HookCallback {
    /// The id the client registered it under (`hook_0`, ...).
    pub callback_id: String,
    /// The hook input, as a command hook reads it on stdin.
    pub input: Value,
    /// The tool call the event is about (PreToolUse, PostToolUse).
    pub tool_use_id: Option<String>,
    /// The callback's JSON answer (read like a command hook's JSON stdout), or
    /// why there is none (the client failed, answered something malformed, or
    /// is gone). Dropping it is a failure too.
    pub reply: oneshot::Sender<Result<Value, String>>,
}

/// The start of what the model reads when the user rejects a tool call
/// ([`PermissionAnswer::reject`]); a front end may show it shorter.
pub const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).";

/// The answer to a [`PermissionRequest`].
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionAnswer {
    /// Run the call (with this input instead, if given). `updates` are applied
    /// first: `addRules` to the session's rules (and, for allow rules with a
    /// settings destination, to that settings file: "don't ask again"),
    /// `setMode` to the session's mode. Other update types are reported and
    /// skipped.
    Allow {
        updated_input: Option<Value>,
        updates: Vec<PermissionUpdate>,
    },
    /// Do not run it; `message` goes to the model. `interrupt` also stops the
    /// turn.
    Deny { message: String, interrupt: bool },
}

impl PermissionAnswer {
    /// Allow this call only.
    pub fn allow() -> PermissionAnswer {
        PermissionAnswer::Allow {
            updated_input: None,
            updates: Vec::new(),
        }
    }

    /// The user said no (the terminal UI's "No, and tell tack what to do
    /// differently"). Without feedback the turn stops and waits for the user;
    /// with it, the model reads the feedback and carries on. The messages are
    /// the ones models know from Claude Code.
    pub fn reject(feedback: Option<&str>) -> PermissionAnswer {
        match feedback.map(str::trim).filter(|f| !f.is_empty()) {
            Some(feedback) => PermissionAnswer::Deny {
                message: format!(
                    "{REJECTED} To tell you how to proceed, the user said:\n{feedback}"
                ),
                interrupt: false,
            },
            None => PermissionAnswer::Deny {
                message: format!(
                    "{REJECTED} STOP what you are doing and wait for the user to tell you how to proceed."
                ),
                interrupt: true,
            },
        }
    }

    /// Allow this call, and calls matching `rule` from now on, remembered in
    /// the project's `.claude/settings.local.json` (the terminal UI's "Yes,
    /// and don't ask again").
    pub fn allow_always(rule: &str) -> PermissionAnswer {
        let (tool_name, rule_content) = match rule.split_once('(') {
            Some((tool, rest)) => (tool.to_owned(), rest.strip_suffix(')').map(str::to_owned)),
            None => (rule.to_owned(), None),
        };
        PermissionAnswer::Allow {
            updated_input: None,
            updates: vec![PermissionUpdate::AddRules(RulesUpdate {
                rules: vec![PermissionRuleValue {
                    tool_name,
                    rule_content,
                }],
                behavior: PermissionBehavior::Allow,
                destination: PermissionDestination::LocalSettings,
            })],
        }
    }
}

impl From<Notice> for RuntimeEvent {
    fn from(notice: Notice) -> Self {
        RuntimeEvent::Notice(notice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_rejection_stops_the_turn_unless_it_says_what_to_do() {
        let stop = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
        assert_eq!(
            PermissionAnswer::reject(None),
            PermissionAnswer::Deny {
                message: stop.into(),
                interrupt: true
            }
        );
        assert_eq!(
            PermissionAnswer::reject(Some("  ")),
            PermissionAnswer::reject(None)
        );
        assert_eq!(
            PermissionAnswer::reject(Some("use printf instead")),
            PermissionAnswer::Deny {
                message: "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse printf instead".into(),
                interrupt: false
            }
        );
    }
}

/// One step of a sub-agent's life as a task: every Agent call is one, run in
/// the foreground (the call waits for it) or the background.
#[derive(Debug, Clone, PartialEq)]
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
        /// `completed`, `failed` or `stopped`.
        status: &'static str,
        summary: String,
        /// Where its final message is (what TaskOutput reads); a foreground
        /// agent's transcript.
        output_file: std::path::PathBuf,
        usage: TaskUsage,
        background: bool,
    },
}

/// What a finished task used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskUsage {
    /// Input, output and cache tokens of its model calls.
    pub total_tokens: u64,
    pub tool_uses: u32,
    pub duration_ms: u64,
}
