//! What a session looks like now, for a front end's `/cost`, `/context`,
//! `/status`, `/permissions` and `/hooks` ([`crate::Command::Snapshot`]).
//!
//! Answered at once, also while a turn runs: the conversation's figures are
//! then those of the last turn that ended (the running turn owns the
//! conversation until it ends).

use std::path::PathBuf;
use std::time::Duration;

use tack_core::compact::ContextLimits;
use tack_core::session::SessionTotals;
use tack_permissions::PermissionMode;
use tack_protocol::Usage;

/// A session's state as a front end shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SessionSnapshot {
    pub session_id: String,
    /// The model of the next turn.
    pub model: String,
    pub permission_mode: PermissionMode,
    /// Usage and cost so far (every model request of the session).
    pub totals: SessionTotals,
    /// Wall-clock time the session's turns took.
    pub turns_duration: Duration,
    pub context: ContextUsage,
    /// Messages in the conversation.
    pub messages: usize,
    /// Every permission rule in force, in precedence order of their sources.
    pub rules: Vec<RuleView>,
    /// A turn is running (the conversation figures are those before it).
    pub turn_running: bool,
    /// The command hooks the session runs (after trust and
    /// `disableAllHooks`), by event, then in configuration order.
    pub hooks: Vec<HookView>,
    /// The Bash sandbox's state, one line (`/sandbox`).
    pub sandbox: String,
    /// Auto mode's recent decisions, oldest first (at most
    /// [`AUTO_DECISIONS_KEPT`]): what `/permissions` explains.
    #[serde(default)]
    pub auto_decisions: Vec<AutoDecisionView>,
    /// Allow rules auto mode sets aside while it is on (interpreters and
    /// runners, `Bash`, `Bash(*)`; every shell rule under
    /// `autoMode.classifyAllShell`), as written.
    #[serde(default)]
    pub set_aside: Vec<String>,
    /// What auto mode's classifier has cost so far (also in `totals`, under
    /// its model); `None` before its first request.
    #[serde(default)]
    pub classifier: Option<ClassifierUsage>,
    /// Where the session works now (EnterWorktree moves it).
    pub place: SessionPlace,
}

/// Where a session works now: where it started, or the worktree
/// EnterWorktree moved it into (a statusLine command's `cwd`,
/// `workspace.current_dir` and `worktree`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SessionPlace {
    /// The session's folder.
    pub cwd: PathBuf,
    /// The worktree EnterWorktree moved the session into, while it is there.
    #[serde(default)]
    pub worktree: Option<tack_tool::EnteredWorktree>,
}

/// Auto mode's classifier requests of a session, apart from the agent's.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClassifierUsage {
    pub model: String,
    /// Classified calls, and the requests they took (a block takes two).
    pub calls: u32,
    pub requests: u32,
    pub usage: Usage,
    pub cost_usd: f64,
}

/// How many auto-mode decisions a session keeps for `/permissions`.
pub const AUTO_DECISIONS_KEPT: usize = 50;

/// What decided a call in auto mode.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum AutoDecider {
    /// A permission rule (`rule` as written) or a safety check.
    Rule { rule: String },
    /// A local fast path (read-only, an edit inside the working directories).
    FastPath,
    /// The classifier, at stage 1 (the short verdict) or 2 (the reasoned one).
    Classifier { stage: u8 },
    /// The classifier could not answer (error, garbled verdict).
    ClassifierFailed,
    /// A person, after the classifier blocked too often or could not answer.
    Person,
}

/// One auto-mode decision.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AutoDecisionView {
    pub tool_use_id: String,
    pub tool_name: String,
    /// The call in one line (a command, a path), shortened.
    pub summary: String,
    pub allowed: bool,
    pub decided_by: AutoDecider,
    /// Why, in the decider's words.
    pub reason: String,
    /// A rule that would allow a call like this one (for a block), best first.
    pub rule: Option<String>,
}

/// One command hook as a front end lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HookView {
    pub event: String,
    /// `None`: every target.
    pub matcher: Option<String>,
    pub command: String,
    pub is_async: bool,
}

/// How the context window is used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextUsage {
    /// The model's context window (`tack_api::model_limits`).
    pub window: u64,
    /// Tokens the last model request used ([`context_tokens`] of its usage);
    /// `None` before the first response of the session.
    pub used: Option<u64>,
    /// Estimates (about 4 bytes a token) of what the next request carries.
    pub system_prompt: u64,
    pub tools: u64,
    /// Memory files (CLAUDE.md, AGENTS.md) and the date.
    pub memory: u64,
    pub messages: u64,
    /// Autocompaction runs above this many tokens (`None` when it is off).
    pub autocompact_at: Option<u64>,
}

impl ContextUsage {
    /// What the window holds now: the last request's real count when there is
    /// one, else the estimate.
    pub fn current(&self) -> u64 {
        self.used
            .unwrap_or(self.system_prompt + self.tools + self.memory + self.messages)
    }
}

/// One permission rule.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RuleView {
    /// `allow`, `ask` or `deny`.
    pub behavior: String,
    /// As written (`Bash(git diff:*)`).
    pub rule: String,
    /// `userSettings`, `projectSettings`, `localSettings`, `cliArg`, `session`, ...
    pub source: String,
    pub file: Option<PathBuf>,
}

/// The tokens in the context window as of a response with `usage`: its whole
/// input (uncached, cache reads and writes) plus its output, which the next
/// request carries. What a status line shows as "context used".
pub fn context_tokens(usage: &Usage) -> u64 {
    usage.input_tokens
        + usage.cache_creation_input_tokens
        + usage.cache_read_input_tokens
        + usage.output_tokens
}

/// The conversation's figures as of the last time the session was idle (a
/// running turn owns the session): what a snapshot reports.
#[derive(Default)]
pub(crate) struct Figures {
    pub totals: SessionTotals,
    pub turns_duration: Duration,
    pub messages: usize,
    pub messages_tokens: u64,
    /// `context_tokens` of the last response; `None` before one, and after a
    /// compaction (the estimate is right then).
    pub last_context: Option<u64>,
    /// The window and where autocompaction fires (as the loop computes them).
    pub limits: Option<ContextLimits>,
    pub auto_compact: bool,
    /// The tool definitions' size (they change with MCP servers).
    pub tools_bytes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_the_whole_input_and_the_output() {
        let usage = Usage {
            input_tokens: 10,
            output_tokens: 200,
            cache_creation_input_tokens: 3_000,
            cache_read_input_tokens: 40_000,
            ..Usage::default()
        };
        assert_eq!(context_tokens(&usage), 43_210);
        let estimate = ContextUsage {
            window: 200_000,
            used: None,
            system_prompt: 3_000,
            tools: 10_000,
            memory: 500,
            messages: 12,
            autocompact_at: Some(167_000),
        };
        assert_eq!(estimate.current(), 13_512);
        let measured = ContextUsage {
            used: Some(43_210),
            ..estimate
        };
        assert_eq!(measured.current(), 43_210);
    }
}
