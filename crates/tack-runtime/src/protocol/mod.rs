//! The session protocol: the one vocabulary every front end speaks.
//!
//! A session is driven by [`Op`]s in and [`RuntimeEvent`]s out, and nothing
//! else. Every type here is plain data (`Serialize + Deserialize`, no
//! channels), so the same values drive a session in-process (the terminal
//! UI, `-p`, the Agent SDK front end, a sub-agent) and across a process
//! boundary ([`crate::serve`]: a Unix socket, or any byte stream, one JSON
//! object a line).
//!
//! - An operation goes in as a [`Submission`]: the op and an [`OpId`] the
//!   front end picks. An op that has an answer (an interrupt, a snapshot, a
//!   mode change) is answered by one [`RuntimeEvent::Reply`] carrying that id;
//!   the others (a prompt, an append, a compaction) show their effect as the
//!   events of the work they queue.
//! - Whatever the runtime asks a front end (a tool permission, a network
//!   destination, a client hook callback) is an event with an [`AskId`]; the
//!   answer is [`Op::Answer`] carrying that id. An ask nobody can answer any
//!   more (the turn was interrupted, the hook's timeout passed) is withdrawn
//!   with [`RuntimeEvent::AskWithdrawn`]. A front end that goes away leaves
//!   its asks waiting for the next one to attach.
//! - Errors and states are enums a front end matches on.
//!
//! [`RuntimeEvent`]: crate::event::RuntimeEvent
//! [`RuntimeEvent::Reply`]: crate::event::RuntimeEvent::Reply
//! [`RuntimeEvent::AskWithdrawn`]: crate::event::RuntimeEvent::AskWithdrawn

pub mod ask;
pub mod op;
pub mod reply;

#[cfg(test)]
mod tests;
