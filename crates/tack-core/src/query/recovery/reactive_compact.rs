//! Prompt too long (HTTP 400 "prompt is too long: N tokens > M maximum", or
//! 413): the withheld error's answer, then surfacing it.
//!
//! 1. (Seed 004's first answer, draining context collapse's staged collapses
//!    with `Transition::CollapseDrainRetry`, does not exist in tack: there is
//!    no context collapse.)
//! 2. **Reactive compaction** ([`Transition::ReactiveCompactRetry`]): summarise
//!    the conversation (the same summarisation as autocompact) and retry — at
//!    most once per turn: `has_attempted_reactive_compact` stays set until the
//!    next `NextTurn`, so a retried request that is still too long ends the loop.
//! 3. Otherwise `Terminal::PromptTooLong`, whose message tells the user to
//!    `/compact` or `/clear`.

use tokio_util::sync::CancellationToken;

use crate::compact::{CompactTrigger, CompactedEvent, SummarySettings, compact_history};
use crate::deps::QueryDeps;
use crate::query::state::{State, Transition};

/// Compacts once per turn. Returns the next state and the compact
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
