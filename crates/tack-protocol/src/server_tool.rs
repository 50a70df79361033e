//! Server tools: tools the API runs itself (`web_search`, `web_fetch`,
//! `code_execution`) and reports in the assistant's content as a
//! `server_tool_use` block followed by a result block (`web_search_tool_result`).
//!
//! These blocks are kept as [`UnknownBlock`]s, the JSON exactly as received: the
//! API requires them back verbatim in later requests, and new fields (`caller`,
//! `encrypted_content`, ...) must survive transcripts and resumes untouched. They
//! are never `ContentBlock::ToolUse`, so the loop never runs them as client tools.
//! The typed views here read them without changing what is stored.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::content::{ContentBlock, UnknownBlock};

/// A `server_tool_use` block, borrowed from its JSON.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerToolCall<'a> {
    pub id: &'a str,
    /// `web_search`, `web_fetch`, `code_execution`, ...
    pub name: &'a str,
    pub input: &'a Value,
}

/// A `web_search_tool_result` block, read from its JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSearchToolResult {
    /// The `id` of the `server_tool_use` block it answers.
    pub tool_use_id: String,
    pub content: WebSearchOutcome,
}

/// What one search produced: its hits, or why it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum WebSearchOutcome {
    Results(Vec<WebSearchHit>),
    Error(WebSearchError),
}

/// One `web_search_result`: a page the search found. The page text itself is
/// only in `encrypted_content`, readable by the model alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSearchHit {
    pub url: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_age: Option<String>,
}

/// `{"type": "web_search_tool_result_error", "error_code": ...}`: `too_many_requests`,
/// `invalid_input`, `max_uses_exceeded`, `query_too_long`, `unavailable`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSearchError {
    pub error_code: String,
}

impl ContentBlock {
    /// A `server_tool_use` block (as the API sends it).
    pub fn server_tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ContentBlock::Unknown(UnknownBlock(json!({
            "type": "server_tool_use",
            "id": id.into(),
            "name": name.into(),
            "input": input,
        })))
    }

    /// A `web_search_tool_result` block; `content` is the list of
    /// `web_search_result` objects or the error object, as the API sends it.
    pub fn web_search_tool_result(tool_use_id: impl Into<String>, content: Value) -> Self {
        ContentBlock::Unknown(UnknownBlock(json!({
            "type": "web_search_tool_result",
            "tool_use_id": tool_use_id.into(),
            "content": content,
        })))
    }

    /// The block's wire `type` (`"text"`, `"tool_use"`, `"server_tool_use"`, ...).
    pub fn type_name(&self) -> &str {
        match self {
            ContentBlock::Text { .. } => "text",
            ContentBlock::Image { .. } => "image",
            ContentBlock::ToolUse { .. } => "tool_use",
            ContentBlock::ToolResult { .. } => "tool_result",
            ContentBlock::Thinking { .. } => "thinking",
            ContentBlock::RedactedThinking { .. } => "redacted_thinking",
            ContentBlock::Unknown(u) => u.0.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// This block as a server tool call, if it is a well-formed `server_tool_use`.
    pub fn as_server_tool_call(&self) -> Option<ServerToolCall<'_>> {
        let ContentBlock::Unknown(UnknownBlock(value)) = self else {
            return None;
        };
        if value.get("type").and_then(Value::as_str) != Some("server_tool_use") {
            return None;
        }
        Some(ServerToolCall {
            id: value.get("id")?.as_str()?,
            name: value.get("name")?.as_str()?,
            input: value.get("input")?,
        })
    }

    /// This block as a web search result, if it is a well-formed
    /// `web_search_tool_result`.
    pub fn as_web_search_result(&self) -> Option<WebSearchToolResult> {
        let ContentBlock::Unknown(UnknownBlock(value)) = self else {
            return None;
        };
        if value.get("type").and_then(Value::as_str) != Some("web_search_tool_result") {
            return None;
        }
        WebSearchToolResult::deserialize(value).ok()
    }
}
