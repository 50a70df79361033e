//! The front end's vocabulary: what the UI is told ([`UiEvent`]) and what it asks
//! for ([`UiAction`]).
//!
//! These types are the whole contract between the terminal UI and whatever drives
//! it. The session runtime's events are mapped onto [`UiEvent`]s and the UI's
//! [`UiAction`]s onto runtime commands, in a thin layer outside this crate; the UI
//! itself never persists, runs hooks or decides permissions.

use std::time::Duration;

use serde_json::Value;
use tack_protocol::PermissionMode;
use tack_protocol::SessionSummary;
use tack_protocol::TodoItem;

use crate::when::WallClock;

/// Something the UI should show. Events of one turn arrive in this order:
/// [`UiEvent::TurnStarted`], then for each model response any number of
/// `ThinkingDelta` / `TextDelta`, then `AssistantMessageDone`, then
/// `ToolUseStarted` / `ToolUseFinished` pairs (interleaved when tools run
/// concurrently), and finally one [`UiEvent::TurnResult`].
#[derive(Debug, Clone, PartialEq)]
pub enum UiEvent {
    /// Shown once at start: tack's version, the model, the directory (the
    /// UI shortens it with `~`).
    Welcome {
        version: String,
        model: String,
        cwd: String,
    },
    /// The runtime accepted a prompt and started a turn (the spinner starts).
    TurnStarted,
    /// A prompt of the user, as it is to be shown in the history. Sent when a
    /// resumed session is replayed; prompts typed here are shown on submit.
    UserPrompt(String),
    /// A piece of the assistant's answer (markdown).
    TextDelta(String),
    /// A piece of the assistant's extended thinking.
    ThinkingDelta(String),
    /// The response streamed so far is void (streaming fallback): drop it.
    StreamDiscarded,
    /// The current assistant message is complete: what is left of it goes to history.
    AssistantMessageDone,
    /// A tool call was made (its input is complete).
    ToolUseStarted {
        id: String,
        name: String,
        input: Value,
    },
    /// What a running tool reports (the last line of a command's output, a
    /// sub-agent's step); shown under the call until it finishes.
    ToolProgress { id: String, text: String },
    /// A tool call finished.
    ToolUseFinished {
        id: String,
        is_error: bool,
        /// The result as the model sees it (text).
        content: String,
    },
    /// The todo list was replaced (TodoWrite).
    Todos(Vec<TodoItem>),
    /// The runtime needs a decision about a tool call; answer with
    /// [`UiAction::AnswerPermission`] carrying the same `id`.
    PermissionRequest(PermissionRequest),
    /// The runtime no longer waits for the answer to request `id` (another
    /// terminal attached to the session answered it): its dialog closes.
    PermissionWithdrawn { id: String },
    /// The conversation was compacted into a summary.
    Compacted { pre_tokens: u64, summary: String },
    /// The turn ended.
    TurnResult(TurnSummary),
    /// Facts for the status line; each `Some` field replaces the shown value.
    Status(StatusPatch),
    /// The models `/model` offers, and the session's model (answer to
    /// `/model` without a name).
    Models {
        options: Vec<ModelOption>,
        current: String,
    },
    /// Past sessions of this project, for the `/resume` picker
    /// (answer to [`UiAction::ListSessions`]); their times are said from
    /// `clock` ("3 minutes ago").
    Sessions {
        sessions: Vec<SessionSummary>,
        clock: WallClock,
    },
    /// The plugins the added marketplaces offer, for the `/plugin` browser
    /// (answer to `/plugin` and to each `/plugin <verb> <id>` it runs).
    Plugins(Vec<tack_protocol::plugin_catalog::CatalogPlugin>),
    /// The prompts the conversation can be rewound to, oldest first, for the
    /// `/rewind` picker (answer to [`UiAction::ListRewindPoints`]).
    RewindPoints(Vec<RewindChoice>),
    /// The conversation was rewound: what history shows is dropped (the
    /// driver clears the terminal) and the events that follow show the
    /// conversation that is left.
    HistoryReset,
    /// Ask whether to trust the workspace (first start in a folder).
    TrustRequest { dir: String },
    /// A line of information, a warning or an error (retries, command output, ...).
    Notice { level: NoticeLevel, text: String },
    /// The runtime switched to `mode` (the answer to
    /// [`UiAction::SetPermissionMode`]).
    ModeSet(PermissionMode),
    /// The runtime refused `mode` for this session (auto mode turned off,
    /// bypass not allowed), saying why: Shift+Tab stops offering it, and if
    /// the UI was showing it, moves on to the next mode.
    ModeUnavailable {
        mode: PermissionMode,
        reason: String,
    },
    /// Auto mode's recent decisions, oldest first (`/permissions`): the
    /// decisions view opens, where a block can be turned into a rule.
    AutoDecisions(Vec<AutoDecision>),
    /// The answer to [`UiAction::AddAllowRule`]: the settings file `rule`
    /// was saved to, or why it was not added.
    RuleAdded {
        rule: String,
        saved: Result<String, String>,
    },
}

