//! The server's clients: each one's frames go out through a writer task of
//! its own, so a client that reads slowly holds up nobody else.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::AsyncWriteExt;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::mpsc;

use super::{BACKLOG, Frame};
use crate::protocol::op::OpId;

/// One attached client.
pub(super) struct Peer {
    id: u64,
    frames: mpsc::UnboundedSender<Arc<[u8]>>,
    /// Bytes sent to the writer and not yet written.
    unread: Arc<AtomicUsize>,
    writer: tokio::task::JoinHandle<()>,
}

impl Peer {
    /// A client writing to `out`; its writer ends when the peer is dropped
    /// (the connection then closes) or the client goes away.
    pub(super) fn start(id: u64, out: OwnedWriteHalf) -> Peer {
        let (frames, rx) = mpsc::unbounded_channel();
        let unread = Arc::new(AtomicUsize::new(0));
        let writer = tokio::spawn(write_frames(out, rx, unread.clone()));
        Peer {
            id,
            frames,
            unread,
            writer,
        }
    }

    /// Queues `line`; `false`: the client is gone, or more than `backlog`
    /// bytes behind.
    fn send(&self, line: &Arc<[u8]>, backlog: usize) -> bool {
        let unread = self.unread.fetch_add(line.len(), Ordering::Relaxed) + line.len();
        unread <= backlog && self.frames.send(line.clone()).is_ok()
    }
}

async fn write_frames(
    mut out: OwnedWriteHalf,
    mut frames: mpsc::UnboundedReceiver<Arc<[u8]>>,
    unread: Arc<AtomicUsize>,
) {
    while let Some(line) = frames.recv().await {
        if out.write_all(&line).await.is_err() {
            return;
        }
        unread.fetch_sub(line.len(), Ordering::Relaxed);
    }
}

/// Every attached client, in the order they came.
pub(super) struct Peers {
    peers: Vec<Peer>,
    /// What a client may leave unread ([`BACKLOG`]).
    backlog: usize,
}

impl Default for Peers {
    fn default() -> Peers {
        Peers {
            peers: Vec::new(),
            backlog: BACKLOG,
        }
    }
}

impl Peers {
    /// Attaches `peer`, `first` its first frame.
    pub(super) fn add(&mut self, peer: Peer, first: &Frame) {
        if let Some(line) = line(first)
            && peer.send(&line, self.backlog)
        {
            self.peers.push(peer);
        }
    }

    /// Lets every client go once what was sent to it is written, waiting
    /// no longer than `grace` for clients that do not read.
    pub(super) async fn close(self, grace: std::time::Duration) {
        let writers = self.peers.into_iter().map(|peer| peer.writer);
        let _ = tokio::time::timeout(grace, futures::future::join_all(writers)).await;
    }

    pub(super) fn has(&self, id: u64) -> bool {
        self.peers.iter().any(|p| p.id == id)
    }

    pub(super) fn remove(&mut self, id: u64) {
        self.peers.retain(|p| p.id != id);
    }

    pub(super) fn send_to(&mut self, id: u64, frame: &Frame) {
        self.send_where(frame, |p| p == id);
    }

    pub(super) fn send_others(&mut self, id: u64, frame: &Frame) {
        self.send_where(frame, |p| p != id);
    }

    pub(super) fn send_all(&mut self, frame: &Frame) {
        self.send_where(frame, |_| true);
    }

    /// Sends `frame` to the clients `to` picks, serialised once; a client
    /// that cannot take it is let go.
    fn send_where(&mut self, frame: &Frame, to: impl Fn(u64) -> bool) {
        if !self.peers.iter().any(|p| to(p.id)) {
            return;
        }
        let Some(line) = line(frame) else { return };
        let backlog = self.backlog;
        self.peers.retain(|p| !to(p.id) || p.send(&line, backlog));
    }
}

/// `frame` as one line; `None` if it cannot be written (never for frames
/// built from events, which are plain data).
fn line(frame: &Frame) -> Option<Arc<[u8]>> {
    let mut line = serde_json::to_vec(frame).ok()?;
    line.push(b'\n');
    Some(line.into())
}

/// The id a client's op goes to the session under: the client's own id
/// would clash with another client's.
pub(super) fn wire_id(peer: u64, id: &OpId) -> OpId {
    OpId(format!("{peer}/{}", id.0))
}

/// The client and its own id, from an op's id at the session; `None` for
/// an id no client chose.
pub(super) fn from_wire_id(id: &OpId) -> Option<(u64, OpId)> {
    let (peer, own) = id.0.split_once('/')?;
    Some((peer.parse().ok()?, OpId(own.to_owned())))
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;
    use tokio::net::UnixStream;

    use super::*;
    use crate::event::RuntimeEvent;

    #[tokio::test]
    async fn a_client_that_stops_reading_is_let_go_and_holds_nobody_up() {
        let mut peers = Peers {
            peers: Vec::new(),
            backlog: 1 << 20,
        };
        let (stuck, _never_read) = UnixStream::pair().unwrap();
        let (reading, mut reader) = UnixStream::pair().unwrap();
        let hello = Frame::Invalid {
            error: "hello".into(),
        };
        peers.add(Peer::start(1, stuck.into_split().1), &hello);
        peers.add(Peer::start(2, reading.into_split().1), &hello);
        let counted = tokio::spawn(async move {
            let mut all = Vec::new();
            reader.read_to_end(&mut all).await.unwrap();
            all.iter().filter(|&&b| b == b'\n').count()
        });
        let big = Frame::Event(RuntimeEvent::Notice(crate::event::Notice {
            level: crate::event::NoticeLevel::Info,
            text: "x".repeat(64 << 10),
        }));
        for _ in 0..64 {
            peers.send_all(&big);
            tokio::task::yield_now().await;
        }
        assert_eq!((peers.has(1), peers.has(2)), (false, true));
        peers.close(std::time::Duration::from_secs(10)).await;
        assert_eq!(counted.await.unwrap(), 65, "the reader got every line");
    }

    #[test]
    fn a_clients_op_id_goes_and_comes_back_whole() {
        let own = OpId("c/7".into());
        assert_eq!(from_wire_id(&wire_id(12, &own)), Some((12, own)));
        assert_eq!(from_wire_id(&OpId("op-3".into())), None);
        assert_eq!(from_wire_id(&OpId("x/op-3".into())), None);
    }
}
