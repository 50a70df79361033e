//! Token-budget continuation ([`Transition::TokenBudgetContinuation`](crate::query::Transition)):
//! with `QueryConfig::token_budget` set, a model that stops (no tool use) well
//! short of the budget is nudged to keep going.
//!
//! Continue while all hold:
//! - output tokens of this query < [`COMPLETION_THRESHOLD_PERCENT`] (90%) of the budget;
//! - fewer than [`MAX_CONTINUATIONS`] (5) continuations so far;
//! - the previous continuation produced at least [`DIMINISHING_RETURNS_TOKENS`]
//!   (500) output tokens (otherwise the model has nothing more to add).

use tack_protocol::Message;

use crate::query::state::TokenBudgetTracker;

pub const COMPLETION_THRESHOLD_PERCENT: u64 = 90;
pub const MAX_CONTINUATIONS: u32 = 5;
pub const DIMINISHING_RETURNS_TOKENS: u64 = 500;

/// The tracker after continuing and the nudge message, or `None` to stop.
pub fn continuation(
    tracker: TokenBudgetTracker,
    budget: Option<u64>,
) -> Option<(TokenBudgetTracker, Message)> {
    let budget = budget.filter(|b| *b > 0)?;
    let used = tracker.output_tokens;
    let short = used < budget * COMPLETION_THRESHOLD_PERCENT / 100;
    let diminishing = tracker.continuations > 0
        && used - tracker.output_at_last_continuation < DIMINISHING_RETURNS_TOKENS;
    if !short || diminishing || tracker.continuations >= MAX_CONTINUATIONS {
        return None;
    }
    let pct = used * 100 / budget;
    let nudge = Message::user_text(format!(
        "Stopped at {pct}% of the token target ({used} / {budget}). Keep working — do not summarize."
    ));
    Some((
        TokenBudgetTracker {
            output_tokens: used,
            continuations: tracker.continuations + 1,
            output_at_last_continuation: used,
        },
        nudge,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn continues_short_of_the_budget_and_stops_on_diminishing_returns() {
        let t = TokenBudgetTracker::default().record(1_000);
        assert_eq!(continuation(t, None), None);
        let (t, _) = continuation(t, Some(10_000)).expect("continues");
        assert_eq!(
            t,
            TokenBudgetTracker {
                output_tokens: 1_000,
                continuations: 1,
                output_at_last_continuation: 1_000
            }
        );
        // 499 more: diminishing returns.
        assert_eq!(continuation(t.record(499), Some(10_000)), None);
        // Enough progress: continue; at 90% stop.
        assert!(continuation(t.record(2_000), Some(10_000)).is_some());
        assert_eq!(continuation(t.record(8_000), Some(10_000)), None);
    }

    #[test]
    fn at_most_five_continuations() {
        let mut t = TokenBudgetTracker::default();
        let mut n = 0;
        loop {
            t = t.record(600);
            match continuation(t, Some(1_000_000)) {
                Some((next, _)) => {
                    t = next;
                    n += 1;
                }
                None => break,
            }
        }
        assert_eq!(n, MAX_CONTINUATIONS);
    }
}
