//! Prompt too long (HTTP 400 "prompt is too long: N tokens > M maximum", or
//! 413): the withheld error's two answers, then surfacing it.
//!
//! 1. **Collapse drain** ([`Transition::CollapseDrainRetry`]): commit context
//!    collapse's staged collapses and retry. Context collapse is a documented
//!    stub in tack (`pipeline::collapse`), so this never fires.
//! 2. **Reactive compaction** ([`Transition::ReactiveCompactRetry`]): summarise
//!    the conversation (the same summarisation as autocompact) and retry — at
//!    most once per turn: `has_attempted_reactive_compact` stays set until the
//!    next `NextTurn`, so a retried request that is still too long ends the loop.
//! 3. Otherwise `Terminal::PromptTooLong`, whose message tells the user to
//!    `/compact` or `/clear`.

use tokio_util::sync::CancellationToken;

use crate::deps::QueryDeps;
use crate::pipeline::autocompact::{CompactTrigger, SummarySettings, compact_history};
use crate::pipeline::collapse;
use crate::query::event::CompactedEvent;
use crate::query::state::{State, Transition};

/// First answer: drain staged collapses (stub: nothing is ever staged).
pub fn try_collapse_drain(state: &State) -> Option<State> {
    let messages = collapse::drain_staged_collapses(&state.messages)?;
    Some(State {
        messages,
        last_usage: None,
        transition: Some(Transition::CollapseDrainRetry),
        ..state.clone()
    })
}

/// Second answer: compact once per turn. Returns the next state and the compact
/// boundary to yield; `None` if already tried this turn or the summary failed.
pub async fn try_reactive_compact(
    state: &State,
    deps: &dyn QueryDeps,
    settings: SummarySettings<'_>,
    cancel: &CancellationToken,
) -> Option<(State, CompactedEvent)> {
    if state.has_attempted_reactive_compact {
        return None;
    }
    let compacted = compact_history(
        deps,
        settings,
        &state.messages,
        None,
        CompactTrigger::Reactive,
        cancel,
    )
    .await
    .ok()?;
    let next = State {
        messages: compacted.messages.iter().map(|(_, m)| m.clone()).collect(),
        has_attempted_reactive_compact: true,
        last_usage: None,
        transition: Some(Transition::ReactiveCompactRetry),
        ..state.clone()
    };
    Some((next, compacted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tack_protocol::Message;

    #[test]
    fn collapse_drain_is_a_stub_that_never_fires() {
        let state = State::initial(vec![Message::user_text("x".repeat(1_000))], None);
        assert_eq!(try_collapse_drain(&state), None);
    }
}
