//! Step 14 of seed 004: collect the iteration's outcome and decide whether to
//! continue. The tree is seed 000's "Continue/Stop Decision":
//!
//! ```text
//! needs_follow_up? ─ no ─► withheld prompt-too-long? ─► collapse drain ─► reactive compact ─► PromptTooLong
//!                  │       withheld max_output_tokens? ─► escalate ─► recovery (≤3) ─► (surface)
//!                  │       stop hooks? ─► blocking: StopHookBlocking │ prevent: StopHookPrevented
//!                  │       token budget? ─► TokenBudgetContinuation
//!                  │       ─► Completed
//!                  └ yes ─► max_turns reached? ─► MaxTurns │ NextTurn
//! ```

use super::recovery::{self, Withheld};
use super::state::{State, Transition};
use super::terminal::Terminal;

/// What the continue decision returns.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Run another iteration from this state (its `transition` says why).
    Continue(State),
    Stop(Terminal),
}

/// What an iteration ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct IterationEnd {
    /// The iteration's state with `messages` = messages for query + this
    /// iteration's assistant message and tool results.
    pub state: State,
    /// The assistant message had tool_use blocks.
    pub needs_follow_up: bool,
    pub withheld: Option<Withheld>,
    pub max_turns: Option<u32>,
}

/// The decision tree above.
pub fn decide_continue(end: IterationEnd) -> Decision {
    let IterationEnd {
        state,
        needs_follow_up,
        withheld,
        max_turns,
    } = end;
    if !needs_follow_up {
        match withheld {
            Some(Withheld::PromptTooLong(error)) => {
                if let Some(next) = recovery::try_collapse_drain(&state) {
                    return Decision::Continue(next);
                }
                if let Some(next) = recovery::try_reactive_compact(&state) {
                    return Decision::Continue(next);
                }
                return Decision::Stop(Terminal::PromptTooLong(error));
            }
            Some(Withheld::MaxOutputTokens) => {
                if let Some(next) = recovery::try_escalate_max_output_tokens(&state) {
                    return Decision::Continue(next);
                }
                if let Some(next) = recovery::try_max_output_tokens_recovery(&state) {
                    return Decision::Continue(next);
                }
                // Recovery exhausted: the (already yielded) truncated message stands.
            }
            None => {}
        }
        match run_stop_hooks(&state) {
            StopHooks::Pass => {}
            StopHooks::Blocking(next) => return Decision::Continue(next),
            StopHooks::Prevented => return Decision::Stop(Terminal::StopHookPrevented),
        }
        if let Some(next) = token_budget_continuation(&state) {
            return Decision::Continue(next);
        }
        return Decision::Stop(Terminal::Completed);
    }

    let next_turn_count = state.turn_count + 1;
    if let Some(max) = max_turns
        && next_turn_count > max
    {
        return Decision::Stop(Terminal::MaxTurns {
            turn_count: next_turn_count,
        });
    }
    Decision::Continue(State {
        messages: state.messages,
        turn_count: next_turn_count,
        max_output_tokens_recovery_count: 0,
        has_attempted_reactive_compact: false,
        max_output_tokens_override: None,
        stop_hook_active: state.stop_hook_active,
        auto_compact_tracking: state.auto_compact_tracking,
        transition: Some(Transition::NextTurn),
    })
}

/// What the Stop hooks said.
#[derive(Debug, Clone, PartialEq)]
pub enum StopHooks {
    Pass,
    /// A hook blocked with an error for the model: continue from this state
    /// ([`Transition::StopHookBlocking`], `stop_hook_active` set).
    Blocking(State),
    /// A hook prevented continuation.
    Prevented,
}

/// Runs the Stop hooks at most once per exit point (not again while
/// `stop_hook_active`). No hooks exist yet (hooks issue).
pub fn run_stop_hooks(state: &State) -> StopHooks {
    let _ = state;
    StopHooks::Pass
}

/// Continues a model that stopped early relative to its token budget
/// ([`Transition::TokenBudgetContinuation`]). No token budget yet.
pub fn token_budget_continuation(state: &State) -> Option<State> {
    let _ = state;
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tack_protocol::Message;

    fn end(needs_follow_up: bool, turn_count: u32, max_turns: Option<u32>) -> IterationEnd {
        let mut state = State::initial(vec![Message::user_text("hi")], Some(64_000));
        state.turn_count = turn_count;
        state.max_output_tokens_recovery_count = 2;
        IterationEnd {
            state,
            needs_follow_up,
            withheld: None,
            max_turns,
        }
    }

    #[test]
    fn tool_use_continues_with_a_whole_new_state() {
        let expected = State {
            messages: vec![Message::user_text("hi")],
            turn_count: 4,
            max_output_tokens_recovery_count: 0,
            has_attempted_reactive_compact: false,
            max_output_tokens_override: None,
            stop_hook_active: false,
            auto_compact_tracking: None,
            transition: Some(Transition::NextTurn),
        };
        assert_eq!(
            decide_continue(end(true, 3, Some(4))),
            Decision::Continue(expected)
        );
    }

    #[test]
    fn max_turns_stops_with_the_turn_that_would_have_run() {
        assert_eq!(
            decide_continue(end(true, 4, Some(4))),
            Decision::Stop(Terminal::MaxTurns { turn_count: 5 })
        );
    }

    #[test]
    fn no_tool_use_completes_and_unrecovered_errors_surface() {
        assert_eq!(
            decide_continue(end(false, 1, None)),
            Decision::Stop(Terminal::Completed)
        );
        let mut truncated = end(false, 1, None);
        truncated.withheld = Some(Withheld::MaxOutputTokens);
        assert_eq!(
            decide_continue(truncated),
            Decision::Stop(Terminal::Completed)
        );
        let error = tack_api::ApiError::PromptTooLong {
            actual: Some(210_000),
            limit: Some(200_000),
            message: "prompt is too long".into(),
        };
        let mut too_long = end(false, 1, None);
        too_long.withheld = Some(Withheld::PromptTooLong(error.clone()));
        assert_eq!(
            decide_continue(too_long),
            Decision::Stop(Terminal::PromptTooLong(error))
        );
    }
}
