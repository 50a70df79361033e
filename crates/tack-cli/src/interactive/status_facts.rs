//! What the `statusLine` command is told that only the session's events
//! say: the last response's usage and the context window, the time spent
//! waiting for the API, and the lines the file tools changed.

use std::collections::HashMap;

use tack_protocol::{ContentBlock, Message, Usage};
use tack_tui::status::{ContextWindow, LastUsage, Worktree};

/// What the `statusLine` command is told that the session's start decided.
#[derive(Debug, Clone, Default)]
pub struct SessionLabels {
    /// `--name` (tack has no `/rename`).
    pub name: Option<String>,
    /// The `--worktree` session's worktree.
    pub worktree: Option<Worktree>,
}

#[derive(Debug, Default)]
pub struct StatusFacts {
    pub context: ContextWindow,
    pub api_ms: u64,
    pub lines_added: u64,
    pub lines_removed: u64,
    /// File edits asked for, by tool-use id: counted once they succeed.
    pending: HashMap<String, (u64, u64)>,
}

impl StatusFacts {
    /// A response of `model` with its `usage`, `api_ms` after the request.
    pub fn assistant(&mut self, model: &str, u: &Usage, api_ms: u64, message: &Message) {
        self.context = ContextWindow {
            size: tack_api::model_limits(model).context_window,
            last: Some(LastUsage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cache_creation_input_tokens: u.cache_creation_input_tokens,
                cache_read_input_tokens: u.cache_read_input_tokens,
            }),
        };
        self.api_ms += api_ms;
        for (id, name, input) in message.tool_uses() {
            let (added, removed) = tack_runtime::lines_changed(name, input);
            if added + removed > 0 {
                self.pending
                    .insert(id.to_owned(), (added as u64, removed as u64));
            }
        }
    }

    pub fn tool_results(&mut self, message: &Message) {
        for block in &message.content {
            if let ContentBlock::ToolResult {
                tool_use_id,
                is_error,
                ..
            } = block
                && let Some((added, removed)) = self.pending.remove(tool_use_id)
                && !*is_error
            {
                self.lines_added += added;
                self.lines_removed += removed;
            }
        }
    }

    /// After `/compact`: no usage until the next response.
    pub fn compacted(&mut self) {
        self.context.last = None;
    }
}
