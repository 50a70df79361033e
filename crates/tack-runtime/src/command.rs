//! What a front end sends: [`Command`]s, through a [`RuntimeHandle`].

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tack_permissions::PermissionMode;
use tack_protocol::Message;
use tack_protocol::stream_json::ResultRecord;
use tack_store::Rewound;
use tokio::sync::{mpsc, oneshot};

use crate::checkpoints::RewindError;
use crate::custom_commands::{InlineShell, ShellOwner};
use crate::snapshot::SessionSnapshot;
use crate::user_shell::ShellRun;

/// A command to the runtime. Commands are handled in order; user messages
/// and compactions queue behind a running turn, the others act at once.
#[derive(Debug)]
pub enum Command {
    /// A user message: runs as its own turn once earlier ones have ended. A
    /// text starting with `/compact` is a manual compaction instead, one
    /// starting with a custom command's `/name` runs as that command (see
    /// [`crate::slash_commands`]), and an unknown `/name` ends with an error
    /// result and no request.
    Submit(UserInput),
    /// `/compact [instructions]`.
    Compact { instructions: Option<String> },
    /// Stop the running turn now: the model stream and every tool stop, open
    /// tool calls get an "interrupted" result, the turn ends with
    /// `error_during_execution`. Answered once the turn has ended.
    Interrupt(oneshot::Sender<InterruptOutcome>),
    /// From the next tool call on.
    SetPermissionMode(PermissionMode, oneshot::Sender<Result<(), String>>),
    /// From the next turn on; `None` restores the session's default model.
    SetModel(Option<String>),
    /// Each MCP server and its status now.
    McpStatus(oneshot::Sender<Vec<tack_protocol::stream_json::McpServerStatus>>),
    /// Change the session's MCP servers; answered once done (with
    /// `mcp_set_servers`' `{added, removed, errors}`, else `null`). The tool
    /// set follows from the next request on.
    McpControl(McpControl, oneshot::Sender<Result<Value, String>>),
    /// A user message appended to the conversation without a turn (the Agent
    /// SDKs' `shouldQuery: false`); queued in order with the turns.
    Append(UserInput),
    /// [`Command::Interrupt`] answered with a receipt (Claude Code's
    /// `interrupt_receipt_v1`): the queued messages that will still run and,
    /// with `cancel_queued`, the ones dropped instead. The receipt is sent
    /// before the interrupted turn's `TurnEnded` event.
    InterruptWithReceipt {
        cancel_queued: bool,
        reply: oneshot::Sender<InterruptReceipt>,
    },
    /// A user message with settings for its turn only (a custom slash
    /// command's `allowed-tools` and `model` frontmatter). Queued like
    /// [`Command::Submit`].
    SubmitWith(UserInput, TurnOptions),
    /// Stop a background shell or sub-agent by id (as TaskStop does),
    /// answered once it has stopped.
    StopTask {
        task_id: String,
        reply: oneshot::Sender<Result<(), tack_tools::StopError>>,
    },
    /// The session's state now ([`SessionSnapshot`]), answered at once.
    Snapshot(oneshot::Sender<SessionSnapshot>),
    /// The user's `!command`: queued like a user message, run in the shell
    /// in the session's directory (an interrupt stops it), its input and
    /// output appended to the conversation for the model's next turn;
    /// answered with what it did once it is in the conversation.
    RunShell {
        command: String,
        reply: oneshot::Sender<ShellRun>,
    },
    /// The user's `#note`: appended at once to the project's memory file
    /// (`CLAUDE.md`, or the shared memory file the project has); answered
    /// with that file, or why it could not be written.
    AddNote {
        note: String,
        reply: oneshot::Sender<Result<PathBuf, String>>,
    },
    /// Put every file changed since the user message `user_message_id` was
    /// sent back as it was then (files created since are deleted); with
    /// `dry_run`, only say what that would change. Needs file checkpointing
    /// (`SessionOptions::file_checkpointing`); answered at once, even while a
    /// turn runs.
    RewindFiles {
        user_message_id: String,
        dry_run: bool,
        reply: oneshot::Sender<Result<Rewound, RewindError>>,
    },
    /// The user's prompts still in the conversation, oldest first: what
    /// [`Command::RewindConversation`] (and, through each one's checkpoint,
    /// [`Command::RewindFiles`]) can go back to. Answered at once, as of
    /// the last time the session was idle.
    RewindPoints(oneshot::Sender<Vec<RewindPoint>>),
    /// Drop the prompt `user_message_id` (a [`RewindPoint::id`]) and
    /// everything after it from the conversation; the transcript continues
    /// from the record before it, so a resume shows the rewound
    /// conversation. Answered with the dropped prompt's text (for the input
    /// box) and the conversation left (to show); refused while a turn runs
    /// or work is queued.
    RewindConversation {
        user_message_id: String,
        reply: oneshot::Sender<Result<ConversationRewound, RewindError>>,
    },
    /// No further user message is coming (the Agent SDKs' `end_user_input`):
    /// once some work has been queued, the session ends by itself when that
    /// work has run and every background agent's end has woken (and run) its
    /// turn, though handles are still held to answer requests meanwhile. A
    /// turn's `TurnEnded` is held while a background agent's end is owed, and
    /// comes out when that end does (before the turn it wakes), as Claude
    /// Code holds a result in `-p`. `wait_ceiling` caps the wait for
    /// background agents (counted from the first moment only that wait is
    /// left); at the cap the session ends and the agents are stopped.
    EndInput { wait_ceiling: Option<Duration> },
}

