//! Context management tiers, cheapest first (seed 003 / 004 steps 5-10):
//! tool result budget → [`snip`] → [`microcompact`] → (collapse) → [`autocompact`]
//! → blocking limit ([`thresholds`]). Each tier can bring the context under the
//! next tier's trigger, which is why the order matters: a tier that costs a
//! model call (autocompact) only runs when the free ones were not enough.
//!
//! Everything here is a pure function over messages and token counts, so each
//! tier is tested alone; the loop's pipeline stages call them.

pub mod autocompact;
pub mod microcompact;
pub mod snip;
pub mod thresholds;

use tack_protocol::{ContentBlock, Message, Role};

/// Token estimate for one message; the loop passes tack-api's estimator.
pub type Estimate<'a> = &'a dyn Fn(&Message) -> u64;

/// True for a user message that carries tool results (the second half of a
/// tool_use/tool_result pair, which must never be separated from the first).
pub(crate) fn is_tool_result_message(m: &Message) -> bool {
    m.role == Role::User
        && m.content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
}
