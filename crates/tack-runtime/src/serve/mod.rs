//! A session served across a process boundary: the session protocol
//! ([`crate::protocol`]) as one JSON object a line, over a Unix socket (or
//! any byte stream).
//!
//! The session runs in the serving process; clients attach, drive it and
//! detach, and the session does not notice:
//! - a client sends [`Submission`] lines; the server answers with
//!   [`Frame`] lines: first [`Frame::Attached`] (the session's `system/init`
//!   information, its state, every ask still open, so a question asked
//!   while nobody was attached is asked again, and the live work's events
//!   that the transcript does not hold yet), then every event as it comes
//!   ([`Frame::Event`]);
//! - any number of clients attach at once: each gets every event; a reply
//!   goes only to the client whose op it answers, under that client's op id;
//!   an ask one client answers is withdrawn at the others
//!   ([`RuntimeEvent::AskWithdrawn`]); a prompt one client submits reaches
//!   the others as [`RuntimeEvent::Input`];
//! - the conversation so far is the session's transcript (every message an
//!   event carries is on disk before the event): a client that attaches
//!   reads it, then [`Attached::turn`], then the live events;
//! - a client that stops reading is let go once [`BACKLOG`] bytes wait for
//!   it, so it never holds the session or the other clients up;
//! - a line that is not a submission is refused with [`Frame::Invalid`]
//!   and the connection goes on;
//! - the server returns after the session's last event
//!   ([`RuntimeEvent::Ended`]), which attached clients receive.
//!
//! [`attach`] is the client side as a [`RuntimeHandle`] and
//! [`RuntimeEvents`], the pair a front end drives an in-process session
//! with.

mod client;
mod kept;
mod peer;

pub use client::{Remote, SessionClient, attach};

use std::collections::HashMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::UnixListener;
use tokio::net::unix::OwnedReadHalf;
use tokio::sync::mpsc;

use crate::event::{RuntimeEvent, SessionInfo};
use crate::handle::RuntimeHandle;
use crate::protocol::ask::AskId;
use crate::protocol::op::{Op, OpId, Submission};
use crate::protocol::reply::{Reply, SessionState};
use crate::runtime::RuntimeEvents;
use kept::Kept;
use peer::{Peer, Peers};

/// A line from the server.
// Every frame is written once, at once: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Frame {
    /// The first line to each client.
    Attached(Box<Attached>),
    Event(RuntimeEvent),
    /// The client's line was not a submission; nothing was done.
    Invalid {
        error: String,
    },
}

/// What a client learns on attaching.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attached {
    /// `None` until the session has started its first piece of work.
    pub info: Option<SessionInfo>,
    pub state: Option<SessionState>,
    /// Every ask still waiting for an answer, oldest first.
    pub asks: Vec<RuntimeEvent>,
    /// The events of the work running now that no transcript record holds
    /// yet (the response streaming, tools' progress, notices, hooks,
    /// another client's prompt not yet sent), in order; empty when idle.
    /// Asks are in `asks`, not here.
    #[serde(default)]
    pub turn: Vec<RuntimeEvent>,
}

/// The bytes a client may leave unread before it is let go.
pub const BACKLOG: usize = 64 << 20;

/// How long the server's end waits for clients to take their last frames.
const FAREWELL: std::time::Duration = std::time::Duration::from_secs(2);

/// Serves the session `(handle, events)` on `listener` until it ends.
pub async fn serve(
    listener: UnixListener,
    handle: RuntimeHandle,
    events: RuntimeEvents,
) -> io::Result<()> {
    serve_observed(listener, handle, events, std::future::pending(), |_, _| {}).await
}

