//! Why the loop ended.

use tack_api::ApiError;

/// The loop's exit reason: the last `LoopEvent` of every `query()` stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Terminal {
    /// The model answered without a tool_use (and no recovery or hook continued).
    Completed,
    /// The cancellation token fired. Every tool_use already has a tool_result.
    Aborted,
    /// The prompt would not fit in the context window; a manual `/compact` may help.
    BlockingLimit,
    /// `max_turns` would be exceeded by the next model call.
    MaxTurns { turn_count: u32 },
    /// A Stop hook prevented the turn from continuing.
    StopHookPrevented,
    /// The API refused the prompt as too long and no recovery could shrink it.
    PromptTooLong(ApiError),
    /// The model request failed (after the client's retries).
    ModelError(ApiError),
}

impl Terminal {
    /// The reason as Claude Code names it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Terminal::Completed => "completed",
            Terminal::Aborted => "aborted",
            Terminal::BlockingLimit => "blocking_limit",
            Terminal::MaxTurns { .. } => "max_turns",
            Terminal::StopHookPrevented => "stop_hook_prevented",
            Terminal::PromptTooLong(_) => "prompt_too_long",
            Terminal::ModelError(_) => "model_error",
        }
    }
}