/// One decision of auto mode, as `/permissions` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoDecision {
    pub tool_name: String,
    /// The call in one line (a command, a path).
    pub summary: String,
    pub allowed: bool,
    pub decided_by: Decider,
    /// Why, in the decider's words.
    pub reason: String,
    /// A rule that would allow calls like this one (for a block).
    pub rule: Option<String>,
}

/// What decided a call in auto mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decider {
    /// A permission rule (as written) or a safety check.
    Rule(String),
    /// A local fast path (read-only, an edit inside the working directories).
    FastPath,
    /// The classifier, at stage 1 (the short verdict) or 2 (the reasoned one).
    Classifier { stage: u8 },
    /// The classifier could not answer.
    ClassifierFailed,
    /// The user, asked after the classifier blocked too often or failed.
    Person,
}

impl Decider {
    /// How `/permissions` names it.
    pub fn describe(&self) -> String {
        match self {
            Decider::Rule(rule) => format!("rule {rule}"),
            Decider::FastPath => "fast path".to_owned(),
            Decider::Classifier { stage } => format!("classifier, stage {stage}"),
            Decider::ClassifierFailed => "classifier unavailable".to_owned(),
            Decider::Person => "you".to_owned(),
        }
    }
}

/// A prompt of the conversation `/rewind` can go back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindChoice {
    /// Echoed back in [`UiAction::Rewind`].
    pub id: String,
    /// What the user typed.
    pub text: String,
    /// The files this prompt's turn changed (what its row says).
    pub files: Vec<String>,
    /// What restoring the code to this prompt would change; `None` when no
    /// checkpoint was kept for it (the code options are not offered).
    pub code: Option<CodeChanges>,
}

/// The files a code restore would change (a dry run's answer).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeChanges {
    pub files: Vec<String>,
    pub insertions: u64,
    pub deletions: u64,
}

/// What a rewind restores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    CodeAndConversation,
    Conversation,
    Code,
}

/// How a notice is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// A tool call waiting for the user's decision.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    /// Echoed back in [`UiAction::AnswerPermission`].
    pub id: String,
    pub tool_name: String,
    pub input: Value,
    /// Why the engine asks (`Decision::Ask::reason`).
    pub reason: String,
    /// Rules that would allow this call (`Decision::Ask::suggestions`, best first);
    /// the first is offered as "don't ask again".
    pub suggestions: Vec<String>,
    /// The current content of the file a Write would replace, for its diff
    /// (`None` when the file does not exist or the tool is not a Write).
    pub original: Option<String>,
    /// The answers the runtime offers for this request (a plan's approval:
    /// the mode to work in); empty: the dialog's usual ones.
    pub choices: Vec<tack_protocol::PermissionChoice>,
}

/// The user's answer to a [`PermissionRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// Run it this once.
    Allow,
    /// Run it, and add `rule` to the session's allow rules and to the project's
    /// local settings (`add_allow_rule_to_local_settings`), so it is not asked again.
    AllowAlways { rule: String },
    /// Do not run it; `feedback` (what to do instead) goes to the model with the denial.
    Deny { feedback: Option<String> },
}

/// The end of a turn, as the status line and history show it.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSummary {
    /// The turn was interrupted by the user.
    pub interrupted: bool,
    /// An error ended the turn (shown as an error notice).
    pub error: Option<String>,
    /// Cost of this turn in USD.
    pub cost_usd: f64,
    /// Cost of the session so far in USD.
    pub session_cost_usd: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub duration: Duration,
}

