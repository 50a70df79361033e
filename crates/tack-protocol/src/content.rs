//! Messages and content blocks, as sent in requests and stored in transcripts.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One turn of the conversation.
///
/// `content` is always a list of blocks in memory: the API's string shorthand
/// (`"content": "hi"`) is read as one text block, so the rest of tack never has
/// to handle two shapes. It is written back as blocks, which the API treats the same.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

impl Message {
    pub fn user(content: Vec<ContentBlock>) -> Self {
        Message {
            role: Role::User,
            content,
        }
    }

    pub fn assistant(content: Vec<ContentBlock>) -> Self {
        Message {
            role: Role::Assistant,
            content,
        }
    }

    pub fn user_text(text: impl Into<String>) -> Self {
        Message::user(vec![ContentBlock::text(text)])
    }

    /// The `tool_use` blocks of this message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse {
                id, name, input, ..
            } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }

    /// Concatenated text of the text blocks (what a user would call "the answer").
    pub fn text(&self) -> String {
        join_texts(&self.content, "")
    }
}

/// The text of each text block of `blocks`, in order (other blocks skipped).
pub fn texts(blocks: &[ContentBlock]) -> impl Iterator<Item = &str> {
    blocks.iter().filter_map(|b| match b {
        ContentBlock::Text { text, .. } => Some(text.as_str()),
        _ => None,
    })
}

/// The [`texts`] of `blocks` joined by `separator`: the one join of a
/// message's or a tool result's text blocks.
pub fn join_texts(blocks: &[ContentBlock], separator: &str) -> String {
    texts(blocks).collect::<Vec<_>>().join(separator)
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Content {
            Text(String),
            Blocks(Vec<ContentBlock>),
        }
        #[derive(Deserialize)]
        struct Raw {
            role: Role,
            content: Content,
        }
        let raw = Raw::deserialize(d)?;
        let content = match raw.content {
            Content::Text(text) => vec![ContentBlock::text(text)],
            Content::Blocks(blocks) => blocks,
        };
        Ok(Message {
            role: raw.role,
            content,
        })
    }
}

/// `{"type": "ephemeral", "ttl": "5m" | "1h"}`: a prompt-cache breakpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheControl {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
}

impl CacheControl {
    pub fn ephemeral() -> Self {
        CacheControl {
            kind: "ephemeral".into(),
            ttl: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    Base64 { media_type: String, data: String },
    Url { url: String },
}

/// A content block. Unknown block types (new API features, and the server tool
/// blocks `server_tool_use` / `web_search_tool_result`, read through the views in
/// [`crate::server_tool`]) are kept verbatim in `Unknown` so they round-trip to
/// the API unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        citations: Option<Vec<Value>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Image {
        source: ImageSource,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<ToolResultContent>,
        #[serde(default, skip_serializing_if = "crate::serde_util::is_false")]
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    #[serde(untagged)]
    Unknown(UnknownBlock),
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            citations: None,
            cache_control: None,
        }
    }

    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ContentBlock::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
            cache_control: None,
        }
    }

    pub fn tool_result(
        tool_use_id: impl Into<String>,
        content: impl Into<ToolResultContent>,
        is_error: bool,
    ) -> Self {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: Some(content.into()),
            is_error,
            cache_control: None,
        }
    }

    /// The block's breakpoint, if it carries one.
    pub fn cache_control(&self) -> Option<&CacheControl> {
        match self {
            ContentBlock::Text { cache_control, .. }
            | ContentBlock::Image { cache_control, .. }
            | ContentBlock::ToolUse { cache_control, .. }
            | ContentBlock::ToolResult { cache_control, .. } => cache_control.as_ref(),
            ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Unknown(_) => None,
        }
    }

    /// The block's `cache_control` slot, for the types the API allows one on
    /// (not thinking blocks, not opaque unknown ones).
    pub fn cache_control_mut(&mut self) -> Option<&mut Option<CacheControl>> {
        match self {
            ContentBlock::Text { cache_control, .. }
            | ContentBlock::Image { cache_control, .. }
            | ContentBlock::ToolUse { cache_control, .. }
            | ContentBlock::ToolResult { cache_control, .. } => Some(cache_control),
            ContentBlock::Thinking { .. }
            | ContentBlock::RedactedThinking { .. }
            | ContentBlock::Unknown(_) => None,
        }
    }
}

const KNOWN_BLOCK_TYPES: &[&str] = &[
    "text",
    "image",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
];

/// A block of a type tack does not model, kept as its JSON object.
///
/// Deserialising refuses objects whose `type` is one tack knows: without that
/// guard a malformed `tool_use` would silently fall through to here and the tool
/// call would be lost instead of reported.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownBlock(pub Value);

impl Serialize for UnknownBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for UnknownBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        match value.get("type").and_then(Value::as_str) {
            Some(kind) if KNOWN_BLOCK_TYPES.contains(&kind) => Err(D::Error::custom(format!(
                "malformed `{kind}` content block: {value}"
            ))),
            Some(_) => Ok(UnknownBlock(value)),
            None => Err(D::Error::custom("content block without a `type`")),
        }
    }
}

/// `tool_result.content`: a string, or a list of blocks (text, image, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl ToolResultContent {
    /// The text of the result (text blocks joined), for hooks, logs and budgets.
    pub fn to_text(&self) -> String {
        match self {
            ToolResultContent::Text(text) => text.clone(),
            ToolResultContent::Blocks(blocks) => join_texts(blocks, "\n"),
        }
    }
}

impl From<String> for ToolResultContent {
    fn from(text: String) -> Self {
        ToolResultContent::Text(text)
    }
}

impl From<&str> for ToolResultContent {
    fn from(text: &str) -> Self {
        ToolResultContent::Text(text.to_owned())
    }
}

impl From<Vec<ContentBlock>> for ToolResultContent {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        ToolResultContent::Blocks(blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn text_blocks_are_joined_and_other_blocks_skipped() {
        let blocks = vec![
            ContentBlock::text("a"),
            ContentBlock::tool_use("t1", "Bash", Value::Null),
            ContentBlock::text("b"),
        ];
        let message = Message::assistant(blocks.clone());
        let result = ToolResultContent::Blocks(blocks.clone());
        assert_eq!(
            (
                texts(&blocks).collect::<Vec<_>>(),
                message.text(),
                result.to_text(),
                join_texts(&[], "\n"),
            ),
            (
                vec!["a", "b"],
                "ab".to_owned(),
                "a\nb".to_owned(),
                String::new()
            )
        );
    }
}
