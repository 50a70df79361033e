//! The classifier's answer and how it is read.
//!
//! The format is Claude Code's: `<block>yes</block>` or `<block>no</block>`,
//! then, for a reasoned block, `<category>…</category>` and
//! `<reason>…</reason>`. Stage 1 stops at `</block>`, so its answer is cut
//! to `<block>yes` (the stop sequence is not part of the text); an unclosed
//! verdict is accepted at the very end of the text unless the answer ran out
//! of tokens. Stage 2 may reason first: its last verdict counts.

use serde::{Deserialize, Serialize};
use tack_protocol::{MessageResponse, StopReason};

/// What the classifier decided about one action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// The action may run; `stage` 1 or 2 said so.
    Allow { stage: u8 },
    /// The action is refused; `reason` is for the model's error result and
    /// the user, `category` the rule's label when the model gave one.
    Block {
        stage: u8,
        category: Option<String>,
        reason: String,
    },
    /// The classifier could not answer: the request failed, the answer had
    /// no verdict twice, or the call was cancelled. `why` says which.
    Failed { why: String },
}

/// A verdict read from an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    pub(crate) block: bool,
    pub(crate) category: Option<String>,
    pub(crate) reason: Option<String>,
}

const OPEN: &str = "<block>";
const CLOSE: &str = "</block>";

/// The verdict of `message`, or `None` when it has none (garbled).
pub(crate) fn read(message: &MessageResponse) -> Option<Answer> {
    let text = answer_text(message);
    let may_be_cut = message.stop_reason != Some(StopReason::MaxTokens);
    for (at, _) in text.rmatch_indices(OPEN) {
        let after = &text[at + OPEN.len()..];
        let (value, rest) = match after.find(CLOSE) {
            Some(end) => (&after[..end], &after[end + CLOSE.len()..]),
            None if may_be_cut => (after, ""),
            None => continue,
        };
        let block = match value.trim().to_ascii_lowercase().as_str() {
            "yes" => true,
            "no" => false,
            _ => continue,
        };
        return Some(Answer {
            block,
            category: tagged(rest, "category"),
            reason: tagged(rest, "reason"),
        });
    }
    None
}

/// The text blocks of an answer, joined.
pub(crate) fn answer_text(message: &MessageResponse) -> String {
    tack_protocol::content::join_texts(&message.content, "")
}

/// The trimmed, non-empty text of the first `<tag>…</tag>` in `text`.
fn tagged(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find(&close)?;
    let inner = text[start..start + len].trim();
    (!inner.is_empty()).then(|| inner.to_owned())
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use tack_protocol::{ContentBlock, Role, Usage};

    use super::*;

    fn answer(text: &str, stop_reason: StopReason) -> MessageResponse {
        MessageResponse {
            id: "msg_1".into(),
            kind: "message".into(),
            role: Role::Assistant,
            model: "m".into(),
            content: vec![ContentBlock::text(text)],
            stop_reason: Some(stop_reason),
            stop_sequence: None,
            usage: Usage::default(),
            stop_details: None,
        }
    }

    fn verdict(block: bool, category: Option<&str>, reason: Option<&str>) -> Option<Answer> {
        Some(Answer {
            block,
            category: category.map(str::to_owned),
            reason: reason.map(str::to_owned),
        })
    }

    #[test]
    fn answers_are_read_in_claude_codes_format() {
        let cases = [
            (
                answer("<block>yes", StopReason::StopSequence),
                verdict(true, None, None),
            ),
            (
                answer("<block>no", StopReason::StopSequence),
                verdict(false, None, None),
            ),
            (
                answer(" <block> No </block>", StopReason::EndTurn),
                verdict(false, None, None),
            ),
            // An OpenAI-compatible server drops the stop sequence and says `stop`.
            (
                answer("<block>yes", StopReason::EndTurn),
                verdict(true, None, None),
            ),
            (
                answer(
                    "The user asked for <block>no</block> pushes... this is a force push.\n<block>yes</block><category>History rewrite</category><reason>It rewrites main.</reason>",
                    StopReason::EndTurn,
                ),
                verdict(true, Some("History rewrite"), Some("It rewrites main.")),
            ),
            (
                answer("<block>yes</block><reason> </reason>", StopReason::EndTurn),
                verdict(true, None, None),
            ),
            (answer("I think it is fine.", StopReason::EndTurn), None),
            (answer("<block>maybe</block>", StopReason::EndTurn), None),
            (answer("<block>no", StopReason::MaxTokens), None),
        ];
        for (message, expected) in cases {
            assert_eq!(read(&message), expected, "{}", answer_text(&message));
        }
    }
}
