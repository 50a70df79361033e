//! A session's messaging socket, as Claude Code's (since 2.1.224): a Unix
//! socket, 0600, named in the session's registry entry
//! ([`super::files::sessions`]). A peer connects and writes JSON lines:
//! `{"type":"auth","token":…}` with the token from the session's key file,
//! then one `{"type":"user","message":{"role":"user","content":…}}` per
//! message (tack adds `"from"`, the address a reply goes to, and
//! `"notify_when_idle": true` when the sender asked to be told when this
//! session next goes idle). Nothing is polled: the session's runtime awaits
//! `accept`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;

/// The longest line a peer may send (a message and its envelope).
const MAX_LINE_BYTES: usize = 1024 * 1024;

/// A message another session sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// The sender's address (`uds:<socket>`), or `unknown`.
    pub from: String,
    pub text: String,
    /// The sender wants one notice when this session next goes idle.
    pub notify_when_idle: bool,
}

/// Where each incoming message goes.
pub type Deliver = Arc<dyn Fn(Incoming) + Send + Sync>;

/// Binds `socket` (replacing a stale one) and serves peers until the task is
/// aborted.
pub fn listen(socket: &Path, token: String, deliver: Deliver) -> std::io::Result<JoinHandle<()>> {
    if let Some(dir) = socket.parent() {
        tack_sys::private_file::create_dirs_private(dir)?;
    }
    match std::fs::remove_file(socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let listener = UnixListener::bind(socket)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
    let token = Arc::new(token);
    Ok(tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, Arc::clone(&token), Arc::clone(&deliver)));
        }
    }))
}

async fn serve(stream: UnixStream, token: Arc<String>, deliver: Deliver) {
    let mut reader = BufReader::new(stream);
    let mut authed = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        // A line longer than the cap ends the connection unread.
        let limit = (MAX_LINE_BYTES + 1) as u64;
        match (&mut reader).take(limit).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(n) if n > MAX_LINE_BYTES => return,
            Ok(_) => {}
        }
        let Ok(value) = serde_json::from_slice::<Value>(&line) else {
            return;
        };
        match value.get("type").and_then(Value::as_str) {
            Some("auth") => {
                authed = value.get("token").and_then(Value::as_str) == Some(token.as_str());
            }
            Some("user") if authed => {
                if let Some(text) = content_text(&value["message"]["content"]) {
                    let from = value
                        .get("from")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown");
                    deliver(Incoming {
                        from: from.to_string(),
                        text,
                        notify_when_idle: value["notify_when_idle"] == true,
                    });
                }
            }
            _ => return,
        }
    }
}

/// A message's content: a string, or the text of its text blocks.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}

/// What one peer line carries.
pub struct Outgoing<'a> {
    /// The address a reply goes to.
    pub from: &'a str,
    pub text: &'a str,
    pub notify_when_idle: bool,
}

/// Sends a message to the session listening on `socket`.
pub async fn send(socket: &Path, token: &str, message: Outgoing<'_>) -> std::io::Result<()> {
    let mut stream = UnixStream::connect(socket).await?;
    let auth = json!({"type": "auth", "token": token});
    let mut user = json!({"type": "user", "from": message.from, "message": {"role": "user", "content": message.text}});
    if message.notify_when_idle {
        user["notify_when_idle"] = json!(true);
    }
    stream
        .write_all(format!("{auth}\n{user}\n").as_bytes())
        .await?;
    stream.shutdown().await
}

/// Whether a session answers on `socket` (a crashed one's entry stays).
pub async fn answers(socket: &Path) -> bool {
    UnixStream::connect(socket).await.is_ok()
}

/// `uds:<socket>`: how a session is addressed, as Claude Code writes it.
pub fn address(socket: &Path) -> String {
    format!("uds:{}", socket.display())
}

/// The socket of an address (`uds:<path>`).
pub fn socket_of(address: &str) -> Option<PathBuf> {
    address.strip_prefix("uds:").map(PathBuf::from)
}
