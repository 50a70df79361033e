//! The client side of a served session: [`SessionClient`] (ops out, frames
//! in) and [`attach`], which makes it the pair a front end drives an
//! in-process session with.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;

use super::{Attached, Frame};
use crate::event::RuntimeEvent;
use crate::handle::{Answers, Envelope, Responder, RuntimeHandle};
use crate::protocol::op::{Op, OpId, Submission};
use crate::runtime::RuntimeEvents;

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

/// A session served elsewhere, attached: drive it as one in this process.
pub struct Remote {
    /// Ops (answers included) go over the connection; replies come back.
    pub handle: RuntimeHandle,
    /// The session's events from the moment of attaching. They end when
    /// the connection closes ([`RuntimeEvent::Ended`] first if the session
    /// itself ended).
    pub events: RuntimeEvents,
    /// What the server said on attaching.
    pub attached: Attached,
}

/// Attaches to the session served at `path`. Dropping every clone of the
/// handle and the events detaches, and the session goes on; `Op::EndInput`
/// would end its input for every client.
pub async fn attach(path: &Path) -> io::Result<Remote> {
    let mut client = SessionClient::connect(path).await?;
    let attached = match client.next().await? {
        Some(Frame::Attached(attached)) => *attached,
        Some(_) => {
            let error = "the server did not start with `attached`";
            return Err(io::Error::new(io::ErrorKind::InvalidData, error));
        }
        None => return Err(io::ErrorKind::UnexpectedEof.into()),
    };
    let (ops, envelopes) = mpsc::unbounded_channel();
    let (events_tx, events) = mpsc::unbounded_channel();
    let answers = Answers::remote(ops.clone());
    let handle = RuntimeHandle {
        tx: ops,
        asks: answers.clone(),
        events: events_tx.downgrade(),
        next_id: Arc::new(AtomicU64::new(0)),
    };
    tokio::spawn(relay(client, envelopes, events_tx));
    Ok(Remote {
        handle,
        events: RuntimeEvents::new(events, answers),
        attached,
    })
}

/// Sends the handle's ops over the connection and brings their replies
/// back to whoever waits for them; every other event goes to `events`.
/// Ends when the connection closes or nothing can send ops any more.
async fn relay(
    mut client: SessionClient,
    mut envelopes: mpsc::UnboundedReceiver<Envelope>,
    events: mpsc::UnboundedSender<RuntimeEvent>,
) {
    let mut waiting: HashMap<OpId, Responder> = HashMap::new();
    loop {
        tokio::select! {
            envelope = envelopes.recv() => {
                let Some(Envelope { op, reply }) = envelope else { return };
                let Ok(id) = client.send(op).await else { return };
                waiting.insert(id, reply);
            }
            frame = client.next() => match frame {
                Ok(Some(Frame::Event(RuntimeEvent::Reply { id, reply }))) => {
                    if let Some(waiter) = waiting.remove(&id) {
                        waiter.send(*reply);
                    }
                }
                Ok(Some(Frame::Event(event))) => {
                    // Nobody reads events any more: ops may still come.
                    let _ = events.send(event);
                }
                // Only our own lines are refused, and we write only ops.
                Ok(Some(Frame::Attached(_) | Frame::Invalid { .. })) => {}
                Ok(None) | Err(_) => return,
            },
        }
    }
}
