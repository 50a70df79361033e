//! Step 7 of seed 004: microcompact, clearing the content of old tool results
//! (stale Read / Bash output) with zero model calls. The tool_use / tool_result
//! pairs and their ids stay, so the conversation is still valid; only the bulky
//! payload of results the model has long since acted on is replaced by a short
//! placeholder.
//!
//! The loop runs it through `QueryDeps::microcompact`, whose default is
//! [`microcompact_if_needed`]. Trigger and retention come from `limits.rs`: it
//! runs once the estimated context passes half the autocompact threshold and
//! keeps the 8 most recent compactable results. Clearing rewrites the prompt
//! prefix (one cache write), so it happens in batches: after a batch the
//! context is well below the trigger again and the prefix stays stable until
//! the next crossing.

use std::collections::HashMap;

use tack_protocol::{ContentBlock, Message, ToolResultContent};

use super::{Estimate, estimate_message};

/// The text that replaces a cleared result.
pub const CLEARED_PLACEHOLDER: &str = "[Old tool result content cleared]";

/// Tools whose results can be re-obtained by calling them again, so clearing
/// them loses nothing the model cannot get back. Results of tools that changed
/// something (Edit, Write) are small and say what was done: they stay.
pub const COMPACTABLE_TOOLS: &[&str] = &[
    "Read",
    "Bash",
    "Grep",
    "Glob",
    "LS",
    "WebFetch",
    "WebSearch",
    "TaskOutput",
    "BashOutput",
];

/// Where microcompact fires and what it keeps (`limits.rs` derives it from the
/// window).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MicrocompactConfig {
    /// Run only when the estimated context is above this. Clearing changes the
    /// prompt prefix and so costs a cache write; doing it in batches when a
    /// threshold is crossed, not every turn, keeps the cache warm in between.
    pub trigger_tokens: u64,
    /// The most recent compactable results are never cleared.
    pub keep_recent: usize,
}

/// What microcompact did.
#[derive(Debug, Clone, PartialEq)]
pub struct MicrocompactOutcome {
    pub messages: Vec<Message>,
    /// Results whose content was replaced by the placeholder.
    pub results_cleared: usize,
    pub tokens_freed: u64,
}

/// Clears stale tool results if the history is over `config.trigger_tokens`;
/// otherwise hands the messages back unchanged.
pub fn microcompact_if_needed(
    messages: Vec<Message>,
    config: &MicrocompactConfig,
) -> MicrocompactOutcome {
    match microcompact(&messages, config, &estimate_message) {
        Some(out) => out,
        None => MicrocompactOutcome {
            messages,
            results_cleared: 0,
            tokens_freed: 0,
        },
    }
}

/// Clears compactable tool results, oldest first, except the `keep_recent`
/// newest ones. `None` when below the trigger or when nothing is clearable.
pub fn microcompact(
    messages: &[Message],
    config: &MicrocompactConfig,
    estimate: Estimate<'_>,
) -> Option<MicrocompactOutcome> {
    let total: u64 = messages.iter().map(estimate).sum();
    if total <= config.trigger_tokens {
        return None;
    }
    let names: HashMap<&str, &str> = messages
        .iter()
        .flat_map(|m| m.tool_uses())
        .map(|(id, name, _)| (id, name))
        .collect();
    let clearable = |b: &ContentBlock| match b {
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            ..
        } => {
            let compactable = names
                .get(tool_use_id.as_str())
                .is_some_and(|name| COMPACTABLE_TOOLS.contains(name));
            let already =
                matches!(content, Some(ToolResultContent::Text(t)) if t == CLEARED_PLACEHOLDER);
            compactable && !already
        }
        _ => false,
    };
    let candidates: usize = messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter(|b| clearable(b))
        .count();
    let to_clear = candidates.saturating_sub(config.keep_recent);
    if to_clear == 0 {
        return None;
    }
    let mut cleared = 0;
    let mut freed = 0;
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        if cleared == to_clear || !message.content.iter().any(&clearable) {
            out.push(message.clone());
            continue;
        }
        let before = estimate(message);
        let mut m = message.clone();
        for block in &mut m.content {
            if cleared < to_clear && clearable(block) {
                if let ContentBlock::ToolResult { content, .. } = block {
                    *content = Some(ToolResultContent::Text(CLEARED_PLACEHOLDER.to_owned()));
                }
                cleared += 1;
            }
        }
        freed += before.saturating_sub(estimate(&m));
        out.push(m);
    }
    Some(MicrocompactOutcome {
        messages: out,
        results_cleared: cleared,
        tokens_freed: freed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn est(m: &Message) -> u64 {
        serde_json::to_string(m)
            .map(|s| s.len() as u64 / 4)
            .unwrap_or(0)
    }

    fn history() -> Vec<Message> {
        let mut m = vec![Message::user_text("go")];
        for (i, tool) in ["Read", "Edit", "Bash", "Read", "Grep"].iter().enumerate() {
            m.push(Message::assistant(vec![ContentBlock::tool_use(
                format!("t{i}"),
                *tool,
                json!({}),
            )]));
            m.push(Message::user(vec![ContentBlock::tool_result(
                format!("t{i}"),
                format!("{tool} output ").repeat(100),
                false,
            )]));
        }
        m
    }

    fn result_text(m: &Message) -> String {
        match &m.content[0] {
            ContentBlock::ToolResult {
                content: Some(c), ..
            } => c.to_text(),
            other => panic!("not a result: {other:?}"),
        }
    }

    #[test]
    fn clears_oldest_compactable_results_and_keeps_ids_and_edits() {
        let h = history();
        let config = MicrocompactConfig {
            trigger_tokens: 0,
            keep_recent: 2,
        };
        let out = microcompact(&h, &config, &est).expect("clears");
        assert_eq!(out.results_cleared, 2);
        let texts: Vec<String> = out.messages[1..]
            .chunks(2)
            .map(|p| result_text(&p[1]))
            .collect();
        assert_eq!(texts[0], CLEARED_PLACEHOLDER); // Read t0
        assert_eq!(texts[1], "Edit output ".repeat(100)); // Edit kept
        assert_eq!(texts[2], CLEARED_PLACEHOLDER); // Bash t2
        assert_eq!(texts[3], "Read output ".repeat(100)); // 2 most recent kept
        assert_eq!(texts[4], "Grep output ".repeat(100));
        assert!(out.tokens_freed > 0);
        // Same ids, same shape.
        for (a, b) in h.iter().zip(&out.messages) {
            assert_eq!(
                a.tool_uses().collect::<Vec<_>>(),
                b.tool_uses().collect::<Vec<_>>()
            );
        }
        // Idempotent: nothing more to clear with the same config.
        assert_eq!(microcompact(&out.messages, &config, &est), None);
    }

    #[test]
    fn below_trigger_does_nothing() {
        let config = MicrocompactConfig {
            trigger_tokens: u64::MAX,
            keep_recent: 0,
        };
        assert_eq!(microcompact(&history(), &config, &est), None);
    }
}
