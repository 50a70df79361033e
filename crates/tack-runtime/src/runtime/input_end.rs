//! Background agents' ends and other arrivals that wake an idle session, the
//! end of input ([`crate::Command::EndInput`]) and how long the session then
//! waits for those agents.
//!
//! After the last prompt, the session stays to let every background agent end
//! and run the turn its end wakes (Claude Code's `-p` awaits them). A front end
//! may cap that wait (`-p`: `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`, 10 minutes
//! by default); the cap counts from the first moment the session has nothing
//! to do but wait, so a long first turn does not eat into it.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use super::{Driver, Work};
use crate::agents::Woken;
use crate::event::{RuntimeEvent, TurnEnd};
use crate::protocol::op::{TurnOptions, UserInput};

/// Whether input has ended, and the wait for background agents after it.
#[derive(Debug, Default)]
pub(super) struct InputEnd {
    ended: bool,
    ceiling: Option<Duration>,
    deadline: Option<Instant>,
    /// Some work has been taken from the queue.
    pub(super) worked: bool,
    /// After `EndInput`, a turn's result held while a background agent's end
    /// is owed (as Claude Code holds it): out when that end comes.
    pub(super) held: Option<Box<TurnEnd>>,
}

impl InputEnd {
    /// `EndInput` came; `ceiling` caps the wait for background agents.
    pub(super) fn end(&mut self, ceiling: Option<Duration>) {
        self.ended = true;
        self.ceiling = ceiling;
    }

    pub(super) fn ended(&self) -> bool {
        self.ended
    }

    /// Completes when the session has waited its ceiling for `owed`
    /// background agents' ends; never when nothing is owed, input has not
    /// ended or there is no ceiling. Called each time the session goes idle.
    pub(super) fn wait_over(&mut self, owed: usize) -> impl Future<Output = Duration> + use<> {
        let armed = match (self.ended && owed > 0, self.ceiling) {
            (true, Some(ceiling)) => {
                let deadline = *self
                    .deadline
                    .get_or_insert_with(|| Instant::now() + ceiling);
                Some((deadline, ceiling))
            }
            _ => None,
        };
        async move {
            match armed {
                Some((deadline, ceiling)) => {
                    tokio::time::sleep_until(deadline).await;
                    ceiling
                }
                None => std::future::pending().await,
            }
        }
    }
}

impl Driver {
    /// A background agent ended: one owed end fewer, and the model hears of
    /// it in a turn of its own unless it was stopped.
    pub(super) fn woken(&mut self, woken: Woken) {
        self.release_held_end();
        self.services
            .woken
            .1
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        if woken.status != "stopped" {
            let input = UserInput {
                message: woken.message(),
                uuid: None,
                origin: None,
                verbatim: false,
            };
            self.queue
                .push_back(Work::Turn(input, TurnOptions::default()));
        }
    }

    /// Messages arrived from outside the conversation while the session is
    /// idle: one turn, a text block each (nothing when a wake found none,
    /// e.g. an [`tack_tool::Expecting`] guard ended). Delivered as written:
    /// no `@` mention or slash command runs from a relayed text.
    pub(super) fn arrived(&mut self) {
        self.release_held_end();
        let arrived = self.services.arrivals.take_all();
        if arrived.is_empty() {
            return;
        }
        let blocks = arrived
            .into_iter()
            .map(|a| tack_protocol::ContentBlock::text(a.text))
            .collect();
        let input = UserInput {
            message: tack_protocol::Message::user(blocks),
            uuid: None,
            origin: None,
            verbatim: true,
        };
        self.queue
            .push_back(Work::Turn(input, TurnOptions::default()));
    }

    pub(super) fn release_held_end(&mut self) {
        if let Some(end) = self.input_end.held.take() {
            self.emit.emit(RuntimeEvent::TurnEnded(end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_wait_is_capped_from_the_first_idle_moment() {
        let mut end = InputEnd::default();
        end.end(Some(Duration::from_secs(5)));
        let start = Instant::now();
        tokio::time::advance(Duration::from_secs(3)).await;
        // First idle moment with an agent owed: the ceiling starts now.
        let first = end.wait_over(1);
        drop(first);
        tokio::time::advance(Duration::from_secs(2)).await;
        // Later idle moments keep the first deadline.
        let waited = end.wait_over(1).await;
        assert_eq!(
            (waited, Instant::now() - start),
            (Duration::from_secs(5), Duration::from_secs(8))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn no_cap_without_an_agent_owed_an_end_of_input_or_a_ceiling() {
        let mut capped = InputEnd::default();
        capped.end(Some(Duration::from_secs(1)));
        let mut uncapped = InputEnd::default();
        uncapped.end(None);
        let mut open = InputEnd::default();
        let never = async {
            tokio::select! {
                _ = capped.wait_over(0) => "nothing owed",
                _ = uncapped.wait_over(1) => "no ceiling",
                _ = open.wait_over(1) => "input open",
                () = tokio::time::sleep(Duration::from_secs(3600)) => "none",
            }
        };
        assert_eq!(never.await, "none");
    }
}
