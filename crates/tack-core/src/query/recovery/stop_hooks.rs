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
//!   `stop_hook_active` set. As in Claude Code the hook sees that flag and must
//!   not block again because of it; a hook that ignores it is still bounded by
//!   `max_turns`.
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

/// The hooks of a session the loop calls itself (each event's hooks behind one call).
pub trait LoopHooks: Send + Sync {
    /// The Stop hooks, at an exit point.
    fn run<'a>(&'a self, input: StopHookInput<'a>) -> BoxFuture<'a, StopHookOutcome>;

    /// PreCompact, before an automatic compaction. `Err(reason)` skips this
    /// compaction (reported as `LoopEvent::CompactFailed`, not counted toward the
    /// circuit breaker, since nothing failed). Manual `/compact` runs its PreCompact
    /// hooks in the caller, which can simply not call `Session::compact`.
    fn pre_compact(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async { Ok(()) })
    }
}

/// The user message carrying a blocking hook's reason.
pub fn blocking_message(reason: &str) -> Message {
    Message::user_text(format!("Stop hook feedback:\n{reason}"))
}
