//! A session served across a process boundary: the session protocol
//! ([`crate::protocol`]) as one JSON object a line, over a Unix socket (or
//! any byte stream).
//!
//! The session runs in the serving process; a client attaches, drives it
//! and detaches, and the session does not notice:
//! - a client sends [`Submission`] lines; the server answers with
//!   [`Frame`] lines: first [`Frame::Attached`] (the session's `system/init`
//!   information, its state, and every ask still open, so a question asked
//!   while nobody was attached is asked again), then every event as it
//!   comes ([`Frame::Event`]), replies to its ops included;
//! - one client is attached at a time: a new connection takes over (the
//!   older one is closed), as `tmux attach -d` does;
//! - while nobody is attached, events are not kept (the conversation is
//!   `Op::Conversation` away) but asks are: they wait for the next client;
//! - a line that is not a submission is refused with [`Frame::Invalid`]
//!   and the connection goes on;
//! - the server returns after the session's last event
//!   ([`RuntimeEvent::Ended`]), which an attached client receives.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

use crate::event::{RuntimeEvent, SessionInfo};
use crate::handle::RuntimeHandle;
use crate::protocol::ask::AskId;
use crate::protocol::op::{Op, OpId, Submission};
use crate::protocol::reply::SessionState;
use crate::runtime::RuntimeEvents;

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
}

/// What the server keeps of the event stream for the next client.
#[derive(Debug, Default)]
struct Kept {
    info: Option<SessionInfo>,
    state: Option<SessionState>,
    asks: BTreeMap<AskId, RuntimeEvent>,
}

impl Kept {
    fn observe(&mut self, event: &RuntimeEvent) {
        match event {
            RuntimeEvent::Started(info) => self.info = Some((**info).clone()),
            RuntimeEvent::SessionState(state) => self.state = Some(*state),
            RuntimeEvent::PermissionRequest(r) => {
                self.asks.insert(r.id, event.clone());
            }
            RuntimeEvent::HookCallback(c) => {
                self.asks.insert(c.id, event.clone());
            }
            RuntimeEvent::AskWithdrawn { id } => {
                self.asks.remove(id);
            }
            RuntimeEvent::ConversationReset(reset) => {
                if let Some(info) = &mut self.info {
                    info.session_id.clone_from(&reset.new_session_id);
                }
            }
            _ => {}
        }
    }

    fn attached(&self) -> Frame {
        Frame::Attached(Box::new(Attached {
            info: self.info.clone(),
            state: self.state,
            asks: self.asks.values().cloned().collect(),
        }))
    }
}

/// The attached client: its id, and where its frames go.
struct Client {
    id: u64,
    out: OwnedWriteHalf,
}

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
    let mut client: Option<Client> = None;
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
                let mut attached = Client { id: connections, out };
                // The older client, if any, is detached by closing it.
                client = match send(&mut attached, &kept.attached()).await {
                    Ok(()) => Some(attached),
                    Err(_) => client,
                };
            }
            Some((id, line)) = lines.recv() => {
                if client.as_ref().is_none_or(|c| c.id != id) {
                    continue;
                }
                let Some(line) = line else {
                    client = None;
                    continue;
                };
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Submission>(&line) {
                    Ok(submission) => {
                        if let Op::Answer { ask, .. } = &submission.op {
                            kept.asks.remove(ask);
                        }
                        let Some(handle) = &handle else { continue };
                        if handle.submit_op(submission).is_err() {
                            // The session's input is gone; its end is coming.
                            continue;
                        }
                    }
                    Err(e) => {
                        let frame = Frame::Invalid { error: e.to_string() };
                        if let Some(c) = &mut client && send(c, &frame).await.is_err() {
                            client = None;
                        }
                    }
                }
            }
            () = &mut stop, if handle.is_some() => {
                if let Some(handle) = handle.take() {
                    drop(handle.interrupt());
                    let _ = handle.end_input(Some(std::time::Duration::ZERO));
                }
            }
            event = events.next() => {
                let Some(event) = event else { return Ok(()) };
                kept.observe(&event);
                observe(&event, kept.asks.len());
                let last = matches!(event, RuntimeEvent::Ended);
                if let Some(c) = &mut client && send(c, &Frame::Event(event)).await.is_err() {
                    client = None;
                }
                if last {
                    return Ok(());
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

async fn send(client: &mut Client, frame: &Frame) -> io::Result<()> {
    let mut line = serde_json::to_vec(frame).map_err(io::Error::other)?;
    line.push(b'\n');
    client.out.write_all(&line).await
}

/// A client of a served session: sends ops, reads frames.
pub struct SessionClient {
    lines: tokio::io::Lines<BufReader<OwnedReadHalf>>,
    out: OwnedWriteHalf,
    next_id: u64,
}

impl SessionClient {
    /// Attaches to the session served at `path`.
    pub async fn connect(path: &Path) -> io::Result<SessionClient> {
        let (read, out) = UnixStream::connect(path).await?.into_split();
        Ok(SessionClient {
            lines: BufReader::new(read).lines(),
            out,
            next_id: 0,
        })
    }

    /// Sends `op`; its reply (if any) will carry the id returned.
    pub async fn send(&mut self, op: Op) -> io::Result<OpId> {
        self.next_id += 1;
        let id = OpId(format!("c{}", self.next_id));
        let submission = Submission { id: id.clone(), op };
        let mut line = serde_json::to_vec(&submission).map_err(io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line).await?;
        Ok(id)
    }

    /// The next frame; `None` once the server has closed the connection.
    pub async fn next(&mut self) -> io::Result<Option<Frame>> {
        match self.lines.next_line().await? {
            Some(line) => serde_json::from_str(&line)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
            None => Ok(None),
        }
    }
}
