//! What the runtime answers to an op ([`Reply`]), and the session's states.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_protocol::Message;
use tack_protocol::stream_json::McpServerStatus;
use tack_store::Rewound;
use tack_tools::StopError;

use crate::checkpoints::RewindError;
use crate::snapshot::SessionSnapshot;
use crate::user_shell::{NoteError, ShellRun};

/// The answer to one op ([`crate::protocol::op::Op`]), in a
/// [`crate::event::RuntimeEvent::Reply`] with the op's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// `Interrupt` without a receipt: once the work has stopped.
    Interrupted(InterruptOutcome),
    /// `Interrupt` with a receipt: before the interrupted turn's `TurnEnded`.
    InterruptReceipt(InterruptReceipt),
    PermissionMode(Result<(), ModeError>),
    McpStatus(Vec<McpServerStatus>),
    /// `mcp_set_servers`' `{added, removed, errors}`, else `null`.
    McpControl(Result<Value, McpControlError>),
    TaskStopped(Result<(), StopError>),
    Snapshot(Box<SessionSnapshot>),
    Conversation(Vec<Message>),
    Shell(ShellRun),
    Note(Result<PathBuf, NoteError>),
    FilesRewound(Result<Rewound, RewindError>),
    RewindPoints(Vec<RewindPoint>),
    ConversationRewound(Result<ConversationRewound, RewindError>),
    Answered(Result<(), AnswerError>),
    /// `AddAllowRule`: the settings file the rule was saved to.
    RuleAdded(Result<PathBuf, String>),
}

/// What an interrupt did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptOutcome {
    /// A turn was running; it has ended.
    Interrupted,
    /// Nothing was running.
    Idle,
}

/// What an interrupt did, and what is still queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptReceipt {
    pub outcome: InterruptOutcome,
    /// `uuid`s of queued user messages that will still run, in order.
    pub still_queued: Vec<String>,
    /// `uuid`s of queued user messages dropped (`cancel_queued`).
    pub cancelled: Vec<String>,
}

/// Why the permission mode was not changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum ModeError {
    #[error(
        "bypassPermissions mode is not available in this session: start it with --dangerously-skip-permissions or --allow-dangerously-skip-permissions (and without permissions.disableBypassPermissionsMode)"
    )]
    BypassUnavailable,
    /// Auto mode is off for this session (`permissions.disableAutoMode`,
    /// or no model to classify with), saying why.
    #[error("auto mode is not available in this session: {0}")]
    AutoModeUnavailable(String),
}

impl ModeError {
    /// Claude Code's error code for the SDKs' `set_permission_mode`.
    pub fn code(&self) -> &'static str {
        match self {
            ModeError::BypassUnavailable => "bypass_permissions_unavailable",
            ModeError::AutoModeUnavailable(_) => "auto_mode_unavailable",
        }
    }
}

/// Why an MCP change was not made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum McpControlError {
    #[error("this session has no MCP servers")]
    NoServers,
    /// The server manager refused or failed it, saying why.
    #[error("{0}")]
    Failed(String),
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum AnswerError {
    /// Answered already, withdrawn, or never asked.
    #[error("nothing waits for an answer to {0}")]
    NotWaiting(crate::protocol::ask::AskId),
    /// A hook callback answered with a permission answer, or the reverse.
    #[error("{0} asked for another kind of answer")]
    WrongKind(crate::protocol::ask::AskId),
}

/// What a conversation rewind did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationRewound {
    /// The dropped prompt's text, as the user typed it.
    pub prompt: String,
    /// The conversation now, oldest first.
    pub messages: Vec<Message>,
}

/// A prompt of the conversation a rewind can go back to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewindPoint {
    /// The prompt's uuid in the session (its transcript record's).
    pub id: String,
    /// What the user typed.
    pub text: String,
    /// The id its turn's file checkpoint is kept under, for `RewindFiles`;
    /// `None` when no checkpoint was kept for it.
    pub checkpoint: Option<String>,
    /// The files its turn changed (its file tools' paths, as the model
    /// wrote them), in the order first changed.
    #[serde(default)]
    pub files: Vec<String>,
}

/// Whether the session is working (stream-json's
/// `system/session_state_changed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// Work started.
    Running,
    /// Nothing queued, and no background agent whose end is still owed a turn.
    Idle,
}

impl SessionState {
    /// As stream-json writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionState::Running => "running",
            SessionState::Idle => "idle",
        }
    }
}
