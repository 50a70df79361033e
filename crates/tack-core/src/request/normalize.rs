//! `normalizeMessagesForAPI`: the loop's messages made into what the API accepts.
//!
//! UI-only records (progress, tombstones, status lines) are not `Message`s in
//! tack: the loop keeps them as events and never puts them in the conversation,
//! so there is nothing to strip here.

use tack_protocol::{ContentBlock, Message, Role, ToolResultContent};

/// Normalises `messages` for sending:
/// - empty (or whitespace-only) text blocks are dropped, also inside
///   `tool_result` content, and messages left without content are dropped;
/// - consecutive messages with the same role are merged into one;
/// - in every user message the `tool_result` blocks come first (the API
///   requires it), the other blocks keep their order after them;
/// - `thinking` / `redacted_thinking` blocks are kept unchanged and in order;
/// - any `cache_control` left on stored blocks is removed: breakpoints are
///   placed afresh for each request.
///
/// The input is not modified.
pub fn normalize_messages(messages: &[Message]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for message in messages {
        let content: Vec<ContentBlock> = message
            .content
            .iter()
            .filter(|block| !is_empty_text(block))
            .map(|block| {
                let mut block = block.clone();
                clean_block(&mut block);
                block
            })
            .collect();
        if content.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == message.role => last.content.extend(content),
            _ => out.push(Message {
                role: message.role,
                content,
            }),
        }
    }
    for message in &mut out {
        if message.role == Role::User {
            // A stable sort: tool results first, each group in its original order.
            message
                .content
                .sort_by_key(|block| !matches!(block, ContentBlock::ToolResult { .. }));
        }
    }
    out
}

fn is_empty_text(block: &ContentBlock) -> bool {
    matches!(block, ContentBlock::Text { text, .. } if text.trim().is_empty())
}

/// Removes `cache_control` from `block` (and from blocks nested in a tool
/// result), and empty text blocks from a tool result's content.
fn clean_block(block: &mut ContentBlock) {
    super::cache_breakpoints::strip_cache_control(block);
    if let ContentBlock::ToolResult { content, .. } = block
        && let Some(ToolResultContent::Blocks(blocks)) = content
    {
        blocks.retain(|b| !is_empty_text(b));
        if blocks.is_empty() {
            *content = None;
        }
    }
}
