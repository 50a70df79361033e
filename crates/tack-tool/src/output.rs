use serde_json::Value;
use tack_protocol::{ContentBlock, ToolResultContent};

/// What a tool returns for the model, plus an optional structured form kept for
/// transcripts and SDK consumers (`toolUseResult` in Claude Code's records).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: ToolResultContent,
    /// A result that reports failure to the model without being a tool error
    /// (e.g. a command that exited non-zero).
    pub is_error: bool,
    pub structured: Option<Value>,
    /// The call ends the turn after this message's tool results, without
    /// another model call (Claude Code's end-turn tools: `StructuredOutput`).
    pub turn_end: Option<TurnEnd>,
}

/// How a tool call ends the turn; see [`ToolOutput::turn_end`].
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The turn's answer: it becomes the `result` record's `structured_output`.
    Answer(Value),
    /// The tool gave up on getting a valid answer (its retries are spent): the
    /// turn ends as an error with this message.
    RetriesExhausted(String),
    /// The turn ends once the results are in, as an answered one does (no
    /// further request): ScheduleWakeup, which Claude Code ends the turn on.
    Stop,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: ToolResultContent::Text(text.into()),
            is_error: false,
            structured: None,
            turn_end: None,
        }
    }

    pub fn blocks(blocks: Vec<ContentBlock>) -> Self {
        ToolOutput {
            content: ToolResultContent::Blocks(blocks),
            is_error: false,
            structured: None,
            turn_end: None,
        }
    }

    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }

    pub fn with_turn_end(mut self, turn_end: TurnEnd) -> Self {
        self.turn_end = Some(turn_end);
        self
    }

    pub fn with_error(mut self, is_error: bool) -> Self {
        self.is_error = is_error;
        self
    }
}

/// A failure the model should read: bad input, failed precondition, I/O error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub message: String,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The tool_result text Claude Code sends for a failed call.
    pub fn to_tool_result_text(&self) -> String {
        format!("<tool_use_error>{}</tool_use_error>", self.message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        ToolError::new(e.to_string())
    }
}

pub type ToolResult = Result<ToolOutput, ToolError>;
