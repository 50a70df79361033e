//! Step 5 of seed 004: `applyToolResultBudget`.
//!
//! Tool results too large for the context are written to the session's
//! tool-results directory and replaced by a preview plus the file path
//! (`tack_tool::budget`). Seed 004 runs it before microcompact: cached
//! microcompact works purely by tool_use id and never inspects content, so a
//! content replacement here is invisible to it.
//!
//! tack applies the budget where results are made, so each result is stored at
//! most once and the history never holds an oversized result:
//! - per result, in the executor as each call returns (`Tool::max_result_chars`);
//! - per message, [`apply_message_budget`] when the loop assembles the
//!   iteration's tool-result message.
//!
//! A pass over the history at step 5 would therefore find nothing to do for
//! messages the loop made, and the loop has none (resumed transcripts from
//! older versions are the only source of an oversized result in the history).

use std::path::Path;

use tack_tool::ToolOutput;
use tack_tool::budget::{self, DEFAULT_MAX_MESSAGE_CHARS};

use crate::outcome::ToolCallOutcome;

/// The aggregate tool-result budget of one message, in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolResultBudget {
    pub max_chars_per_message: usize,
}

impl Default for ToolResultBudget {
    fn default() -> Self {
        ToolResultBudget {
            max_chars_per_message: DEFAULT_MAX_MESSAGE_CHARS,
        }
    }
}

/// Stores the largest results of one message on disk until the message fits the
/// budget. Errors and tools exempt from the budget are left alone.
pub fn apply_message_budget(
    outcomes: &mut [ToolCallOutcome],
    dir: &Path,
    budget: &ToolResultBudget,
) {
    let eligible: Vec<usize> = (0..outcomes.len())
        .filter(|&i| !outcomes[i].budget_exempt && !outcomes[i].is_error)
        .collect();
    let mut results: Vec<(String, ToolOutput)> = eligible
        .iter()
        .map(|&i| {
            let o = &outcomes[i];
            (
                o.tool_use_id.clone(),
                ToolOutput {
                    content: o.content.clone(),
                    is_error: false,
                    structured: None,
                    turn_end: None,
                },
            )
        })
        .collect();
    if results.is_empty() {
        return;
    }
    budget::apply_message_budget(&mut results, dir, budget.max_chars_per_message);
    for (i, (_, out)) in eligible.into_iter().zip(results) {
        outcomes[i].content = out.content;
    }
}
