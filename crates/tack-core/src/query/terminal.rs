//! Why the loop ended.

use serde_json::Value;
use tack_api::ApiError;

/// The loop's exit reason: the last `LoopEvent` of every `query()` stream.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Terminal {
    /// The model answered without a tool_use (and no recovery or hook continued).
    Completed,
    /// The cancellation token fired. Every tool_use already has a tool_result.
    Aborted,
    /// Autocompact is off and the prompt would not fit in the context window; a
    /// manual `/compact` may help ([`PROMPT_TOO_LONG_MESSAGE`]).
    BlockingLimit,
    /// `max_turns` would be exceeded by the next model call.
    MaxTurns { turn_count: u32 },
    /// A Stop hook prevented the turn from continuing.
    StopHookPrevented,
    /// A tool hook said `continue: false`: the turn ended after that call's
    /// results, without calling the model again.
    HookStopped,
    /// The API refused the prompt as too long and no recovery could shrink it
    /// (reactive compaction runs at most once per turn).
    PromptTooLong(ApiError),
    /// The model request failed (after the client's retries).
    ModelError(ApiError),
    /// An end-turn tool (`StructuredOutput`) gave the turn's answer: the turn
    /// ended after its result, without another model call. Claude Code's
    /// `completed`; the value is the result's `structured_output`.
    Answered(Value),
    /// The model's structured answers kept failing validation until the tool's
    /// retries were spent; the message says how many attempts.
    StructuredOutputRetryExhausted(String),
    /// A permission check deferred this call (a PreToolUse hook's `defer`):
    /// the turn ended before it ran, with no tool_result for any call of its
    /// message, so resuming the session runs them ([`crate::query`]).
    ToolDeferred(DeferredToolUse),
}

/// The call a [`Terminal::ToolDeferred`] left pending (the result record's
/// `deferred_tool_use`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DeferredToolUse {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// What the user is told when the context is full (blocking limit, or a
/// prompt-too-long error no recovery could fix).
pub const PROMPT_TOO_LONG_MESSAGE: &str =
    "Prompt is too long. Run /compact to summarise the conversation, or /clear to start over.";

impl Terminal {
    /// The error to show the user, if this is an error exit.
    pub fn error_message(&self) -> Option<String> {
        match self {
            Terminal::BlockingLimit => Some(PROMPT_TOO_LONG_MESSAGE.to_owned()),
            Terminal::PromptTooLong(e) => Some(format!("{PROMPT_TOO_LONG_MESSAGE} ({e})")),
            Terminal::ModelError(e) => Some(e.to_string()),
            Terminal::StructuredOutputRetryExhausted(message) => Some(message.clone()),
            Terminal::Completed
            | Terminal::Answered(_)
            | Terminal::Aborted
            | Terminal::MaxTurns { .. }
            | Terminal::StopHookPrevented
            | Terminal::HookStopped
            | Terminal::ToolDeferred(_) => None,
        }
    }

    /// The reason as Claude Code names it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Terminal::Completed | Terminal::Answered(_) => "completed",
            Terminal::Aborted => "aborted",
            Terminal::BlockingLimit => "blocking_limit",
            Terminal::MaxTurns { .. } => "max_turns",
            Terminal::StopHookPrevented => "stop_hook_prevented",
            Terminal::HookStopped => "hook_stopped",
            Terminal::PromptTooLong(_) => "prompt_too_long",
            Terminal::ModelError(_) => "api_error",
            Terminal::StructuredOutputRetryExhausted(_) => "structured_output_retry_exhausted",
            Terminal::ToolDeferred(_) => "tool_deferred",
        }
    }

    /// The `result` text of a turn the API refused, as Claude Code words it
    /// (its SDKs show this text as the turn's error).
    pub fn api_error_text(error: &ApiError, model: &str) -> String {
        match error {
            ApiError::NotFound { .. } => format!(
                "There's an issue with the selected model ({model}). It may not exist or you \
                 may not have access to it. Run --model to pick a different model."
            ),
            ApiError::Overloaded { .. }
            | ApiError::RateLimited { .. }
            | ApiError::Authentication { .. }
            | ApiError::Billing { .. }
            | ApiError::Permission { .. }
            | ApiError::InvalidRequest { .. }
            | ApiError::PromptTooLong { .. }
            | ApiError::RequestTooLarge { .. }
            | ApiError::Server { .. }
            | ApiError::Other { .. }
            | ApiError::Connection { .. }
            | ApiError::IdleTimeout(_)
            | ApiError::Protocol { .. }
            | ApiError::Cancelled => match error.status() {
                Some(status) => format!("API Error: {status} {error}"),
                None => format!("API Error: {error}"),
            },
        }
    }
}
