//! Prompt-cache breakpoints: where `cache_control: {"type": "ephemeral"}` goes so
//! that each request reads almost all of its prefix from the cache.
//!
//! The prefix is tools → system → messages, and the API allows at most
//! [`MAX_CACHE_BREAKPOINTS`]. A breakpoint writes the prefix up to its block; a
//! later request reads the longest written prefix found within 20 blocks before
//! one of its own breakpoints. The placement:
//!
//! 1. the last system block: tools + the whole system prompt (tools have no
//!    breakpoint of their own, they are inside this prefix);
//! 2. the system block before it, if any: the last block is the session-specific
//!    one (git snapshot, appended prompt), so the default prompt and the tools
//!    stay shared between sessions;
//! 3. the last block of the last message: written now, read by the next request;
//! 4. the last block of the last user message before the final message: that is
//!    where the *previous* request put breakpoint 3, so it is read back exactly,
//!    however many blocks the latest turn added (the 20-block look-back alone
//!    would miss after a turn with many tool calls).
//!
//! Without system blocks, the last tool definition takes breakpoint 1.
//! Thinking, redacted-thinking, unknown and empty text blocks cannot carry a
//! breakpoint; the nearest earlier block that can is used instead.

use tack_protocol::{
    CacheControl, ContentBlock, Message, MessagesRequest, Role, SystemBlock, SystemPrompt,
    ToolResultContent,
};

/// The API's limit on `cache_control` markers per request (a fifth is a 400).
pub const MAX_CACHE_BREAKPOINTS: usize = 4;

/// Removes every `cache_control` from `req` (tools, system, message blocks and
/// blocks nested in tool results).
pub fn clear_cache_breakpoints(req: &mut MessagesRequest) {
    for tool in &mut req.tools {
        tool.cache_control = None;
    }
    if let Some(SystemPrompt::Blocks(blocks)) = &mut req.system {
        for block in blocks {
            block.cache_control = None;
        }
    }
    for message in &mut req.messages {
        for block in &mut message.content {
            strip_cache_control(block);
        }
    }
}

/// Replaces whatever breakpoints `req` has with tack's placement (see the
/// module docs). Never more than [`MAX_CACHE_BREAKPOINTS`].
pub fn place_cache_breakpoints(req: &mut MessagesRequest) {
    clear_cache_breakpoints(req);

    if let Some(SystemPrompt::Text(text)) = &req.system {
        req.system = Some(SystemPrompt::Blocks(vec![SystemBlock::text(text.clone())]));
    }
    let system_blocks = match &mut req.system {
        Some(SystemPrompt::Blocks(blocks)) => blocks.as_mut_slice(),
        Some(SystemPrompt::Text(_)) | None => &mut [],
    };
    let mut marked = 0;
    for block in system_blocks
        .iter_mut()
        .rev()
        .filter(|b| !b.text.trim().is_empty())
    {
        block.cache_control = Some(CacheControl::ephemeral());
        marked += 1;
        if marked == 2 {
            break;
        }
    }
    if marked == 0
        && let Some(tool) = req.tools.last_mut()
    {
        tool.cache_control = Some(CacheControl::ephemeral());
    }

    for (m, b) in message_breakpoints(&req.messages) {
        if let Some(slot) = req.messages[m].content[b].cache_control_mut() {
            *slot = Some(CacheControl::ephemeral());
        }
    }
    debug_assert!(req.cache_breakpoints() <= MAX_CACHE_BREAKPOINTS);
}

/// Positions `(message, block)` of the message breakpoints: at most two, distinct.
fn message_breakpoints(messages: &[Message]) -> Vec<(usize, usize)> {
    let Some(last) = messages.len().checked_sub(1) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(2);
    let previous_end = messages[..last]
        .iter()
        .rposition(|m| m.role == Role::User)
        .and_then(|m| last_cacheable_block(messages, m));
    out.extend(previous_end);
    if let Some(pos) = last_cacheable_block(messages, last)
        && !out.contains(&pos)
    {
        out.push(pos);
    }
    out
}

/// The last block, in `messages[..=upto]`, that can carry a breakpoint.
fn last_cacheable_block(messages: &[Message], upto: usize) -> Option<(usize, usize)> {
    messages[..=upto]
        .iter()
        .enumerate()
        .rev()
        .find_map(|(m, message)| {
            let b = message.content.iter().rposition(accepts_cache_control)?;
            Some((m, b))
        })
}

/// Whether the API allows `cache_control` on `block`.
fn accepts_cache_control(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Text { text, .. } => !text.trim().is_empty(),
        ContentBlock::Image { .. }
        | ContentBlock::ToolUse { .. }
        | ContentBlock::ToolResult { .. } => true,
        ContentBlock::Thinking { .. }
        | ContentBlock::RedactedThinking { .. }
        | ContentBlock::Unknown(_) => false,
    }
}

/// Removes `cache_control` from `block`, from blocks nested in a tool result,
/// and from an opaque block's JSON.
pub(crate) fn strip_cache_control(block: &mut ContentBlock) {
    if let Some(slot) = block.cache_control_mut() {
        *slot = None;
    }
    match block {
        ContentBlock::ToolResult {
            content: Some(ToolResultContent::Blocks(blocks)),
            ..
        } => {
            blocks.iter_mut().for_each(strip_cache_control);
        }
        ContentBlock::Unknown(unknown) => {
            if let Some(map) = unknown.0.as_object_mut() {
                map.remove("cache_control");
            }
        }
        ContentBlock::Text { .. }
        | ContentBlock::Image { .. }
        | ContentBlock::ToolUse { .. }
        | ContentBlock::ToolResult { .. }
        | ContentBlock::Thinking { .. }
        | ContentBlock::RedactedThinking { .. } => {}
    }
}
