//! After the tools (seed 002, "tool 完成后，循环收集需要注入的额外 context"): queued
//! commands, changed-file notices, memory and skill-discovery attachments, added to
//! the user message that carries the tool results. None exist yet; the hooks and
//! memory issues fill this in.

use tack_protocol::{ContentBlock, Message};

/// Blocks to append to this iteration's tool-result message. `history` is what the
/// model has seen so far, including this iteration's assistant message.
pub fn attachments_for(history: &[Message]) -> Vec<ContentBlock> {
    let _ = history;
    Vec::new()
}
