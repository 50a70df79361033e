//! A fast local token estimate for budget decisions (about 4 bytes per token).
//!
//! Walks the request without serialising it: text is measured by length, JSON
//! values by a size estimate. For exact counts use
//! [`AnthropicClient::count_tokens`](crate::AnthropicClient::count_tokens).

use serde_json::Value;
use tack_protocol::{ContentBlock, Message, MessagesRequest, SystemPrompt, ToolResultContent};

/// What an image costs, whatever its size (a ~1.15 MP image is ~1,600 tokens).
pub const IMAGE_TOKENS: u64 = 1_600;
/// Role markers and separators per message.
const MESSAGE_OVERHEAD: u64 = 4;
/// Per block (type tags, ids).
const BLOCK_OVERHEAD: u64 = 2;

/// Estimated input tokens of the whole request: system, tools and messages.
pub fn estimate_request(request: &MessagesRequest) -> u64 {
    let system = match &request.system {
        Some(SystemPrompt::Text(text)) => bytes(text.len()),
        Some(SystemPrompt::Blocks(blocks)) => blocks.iter().map(|b| bytes(b.text.len())).sum(),
        None => 0,
    };
    let tools: u64 = request
        .tools
        .iter()
        .map(|t| {
            let description = t.description.as_ref().map_or(0, String::len);
            bytes(t.name.len() + description + json_len(&t.input_schema)) + BLOCK_OVERHEAD
        })
        .sum();
    system + tools + estimate_messages(&request.messages)
}

/// Estimated tokens of `messages`.
pub fn estimate_messages(messages: &[Message]) -> u64 {
    messages
        .iter()
        .map(|m| MESSAGE_OVERHEAD + m.content.iter().map(estimate_block).sum::<u64>())
        .sum()
}

/// Estimated tokens of one content block.
pub fn estimate_block(block: &ContentBlock) -> u64 {
    BLOCK_OVERHEAD
        + match block {
            ContentBlock::Text { text, .. } => bytes(text.len()),
            ContentBlock::Image { .. } => IMAGE_TOKENS,
            ContentBlock::ToolUse { name, input, .. } => bytes(name.len() + json_len(input)),
            ContentBlock::ToolResult { content, .. } => match content {
                Some(ToolResultContent::Text(text)) => bytes(text.len()),
                Some(ToolResultContent::Blocks(blocks)) => blocks.iter().map(estimate_block).sum(),
                None => 0,
            },
            ContentBlock::Thinking { thinking, .. } => bytes(thinking.len()),
            ContentBlock::RedactedThinking { data } => bytes(data.len()),
            ContentBlock::Unknown(u) => bytes(json_len(&u.0)),
        }
}

fn bytes(n: usize) -> u64 {
    (n as u64).div_ceil(4)
}

/// Approximate length of `value` as compact JSON (escapes not counted).
fn json_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_len(v) + 1).sum::<usize>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| k.len() + 4 + json_len(v))
                .sum::<usize>()
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use tack_protocol::{ImageSource, SystemBlock, ToolDefinition};

    use super::*;

    #[test]
    fn per_block_type() {
        let image = ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: "x".repeat(1 << 20),
            },
            cache_control: None,
        };
        let got: Vec<u64> = [
            ContentBlock::text("a".repeat(400)),
            image,
            ContentBlock::tool_use("t", "Read", json!({"file_path": "/a/b"})),
            ContentBlock::tool_result("t", "x".repeat(40), false),
            ContentBlock::Thinking {
                thinking: "y".repeat(8),
                signature: "s".repeat(500),
            },
        ]
        .iter()
        .map(estimate_block)
        .collect();
        // tool_use: "Read" (4) + {"file_path":"/a/b"} estimated as 2 + 9 + 4 + 6 = 21 → 25 bytes → 7.
        assert_eq!(got, vec![102, 1602, 9, 12, 4]);
    }

    #[test]
    fn request_adds_system_tools_and_messages() {
        let mut request =
            tack_protocol::MessagesRequest::new("m", 10, vec![Message::user_text("a".repeat(40))]);
        assert_eq!(estimate_request(&request), 4 + 2 + 10);
        request.system = Some(SystemPrompt::Blocks(vec![SystemBlock::text(
            "b".repeat(80),
        )]));
        request.tools = vec![ToolDefinition {
            name: "Read".into(),
            description: Some("d".repeat(36)),
            input_schema: json!({}),
            cache_control: None,
        }];
        assert_eq!(estimate_request(&request), 16 + 20 + (11 + 2));
    }
}
