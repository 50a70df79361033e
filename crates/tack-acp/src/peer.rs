//! What the protocol crate leaves to tack: the connection's name in tack's
//! code, ACP over tokio's stdin / stdout as the crate's [`Lines`]
//! transport (the crate's own `Stdio` wants the `blocking` thread pool;
//! tack already runs tokio), error answers with tack's message, and
//! `session/update` sent from the translation's JSON.

use agent_client_protocol::v1::schema::{SessionId, SessionNotification, SessionUpdate};
use agent_client_protocol::{Error, ErrorCode, Lines};
use futures::{Sink, Stream};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The agent's connection to its client (the editor): cheap to clone,
/// usable from any task that is not the crate's dispatch loop.
pub type Peer = agent_client_protocol::v1::ConnectionTo<agent_client_protocol::Client>;

/// ACP's transport on `input` / `output`: one JSON-RPC message a line.
pub fn lines(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> Lines<
    impl Sink<String, Error = std::io::Error> + Send + 'static,
    impl Stream<Item = std::io::Result<String>> + Send + 'static,
> {
    let incoming = futures::stream::unfold(BufReader::new(input).lines(), |mut lines| async {
        match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(e) => Some((Err(e), lines)),
        }
    });
    let outgoing = futures::sink::unfold(output, |mut out, mut line: String| async move {
        line.push('\n');
        out.write_all(line.as_bytes()).await?;
        out.flush().await?;
        Ok::<_, std::io::Error>(out)
    });
    Lines::new(Box::pin(outgoing), Box::pin(incoming))
}

pub fn invalid_params(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message)
}

pub fn internal(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INTERNAL_ERROR, message)
}

/// Sends `update` (a `SessionUpdate` as JSON, as the translation builds
/// it) for session `id`. One the schema does not take is tack's bug: it is
/// said on stderr and not sent. A closed connection has nobody to tell.
pub fn notify(peer: &Peer, id: &str, update: Value) {
    match serde_json::from_value::<SessionUpdate>(update) {
        Ok(update) => {
            let _ = peer.send_notification(SessionNotification::new(SessionId::new(id), update));
        }
        Err(e) => eprintln!("tack acp: an update the schema refuses: {e}"),
    }
}

/// Sends a typed update for session `id`.
pub fn send(peer: &Peer, id: &str, update: SessionUpdate) {
    let _ = peer.send_notification(SessionNotification::new(SessionId::new(id), update));
}
