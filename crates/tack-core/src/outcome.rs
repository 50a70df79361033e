//! One tool call's result, as the executor makes it and the PostToolUse seam
//! ([`crate::permission::CanUseTool::post_tool_use`]) sees it. Its own module
//! so that `permission` does not import the executor that calls it.

use serde_json::Value;
use tack_protocol::{ContentBlock, ToolResultContent};
use tack_tool::{ToolOutput, TurnEnd};

/// The result of one tool call, ready to become a `tool_result` block.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallOutcome {
    pub tool_use_id: String,
    /// The tool's name (the name the model used if no tool matched).
    pub tool_name: String,
    pub content: ToolResultContent,
    pub is_error: bool,
    pub structured: Option<Value>,
    /// The tool opted out of the result budget (`Tool::max_result_chars` is `None`).
    pub budget_exempt: bool,
    /// A hook said `continue: false`: the turn ends after these results.
    pub stops_turn: bool,
    /// The tool ends the turn after these results (`ToolOutput::turn_end`).
    pub turn_end: Option<TurnEnd>,
    /// Texts that join the results' message after every tool result, each
    /// as a system reminder (`PostToolUseOutcome::attachments`).
    pub attachments: Vec<String>,
    /// The permission check deferred the call ([`crate::permission::PermissionDecision::Defer`]):
    /// the turn ends with it pending and this outcome is never sent.
    pub deferred: bool,
}

impl ToolCallOutcome {
    pub(crate) fn output(tool_use_id: &str, tool_name: &str, out: ToolOutput) -> Self {
        ToolCallOutcome {
            tool_use_id: tool_use_id.to_owned(),
            tool_name: tool_name.to_owned(),
            content: out.content,
            is_error: out.is_error,
            structured: out.structured,
            budget_exempt: false,
            stops_turn: false,
            turn_end: out.turn_end,
            attachments: Vec::new(),
            deferred: false,
        }
    }

    pub(crate) fn error(tool_use_id: &str, tool_name: &str, text: String) -> Self {
        ToolCallOutcome {
            tool_use_id: tool_use_id.to_owned(),
            tool_name: tool_name.to_owned(),
            content: ToolResultContent::Text(text),
            is_error: true,
            structured: None,
            budget_exempt: false,
            stops_turn: false,
            turn_end: None,
            attachments: Vec::new(),
            deferred: false,
        }
    }

    /// Appends `text` to the result (a text block of its own, or after a blank
    /// line of a text result).
    pub fn append_text(&mut self, text: &str) {
        match &mut self.content {
            ToolResultContent::Text(t) if t.is_empty() => t.push_str(text),
            ToolResultContent::Text(t) => {
                t.push_str("\n\n");
                t.push_str(text);
            }
            ToolResultContent::Blocks(blocks) => blocks.push(ContentBlock::text(text)),
        }
    }

    /// The `tool_result` block for the model.
    pub fn to_block(&self) -> ContentBlock {
        ContentBlock::tool_result(
            self.tool_use_id.clone(),
            self.content.clone(),
            self.is_error,
        )
    }
}
