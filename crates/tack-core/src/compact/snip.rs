//! Step 6 of seed 004: HISTORY_SNIP, removing whole old turns from the middle of
//! the history (keeping the first user message, the task, and the recent turns,
//! never separating a tool_use from its tool_result), with zero model calls.
//!
//! Feature-flagged in Claude Code and off by default here
//! (`QueryConfig::snip`): it runs before autocompact, so when it is on it
//! answers first and autocompact only runs when snipping cannot free enough.
//! It fires above the autocompact threshold and cuts to
//! [`SNIP_TARGET_PERCENT`](super::limits::SNIP_TARGET_PERCENT) of it, keeping
//! at least [`SNIP_KEEP_RECENT`](super::limits::SNIP_KEEP_RECENT) messages
//! ([`snip_if_needed`]); [`snip`] is the cut itself.

use tack_protocol::{ContentBlock, Message, Role};

use super::{Estimate, estimate_message};

/// What snipping did.
#[derive(Debug, Clone, PartialEq)]
pub struct SnipOutcome {
    pub messages: Vec<Message>,
    pub messages_removed: usize,
    /// Estimated tokens removed; the blocking-limit check subtracts them because
    /// the last response's usage still counts them.
    pub tokens_freed: u64,
}

/// Snips the history if `tokens` (the loop's context size, see
/// [`token_count_with_estimation`](super::limits::token_count_with_estimation))
/// is over `trigger_tokens`, removing enough to bring it to `target_tokens`;
/// `None` thresholds (snip off, or no known window) leave it alone.
pub fn snip_if_needed(
    messages: Vec<Message>,
    tokens: u64,
    thresholds: Option<(u64, u64)>,
    keep_recent: usize,
) -> SnipOutcome {
    let unchanged = |messages| SnipOutcome {
        messages,
        messages_removed: 0,
        tokens_freed: 0,
    };
    let Some((trigger_tokens, target_tokens)) = thresholds else {
        return unchanged(messages);
    };
    if tokens <= trigger_tokens {
        return unchanged(messages);
    }
    // The cut measures messages only: aim to free the same amount.
    let to_free = tokens - target_tokens;
    let target = tack_api::estimate_messages(&messages).saturating_sub(to_free);
    match snip(&messages, target, keep_recent, &estimate_message) {
        Some(out) => out,
        None => unchanged(messages),
    }
}

/// Removes the oldest middle messages until the estimate is at most
/// `target_tokens`, keeping `messages[0]` and at least `keep_recent` messages at
/// the end. Cuts only where the next kept message is an assistant message, so a
/// tool_use is never separated from its tool_result and roles still alternate
/// after the note that replaces the removed span. Returns `None` when there is
/// nothing to do (already under target, or nothing removable).
pub fn snip(
    messages: &[Message],
    target_tokens: u64,
    keep_recent: usize,
    estimate: Estimate<'_>,
) -> Option<SnipOutcome> {
    let sizes: Vec<u64> = messages.iter().map(estimate).collect();
    let total: u64 = sizes.iter().sum();
    if total <= target_tokens || messages.len() < 3 {
        return None;
    }
    let last_removable = messages.len().saturating_sub(keep_recent.max(1));
    let mut freed = 0;
    let mut cut_end = None;
    // Remove messages[1..end) for the smallest `end` that frees enough and is a
    // valid cut: messages[end] is an assistant turn.
    for end in 2..=last_removable {
        freed += sizes[end - 1];
        let valid_cut = messages[end].role == Role::Assistant;
        if valid_cut {
            cut_end = Some((end, freed));
            if total - freed <= target_tokens {
                break;
            }
        }
    }
    let (end, freed) = cut_end?;
    let removed = end - 1;
    let note = Message::user(vec![ContentBlock::text(format!(
        "[{removed} earlier messages of this conversation were removed to fit the context window.]"
    ))]);
    let mut out = Vec::with_capacity(messages.len() - removed + 1);
    out.push(messages[0].clone());
    // messages[0] is a user message; the note merges into it on normalisation,
    // then the kept assistant turn follows.
    out.push(note);
    out.extend_from_slice(&messages[end..]);
    Some(SnipOutcome {
        messages: out,
        messages_removed: removed,
        tokens_freed: freed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn turn(i: usize) -> [Message; 2] {
        [
            Message::assistant(vec![ContentBlock::tool_use(
                format!("t{i}"),
                "Read",
                json!({"file_path": format!("/f{i}")}),
            )]),
            Message::user(vec![ContentBlock::tool_result(
                format!("t{i}"),
                "x".repeat(400),
                false,
            )]),
        ]
    }

    fn history(turns: usize) -> Vec<Message> {
        let mut m = vec![Message::user_text("fix the bug")];
        for i in 0..turns {
            m.extend(turn(i));
        }
        m
    }

    fn est(m: &Message) -> u64 {
        serde_json::to_string(m)
            .map(|s| s.len() as u64 / 4)
            .unwrap_or(0)
    }

    #[test]
    fn under_target_does_nothing() {
        assert_eq!(snip(&history(3), u64::MAX, 2, &est), None);
    }

    #[test]
    fn removes_oldest_whole_turns_and_keeps_first_and_recent() {
        let h = history(10);
        let total: u64 = h.iter().map(est).sum();
        let out = snip(&h, total / 2, 4, &est).expect("snips");
        assert_eq!(out.messages[0], h[0]);
        assert_eq!(out.messages.last(), h.last());
        assert!(
            out.messages_removed.is_multiple_of(2),
            "whole turns only: {}",
            out.messages_removed
        );
        assert_eq!(out.messages[2].role, Role::Assistant);
        let kept: u64 = out.messages.iter().map(est).sum();
        assert!(
            kept <= total / 2 + est(&out.messages[1]),
            "{kept} vs {}",
            total / 2
        );
        // Every tool_result still follows its own tool_use.
        for pair in out.messages[2..].chunks(2) {
            let (id, _, _) = pair[0].tool_uses().next().expect("assistant tool_use");
            let ContentBlock::ToolResult { tool_use_id, .. } = &pair[1].content[0] else {
                panic!("not a tool result")
            };
            assert_eq!(id, tool_use_id);
        }
    }

    #[test]
    fn never_cuts_into_the_recent_messages() {
        let h = history(3);
        let out = snip(&h, 0, 6, &est);
        assert_eq!(
            out, None,
            "only messages[1] is removable and it is not a valid cut"
        );
    }
}