/// Changes to the status line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusPatch {
    pub model: Option<String>,
    /// Tokens in the context window now.
    pub context_used: Option<u64>,
    /// The model's context window.
    pub context_window: Option<u64>,
    pub session_cost_usd: Option<f64>,
    pub permission_mode: Option<PermissionMode>,
    /// `Some(None)` clears the branch (not a git repository).
    pub git_branch: Option<Option<String>>,
    /// The output of the `statusLine` command (replaces the built-in status line).
    pub custom_line: Option<Option<String>>,
    pub session_id: Option<String>,
}

/// What the user asked for. The driver maps each to a runtime command.
#[derive(Debug, Clone, PartialEq)]
pub enum UiAction {
    /// Send a prompt to the model (pasted text already expanded). Typed while a
    /// turn runs, a prompt is queued and this action is only emitted when that
    /// turn has ended.
    Submit(Prompt),
    /// `!command`: run it in the shell and put its output into the conversation.
    RunShell(String),
    /// `#note`: add a line to the project's memory file (CLAUDE.md / AGENTS.md).
    AddMemory(String),
    /// Stop the running turn (Esc, or Ctrl+C while a turn runs).
    Interrupt,
    /// Shift+Tab, or `/permissions` mode choice. Answered with
    /// [`UiEvent::ModeSet`] or [`UiEvent::ModeUnavailable`].
    SetPermissionMode(PermissionMode),
    /// `a` on a block in the decisions view: allow calls like it from now on
    /// (the session's allow rules and the project's local settings).
    /// Answered with [`UiEvent::RuleAdded`].
    AddAllowRule { rule: String },
    /// `/model NAME`.
    SetModel(String),
    /// `/compact [instructions]`.
    Compact { instructions: Option<String> },
    /// The answer to [`UiEvent::PermissionRequest`] `id`.
    AnswerPermission {
        id: String,
        answer: PermissionAnswer,
    },
    /// `/resume` was typed: reply with [`UiEvent::Sessions`].
    ListSessions,
    /// A session was picked in the resume picker.
    Resume { session_id: String },
    /// `/rewind`, or Esc twice on an empty prompt: reply with
    /// [`UiEvent::RewindPoints`].
    ListRewindPoints,
    /// A prompt and what to restore were picked in the rewind picker. A
    /// conversation restore is answered with [`UiEvent::HistoryReset`], the
    /// conversation left, and the prompt's text put back in the input.
    Rewind { id: String, restore: Restore },
    /// The answer to [`UiEvent::TrustRequest`]; `false` means exit.
    Trust(bool),
    /// A built-in slash command the driver answers (with notices): `/cost`,
    /// `/context`, `/status`, `/permissions`, `/hooks`, `/memory`, `/init`,
    /// `/config`, `/mcp`, `/agents`, `/model` without an argument.
    Command { name: String, args: String },
    /// Ctrl+G: suspend the UI, edit `text` in the external editor
    /// ([`crate::input::external_editor::edit_in_editor`]), then hand the result
    /// back with [`crate::App::set_input`].
    OpenExternalEditor { text: String },
    /// `/vim` turned vim mode on or off: saved as `editorMode` (`"vim"` or
    /// `"normal"`) in `~/.claude.json`, as Claude Code saves it.
    SetEditorMode { vim: bool },
    /// Leave tack.
    Exit,
    /// Left on an empty prompt while attached to a background session
    /// ([`crate::App::set_detachable`]): leave it running and go.
    Detach,
}

/// A prompt to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
}

impl Prompt {
    /// A plain typed prompt.
    pub fn text(text: impl Into<String>) -> Prompt {
        Prompt { text: text.into() }
    }
}

/// One row: what `/model` is given when it is picked, and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelOption {
    /// What the picker sends (`sonnet`, `opusplan`, …).
    pub alias: String,
    /// The model the alias names now (the environment's pins applied).
    pub model: String,
    pub description: String,
    /// USD per million input and output tokens.
    pub input_usd: f64,
    pub output_usd: f64,
}