/// A change to the session's MCP servers (the Agent SDKs' requests).
#[derive(Debug, Clone, PartialEq)]
pub enum McpControl {
    /// Connect the server again.
    Reconnect(String),
    /// Turn the server off (its tools go) or on again.
    Toggle { server: String, enabled: bool },
    /// Manage exactly these servers (an `mcpServers` object).
    SetServers(Value),
}

/// What [`Command::RewindConversation`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationRewound {
    /// The dropped prompt's text, as the user typed it.
    pub prompt: String,
    /// The conversation now, oldest first.
    pub messages: Vec<Message>,
}

/// A prompt of the conversation a rewind can go back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindPoint {
    /// The prompt's uuid in the session (its transcript record's).
    pub id: String,
    /// What the user typed.
    pub text: String,
    /// The id its turn's file checkpoint is kept under, for
    /// [`Command::RewindFiles`]; `None` when no checkpoint was kept for it
    /// (checkpointing off, or the turn ran before a resume).
    pub checkpoint: Option<String>,
}

/// Settings of one turn; the session's own apply again after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnOptions {
    /// Permission rules allowing tools for this turn (`Bash(git add:*)`).
    pub allowed_tools: Vec<String>,
    /// The model of this turn (alias or id).
    pub model: Option<String>,
    /// Whether the message's `` !`command` `` lines run before it is sent
    /// (a custom command's body).
    pub inline_shell: InlineShell,
    /// Whose body those lines are in (PreSkillShellCommand's input).
    pub shell_owner: Option<ShellOwner>,
}

/// A user message and the id the front end gave it, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct UserInput {
    pub message: Message,
    pub uuid: Option<String>,
    /// The stream-json line's `origin`, echoed on the turn's result.
    pub origin: Option<Value>,
    /// Delivered as written (the Agent SDKs' `verbatim_prompts`, sent as
    /// `client_composed`): no `@` mention is attached, no slash command runs.
    pub verbatim: bool,
}

impl UserInput {
    pub fn text(text: impl Into<String>) -> UserInput {
        UserInput {
            message: Message::user_text(text),
            uuid: None,
            origin: None,
            verbatim: false,
        }
    }

    /// What the turn's result echoes of this message.
    pub(crate) fn echo(&self) -> TurnEcho {
        TurnEcho {
            uuid: self.uuid.clone(),
            origin: self.origin.clone(),
        }
    }
}

/// The user line's `uuid` and `origin`, echoed on its turn's result.
#[derive(Debug, Clone, Default)]
pub(crate) struct TurnEcho {
    pub uuid: Option<String>,
    pub origin: Option<Value>,
}

