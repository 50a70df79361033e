//! Step 14 of seed 004: collect the iteration's outcome and decide whether to
//! continue. The tree is seed 000's "Continue/Stop Decision":
//!
//! ```text
//! needs_follow_up? ─ no ─► withheld prompt-too-long? ─► reactive compact ─► PromptTooLong
//!                  │       withheld max_output_tokens? ─► escalate ─► recovery (≤3) ─► (surface)
//!                  │       stop hooks? ─► blocking: StopHookBlocking │ prevent: StopHookPrevented
//!                  │       token budget? ─► TokenBudgetContinuation
//!                  │       ─► Completed
//!                  └ yes ─► max_turns reached? ─► MaxTurns │ NextTurn
//! ```
//!
//! The no-follow-up branches may yield events: the withheld message once it is
//! decided (`AssistantMessage` or `Tombstone`), the messages a recovery appends
//! (`MetaMessage`), reactive compaction's `Compacted`.

use tack_protocol::Message;
use tokio_util::sync::CancellationToken;

use super::QueryConfig;
use super::event::LoopEvent;
use super::recovery::stop_hooks::{self, LoopHooks, StopHookInput, StopHookOutcome};
use super::recovery::{Withheld, max_output_tokens, reactive_compact, token_budget};
use super::state::{State, Transition};
use super::stream::Emitter;
use super::terminal::Terminal;
use crate::compact::SummarySettings;
use crate::deps::QueryDeps;

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
    /// iteration's yielded assistant message and tool results (a withheld
    /// message is not in it).
    pub state: State,
    /// The assistant message had tool_use blocks.
    pub needs_follow_up: bool,
    pub withheld: Option<Withheld>,
}

/// What the decision may call and yield to.
pub(crate) struct DecisionEnv<'a> {
    pub deps: &'a dyn QueryDeps,
    pub config: &'a QueryConfig,
    /// The model of this query now (the fallback model after a model fallback).
    pub model: &'a str,
    pub summary: SummarySettings<'a>,
    pub stop_hooks: Option<&'a dyn LoopHooks>,
    pub cancel: &'a CancellationToken,
    pub out: &'a Emitter,
}

impl DecisionEnv<'_> {
    /// Yields a message the loop appends itself.
    async fn meta(&self, message: Message) {
        let uuid = self.deps.new_id();
        self.out
            .emit(LoopEvent::MetaMessage { uuid, message })
            .await;
    }
}

/// The decision tree above.
pub(crate) async fn decide_continue(end: IterationEnd, env: &DecisionEnv<'_>) -> Decision {
    let IterationEnd {
        mut state,
        needs_follow_up,
        withheld,
    } = end;
    if needs_follow_up {
        return next_turn(state, env.config.max_turns);
    }
    match withheld {
        Some(super::recovery::Withheld::PromptTooLong(error)) => {
            // Seed 004's collapse drain comes first; tack has no context
            // collapse, so there is nothing staged to drain.
            if let Some((next, compacted)) =
                reactive_compact::try_reactive_compact(&state, env.deps, env.summary, env.cancel)
                    .await
            {
                env.out.emit(LoopEvent::Compacted(compacted)).await;
                return Decision::Continue(next);
            }
            return Decision::Stop(Terminal::PromptTooLong(error));
        }
        Some(Withheld::MaxOutputTokens(assistant)) => {
            if let Some(next) = max_output_tokens::try_escalate(&state, env.config, env.model) {
                env.out
                    .emit(LoopEvent::Tombstone {
                        uuid: assistant.uuid,
                        message_id: assistant.id,
                    })
                    .await;
                return Decision::Continue(next);
            }
            // From here on the partial answer is kept.
            state.messages.push(assistant.message.clone());
            env.out.emit(LoopEvent::AssistantMessage(*assistant)).await;
            if let Some((next, resume)) = max_output_tokens::try_recovery(&state) {
                env.meta(resume).await;
                return Decision::Continue(next);
            }
            // Recovery exhausted: the truncated message stands (surfaced).
        }
        None => {}
    }
    if let Some(hooks) = env.stop_hooks {
        let outcome = hooks
            .stop(StopHookInput {
                messages: &state.messages,
                stop_hook_active: state.stop_hook_active,
            })
            .await;
        match outcome {
            StopHookOutcome::Pass => {}
            // At most one continuation per exit point: a hook that blocks again
            // while the model is answering its earlier block is not obeyed
            // (Claude Code leaves this to the hook; a careless hook would
            // otherwise loop until max_turns).
            StopHookOutcome::Block { .. } if state.stop_hook_active => {}
            StopHookOutcome::Block { reason } => {
                let message = stop_hooks::blocking_message(&reason);
                env.meta(message.clone()).await;
                state.messages.push(message);
                return Decision::Continue(State {
                    stop_hook_active: true,
                    transition: Some(Transition::StopHookBlocking),
                    ..state
                });
            }
            StopHookOutcome::Prevent { reason: _ } => {
                return Decision::Stop(Terminal::StopHookPrevented);
            }
        }
    }
    if let Some((tracker, nudge)) =
        token_budget::continuation(state.token_budget, env.config.token_budget)
    {
        env.meta(nudge.clone()).await;
        state.messages.push(nudge);
        return Decision::Continue(State {
            token_budget: tracker,
            transition: Some(Transition::TokenBudgetContinuation),
            ..state
        });
    }
    Decision::Stop(Terminal::Completed)
}

/// The tool-use branch: `NextTurn`, unless `max_turns` would be exceeded. The
/// per-turn recovery counters start afresh.
pub fn next_turn(state: State, max_turns: Option<u32>) -> Decision {
    let next_turn_count = state.turn_count + 1;
    if let Some(max) = max_turns
        && next_turn_count > max
    {
        return Decision::Stop(Terminal::MaxTurns {
            turn_count: next_turn_count,
        });
    }
    Decision::Continue(State {
        turn_count: next_turn_count,
        max_output_tokens_recovery_count: 0,
        has_attempted_reactive_compact: false,
        max_output_tokens_override: None,
        transition: Some(Transition::NextTurn),
        ..state
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tack_protocol::Message;

    fn state(turn_count: u32) -> State {
        let mut state = State::initial(vec![Message::user_text("hi")], Some(64_000));
        state.turn_count = turn_count;
        state.max_output_tokens_recovery_count = 2;
        state.has_attempted_reactive_compact = true;
        state
    }

    #[test]
    fn tool_use_continues_with_a_whole_new_state() {
        let expected = State {
            turn_count: 4,
            max_output_tokens_recovery_count: 0,
            has_attempted_reactive_compact: false,
            max_output_tokens_override: None,
            transition: Some(Transition::NextTurn),
            ..state(3)
        };
        assert_eq!(next_turn(state(3), Some(4)), Decision::Continue(expected));
    }

    #[test]
    fn max_turns_stops_with_the_turn_that_would_have_run() {
        assert_eq!(
            next_turn(state(4), Some(4)),
            Decision::Stop(Terminal::MaxTurns { turn_count: 5 })
        );
    }
}
