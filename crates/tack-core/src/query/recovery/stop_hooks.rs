//! The loop's hook seams: Stop hooks, and PreCompact before an automatic
//! compaction. The hooks crate plugs in here (through the CLI).
//!
//! Stop hooks run once per exit
//! point — when an iteration ends without tool use and no other recovery
//! continued — with `stop_hook_active` telling them whether the model is
//! already answering an earlier block.
//!
//! - `Pass`: the loop completes (or a token-budget continuation may follow).
//! - `Block { reason }`: the reason is appended as a user message and the loop
//!   continues ([`Transition::StopHookBlocking`](crate::query::Transition)) with
//!   `stop_hook_active` set. The hook sees that flag; if it blocks again while
//!   it is set, the loop does not obey and completes: at most one continuation
//!   per exit point, enforced here (`query::continue_decision`) for every
//!   front end.
//! - `Prevent { reason }`: the loop ends with `Terminal::StopHookPrevented`.

use futures::future::BoxFuture;
use tack_protocol::Message;

/// What the Stop hooks are given.
#[derive(Debug, Clone, Copy)]
pub struct StopHookInput<'a> {
    /// The conversation, ending with the final assistant message.
    pub messages: &'a [Message],
    /// A Stop hook's block is being answered (Claude Code's `stop_hook_active`).
    pub stop_hook_active: bool,
}

/// What the Stop hooks decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopHookOutcome {
    Pass,
    /// Continue: `reason` goes to the model.
    Block {
        reason: String,
    },
    /// Stop the turn.
    Prevent {
        reason: String,
    },
}

/// The hooks of a session the loop calls itself. Each method stands alone and
/// defaults to "no hook": an implementation installed for one event never
/// changes what the loop does at another.
pub trait LoopHooks: Send + Sync {
    /// The Stop hooks, at an exit point.
    fn stop<'a>(&'a self, input: StopHookInput<'a>) -> BoxFuture<'a, StopHookOutcome> {
        let _ = input;
        Box::pin(std::future::ready(StopHookOutcome::Pass))
    }

    /// PreCompact, before an automatic compaction. `Err(reason)` skips this
    /// compaction (reported as `LoopEvent::CompactFailed`, not counted toward the
    /// circuit breaker, since nothing failed). Manual `/compact` runs its PreCompact
    /// hooks in the caller, which can simply not call `Session::compact`.
    fn pre_compact(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(std::future::ready(Ok(())))
    }
}

/// The user message carrying a blocking hook's reason.
pub fn blocking_message(reason: &str) -> Message {
    Message::user_text(format!("Stop hook feedback:\n{reason}"))
}