/// [`serve`], with `observe` shown every event, attached client or not,
/// with the number of asks still open after it (answered ones are closed):
/// a background session keeps its job's state from them. Once `stop` is
/// ready the session is stopped: its turn interrupted, its input ended and
/// the server's handle let go (so even a session that never worked ends);
/// clients' ops are then refused, and the server returns after the end.
pub async fn serve_observed(
    listener: UnixListener,
    handle: RuntimeHandle,
    mut events: RuntimeEvents,
    stop: impl std::future::Future<Output = ()>,
    mut observe: impl FnMut(&RuntimeEvent, usize),
) -> io::Result<()> {
    let mut handle = Some(handle);
    let mut stop = std::pin::pin!(stop);
    let mut kept = Kept::default();
    let mut peers = Peers::default();
    // Answers on their way to the session: the op's id there → the ask.
    let mut answering: HashMap<OpId, AskId> = HashMap::new();
    let mut connections = 0u64;
    // Lines from every connection's reader, by connection (`None`: it closed).
    let (lines_tx, mut lines) = mpsc::unbounded_channel::<(u64, Option<String>)>();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                connections += 1;
                let (read, out) = stream.into_split();
                tokio::spawn(read_lines(connections, read, lines_tx.clone()));
                peers.add(Peer::start(connections, out), &Frame::Attached(Box::new(kept.attached())));
            }
            Some((peer, line)) = lines.recv() => {
                let Some(line) = line else {
                    peers.remove(peer);
                    continue;
                };
                if !peers.has(peer) || line.trim().is_empty() {
                    continue;
                }
                let Submission { id, op } = match serde_json::from_str::<Submission>(&line) {
                    Ok(submission) => submission,
                    Err(e) => {
                        peers.send_to(peer, &Frame::Invalid { error: e.to_string() });
                        continue;
                    }
                };
                let Some(handle) = &handle else { continue };
                let id = peer::wire_id(peer, &id);
                match &op {
                    Op::Answer { ask, .. } => {
                        answering.insert(id.clone(), *ask);
                    }
                    Op::Submit(input) => {
                        let input = RuntimeEvent::Input(Box::new(input.clone()));
                        kept.observe(&input);
                        peers.send_others(peer, &Frame::Event(input));
                    }
                    _ => {}
                }
                // Refused: the session's input is gone; its end is coming.
                let _ = handle.submit_op(Submission { id, op });
            }
            () = &mut stop, if handle.is_some() => {
                if let Some(handle) = handle.take() {
                    drop(handle.interrupt());
                    let _ = handle.end_input(Some(std::time::Duration::ZERO));
                }
            }
            event = events.next() => {
                let Some(event) = event else { return Ok(()) };
                // An answer the session took closes its ask for everyone.
                let answered = match &event {
                    RuntimeEvent::Reply { id, reply } => answering
                        .remove(id)
                        .filter(|_| matches!(**reply, Reply::Answered(Ok(())))),
                    _ => None,
                };
                if let Some(ask) = answered {
                    kept.asks.remove(&ask);
                }
                kept.observe(&event);
                observe(&event, kept.asks.len());
                match event {
                    RuntimeEvent::Reply { id, reply } => {
                        let Some((peer, id)) = peer::from_wire_id(&id) else { continue };
                        if let Some(ask) = answered {
                            let withdrawn = RuntimeEvent::AskWithdrawn { id: ask };
                            peers.send_others(peer, &Frame::Event(withdrawn));
                        }
                        peers.send_to(peer, &Frame::Event(RuntimeEvent::Reply { id, reply }));
                    }
                    event => {
                        let last = matches!(event, RuntimeEvent::Ended);
                        peers.send_all(&Frame::Event(event));
                        if last {
                            peers.close(FAREWELL).await;
                            return Ok(());
                        }
                    }
                }
            }
        }
    }
}

/// Binds `path` for [`serve`], readable and writable by the user alone.
pub fn bind(path: &Path) -> io::Result<UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

async fn read_lines(
    id: u64,
    read: OwnedReadHalf,
    to: mpsc::UnboundedSender<(u64, Option<String>)>,
) {
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if to.send((id, Some(line))).is_err() {
            return;
        }
    }
    let _ = to.send((id, None));
}
