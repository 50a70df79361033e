//! What a front end sends: [`Op`]s, each in a [`Submission`].

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tack_protocol::Message;
use tack_protocol::PermissionMode;
use tack_protocol::stream_json::ResultRecord;

use crate::protocol::ask::{AskAnswer, AskId};
use tack_extensions::custom_commands::inline_shell::{InlineShell, ShellOwner};

/// The front end's name for one op; the op's [`crate::protocol::reply::Reply`]
/// (if it has one) carries it back. Front ends pick them; the runtime only
/// echoes them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OpId(pub String);

/// One op and the id its reply will carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    pub id: OpId,
    pub op: Op,
}

/// An operation on a session. Ops are handled in order; user messages and
/// compactions queue behind a running turn, the others act at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// A user message: runs as its own turn once earlier ones have ended. A
    /// text starting with `/compact`, `/clear` (`/reset`, `/new`), `/skills`
    /// or a custom command's or skill's `/name` is that command (see
    /// [`crate::slash`]); an unknown `/name` ends with an error result and no
    /// request.
    Submit(UserInput),
    /// A user message with settings for its turn only. Queued like
    /// [`Op::Submit`]; no slash command runs.
    SubmitWith {
        input: UserInput,
        options: TurnOptions,
    },
    /// A user message appended to the conversation without a turn (the Agent
    /// SDKs' `shouldQuery: false`); queued in order with the turns.
    Append(UserInput),
    /// `/compact [instructions]`; ends with `CompactEnded`.
    Compact { instructions: Option<String> },
    /// Stop the running turn now: the model stream and every tool stop, open
    /// tool calls get an "interrupted" result, the turn ends with
    /// `error_during_execution`. Replied to once the turn has ended
    /// ([`crate::protocol::reply::Reply::Interrupted`]), or, with `receipt`,
    /// with the queued messages that will still run and (`cancel_queued`)
    /// the ones dropped, before the interrupted turn's `TurnEnded`
    /// (Claude Code's `interrupt_receipt_v1`).
    Interrupt { receipt: Option<ReceiptWanted> },
    /// From the next tool call on.
    SetPermissionMode(PermissionMode),
    /// From the next turn on; `None` restores the session's default model.
    SetModel(Option<String>),
    /// Each MCP server and its status now.
    McpStatus,
    /// Change the session's MCP servers; replied to once done.
    McpControl(McpControl),
    /// Stop a background shell or sub-agent by id (as TaskStop does),
    /// replied to once it has stopped.
    StopTask { task_id: String },
    /// The session's state now, replied to at once.
    Snapshot,
    /// The conversation as of the last time the session was idle, oldest
    /// first: what a front end that attaches shows.
    Conversation,
    /// The user's `!command`: queued like a user message, run in the shell in
    /// the session's directory (an interrupt stops it), its input and output
    /// appended to the conversation for the model's next turn; replied to
    /// once it is in the conversation.
    RunShell { command: String },
    /// The user's `#note`: appended at once to the project's memory file;
    /// replied to with that file, or why it could not be written.
    AddNote { note: String },
    /// Put every file changed since the user message `user_message_id` was
    /// sent back as it was then; with `dry_run`, only say what that would
    /// change. Needs file checkpointing; replied to at once, even mid-turn.
    RewindFiles {
        user_message_id: String,
        dry_run: bool,
    },
    /// The user's prompts still in the conversation, oldest first, as of the
    /// last time the session was idle.
    RewindPoints,
    /// Drop the prompt `user_message_id` and everything after it from the
    /// conversation (the transcript continues from the record before it);
    /// refused while a turn runs or work is queued.
    RewindConversation { user_message_id: String },
    /// No further user message is coming (the Agent SDKs' `end_user_input`):
    /// once some work has been queued, the session ends by itself when that
    /// work has run and every background agent's end has woken (and run) its
    /// turn. A turn's `TurnEnded` is held while a background agent's end is
    /// owed. `wait_ceiling` caps the wait for background agents; at the cap
    /// the session ends and the agents are stopped.
    EndInput { wait_ceiling: Option<Duration> },
    /// Allow calls like a blocked one from now on: `rule` (as written,
    /// `Bash(npm install:*)`) joins the session's allow rules and the
    /// project's local settings file. Replied to with the file it was saved
    /// to, or why it was not added.
    AddAllowRule { rule: String },
    /// The answer to the ask `ask` (a permission request, a hook callback).
    /// Replied to with whether it was still waiting.
    Answer { ask: AskId, answer: AskAnswer },
}

/// [`Op::Interrupt`] answered with a receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptWanted {
    /// Drop the queued user messages too.
    pub cancel_queued: bool,
}

/// A change to the session's MCP servers (the Agent SDKs' requests).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpControl {
    /// Connect the server again.
    Reconnect(String),
    /// Turn the server off (its tools go) or on again.
    Toggle { server: String, enabled: bool },
    /// Manage exactly these servers (an `mcpServers` object).
    SetServers(Value),
}

/// Settings of one turn; the session's own apply again after it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnOptions {
    /// Permission rules allowing tools for this turn (`Bash(git add:*)`).
    pub allowed_tools: Vec<String>,
    /// The model of this turn (alias or id).
    pub model: Option<String>,
    /// Whether the message's `` !`command` `` lines run before it is sent (a
    /// custom command's body). The runtime's own: never taken from a front
    /// end.
    #[serde(skip)]
    pub inline_shell: InlineShell,
    /// Whose body those lines are in (PreSkillShellCommand's input).
    #[serde(skip)]
    pub shell_owner: Option<ShellOwner>,
}

/// A user message and the id the front end gave it, if any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserInput {
    pub message: Message,
    #[serde(default)]
    pub uuid: Option<String>,
    /// The stream-json line's `origin`, echoed on the turn's result.
    #[serde(default)]
    pub origin: Option<Value>,
    /// Delivered as written (the Agent SDKs' `verbatim_prompts`, sent as
    /// `client_composed`): no `@` mention is attached, no slash command runs.
    #[serde(default)]
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
