//! Monitor's `ws`: a WebSocket's frames become events as a command's lines
//! do.
//!
//! - A text frame is lines: each line of it is one line of the monitor (a
//!   multi-line frame gives several, batched together as a command's are;
//!   whether Claude Code makes one event per frame is unconfirmed).
//! - A binary frame is said as `<binary frame, N bytes>`.
//! - A close frame ends the monitor with its code and reason; so does the
//!   connection ending or failing. Pings are answered by the library.
//!
//! tack opens the stream itself (TCP with `TCP_NODELAY`, directly or through
//! a CONNECT tunnel as the sandbox or the proxy variables say: `tunnel.rs`;
//! TLS for `wss:` with the session's rustls configuration, the one the API
//! client uses) and hands it to `tokio-tungstenite` for the handshake and
//! the frames.

use std::sync::Arc;

use futures::StreamExt;
use tack_sandbox::Sandbox;
use tack_tool::ToolError;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::bg_tasks::TaskEnd;
use crate::tunnel::ProxyVars;

/// The host a `ws:` / `wss:` URL names (what permission rules and the
/// sandbox's domain list judge), or why it names none.
pub fn ws_host(url: &str) -> Result<String, String> {
    let request = url
        .into_client_request()
        .map_err(|e| format!("`ws` must be a ws:// or wss:// URL: {e}"))?;
    match (request.uri().scheme_str(), request.uri().host()) {
        (Some("ws" | "wss"), Some(host)) => Ok(host.trim_matches(['[', ']']).to_lowercase()),
        _ => Err(format!(
            "`ws` must be a ws:// or wss:// URL with a host, not {url}"
        )),
    }
}

/// A connected WebSocket, read on its own task: its lines go to `lines`,
/// and the task ends with why the socket ended. The connection goes as the
/// session's connections go (`tunnel.rs`: the sandbox's way out, else the
/// environment's proxy, else direct).
pub(crate) async fn connect(
    url: &str,
    tls: Option<&Arc<rustls::ClientConfig>>,
    reach: (Option<&Sandbox>, &ProxyVars),
    lines: mpsc::UnboundedSender<String>,
) -> Result<tokio::task::JoinHandle<(String, TaskEnd)>, ToolError> {
    let fail = |why: String| ToolError::new(format!("Could not connect to {url}: {why}"));
    let request = url.into_client_request().map_err(|e| fail(e.to_string()))?;
    let host = ws_host(url).map_err(ToolError::new)?;
    let secure = request.uri().scheme_str() == Some("wss");
    let port = (request.uri().port_u16()).unwrap_or(if secure { 443 } else { 80 });
    let (sandbox, vars) = reach;
    let dest = crate::tunnel::Dest {
        host: &host,
        port,
        secure,
    };
    let stream = crate::tunnel::open(sandbox, vars, tls, dest)
        .await
        .map_err(fail)?;
    if !secure {
        let (ws, _) = tokio_tungstenite::client_async(request, stream)
            .await
            .map_err(|e| fail(e.to_string()))?;
        return Ok(tokio::spawn(read_frames(ws, lines)));
    }
    let config = tls.ok_or_else(|| fail("this session has no TLS configuration".into()))?;
    let mut config = rustls::ClientConfig::clone(config);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let name = rustls::pki_types::ServerName::try_from(host).map_err(|e| fail(e.to_string()))?;
    let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, stream)
        .await
        .map_err(|e| fail(e.to_string()))?;
    let (ws, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .map_err(|e| fail(e.to_string()))?;
    Ok(tokio::spawn(read_frames(ws, lines)))
}

/// Sends each frame's lines until the socket closes; returns the note the
/// model is told and how the task ended.
async fn read_frames<S>(
    mut ws: tokio_tungstenite::WebSocketStream<S>,
    lines: mpsc::UnboundedSender<String>,
) -> (String, TaskEnd)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    while let Some(frame) = ws.next().await {
        let sent = match frame {
            Ok(Message::Text(text)) => text
                .as_str()
                .lines()
                .all(|line| lines.send(line.to_owned()).is_ok()),
            Ok(Message::Binary(bytes)) => lines
                .send(format!("<binary frame, {} bytes>", bytes.len()))
                .is_ok(),
            Ok(Message::Close(Some(close))) => {
                let reason = match close.reason.as_str() {
                    "" => String::new(),
                    reason => format!(": {reason}"),
                };
                let end = match close.code {
                    CloseCode::Normal => TaskEnd::Completed,
                    _ => TaskEnd::Failed,
                };
                let code = u16::from(close.code);
                return (
                    format!(
                        "The WebSocket was closed (code {code}{reason}); the monitor has ended."
                    ),
                    end,
                );
            }
            Ok(Message::Close(None)) => {
                return (
                    "The WebSocket was closed (no code); the monitor has ended.".to_owned(),
                    TaskEnd::Completed,
                );
            }
            Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)) => true,
            Err(e) => {
                return (
                    format!("The WebSocket failed ({e}); the monitor has ended."),
                    TaskEnd::Failed,
                );
            }
        };
        if !sent {
            break;
        }
    }
    (
        "The WebSocket connection ended; the monitor has ended.".to_owned(),
        TaskEnd::Failed,
    )
}