impl TurnEcho {
    pub fn apply(self, record: &mut ResultRecord) {
        record.user_message_uuid = self.uuid;
        record.origin = self.origin;
    }
}

/// What an interrupt did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterruptOutcome {
    /// A turn was running; it has ended.
    Interrupted,
    /// Nothing was running.
    Idle,
}

/// What an interrupt did, and what is still queued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterruptReceipt {
    pub outcome: InterruptOutcome,
    /// `uuid`s of queued user messages that will still run, in order.
    pub still_queued: Vec<String>,
    /// `uuid`s of queued user messages dropped (`cancel_queued`).
    pub cancelled: Vec<String>,
}

/// The runtime stopped taking commands (it ended or its front end went away).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session has ended")]
pub struct SessionClosed;

/// Sends commands to a running session. Clone it freely; the session's input
/// is closed when the last handle is dropped (queued turns still run).
#[derive(Debug, Clone)]
pub struct RuntimeHandle {
    pub(crate) tx: mpsc::UnboundedSender<Command>,
}

impl RuntimeHandle {
    pub fn send(&self, command: Command) -> Result<(), SessionClosed> {
        self.tx.send(command).map_err(|_| SessionClosed)
    }

    pub fn submit(&self, input: UserInput) -> Result<(), SessionClosed> {
        self.send(Command::Submit(input))
    }

    /// Interrupts the running turn and waits until it has ended.
    pub async fn interrupt(&self) -> Result<InterruptOutcome, SessionClosed> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Interrupt(tx))?;
        rx.await.map_err(|_| SessionClosed)
    }

    /// Interrupts the running turn; the receipt comes before the turn's
    /// `TurnEnded` event (see [`Command::InterruptWithReceipt`]).
    pub fn interrupt_with_receipt(
        &self,
        cancel_queued: bool,
    ) -> Result<oneshot::Receiver<InterruptReceipt>, SessionClosed> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::InterruptWithReceipt {
            cancel_queued,
            reply,
        })?;
        Ok(rx)
    }

    /// Stops the background task `task_id`; `Ok(Err(_))`: there was none
    /// running by that id.
    pub async fn stop_task(
        &self,
        task_id: String,
    ) -> Result<Result<(), tack_tools::StopError>, SessionClosed> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::StopTask { task_id, reply })?;
        rx.await.map_err(|_| SessionClosed)
    }

    /// [`Command::McpControl`].
    pub async fn mcp_control(
        &self,
        control: McpControl,
    ) -> Result<Result<Value, String>, SessionClosed> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::McpControl(control, reply))?;
        rx.await.map_err(|_| SessionClosed)
    }

    /// [`Command::RewindFiles`].
    pub async fn rewind_files(
        &self,
        user_message_id: String,
        dry_run: bool,
    ) -> Result<Result<Rewound, RewindError>, SessionClosed> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::RewindFiles {
            user_message_id,
            dry_run,
            reply,
        })?;
        rx.await.map_err(|_| SessionClosed)
    }

    /// [`Command::RewindPoints`].
    pub async fn rewind_points(&self) -> Result<Vec<RewindPoint>, SessionClosed> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::RewindPoints(reply))?;
        rx.await.map_err(|_| SessionClosed)
    }

    /// [`Command::RewindConversation`].
    pub async fn rewind_conversation(
        &self,
        user_message_id: String,
    ) -> Result<Result<ConversationRewound, RewindError>, SessionClosed> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::RewindConversation {
            user_message_id,
            reply,
        })?;
        rx.await.map_err(|_| SessionClosed)
    }

    /// The session's state now.
    pub async fn snapshot(&self) -> Result<SessionSnapshot, SessionClosed> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Snapshot(tx))?;
        rx.await.map_err(|_| SessionClosed)
    }

    pub async fn set_permission_mode(
        &self,
        mode: PermissionMode,
    ) -> Result<Result<(), String>, SessionClosed> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::SetPermissionMode(mode, tx))?;
        rx.await.map_err(|_| SessionClosed)
    }
}
