//! The filtering network proxy. It runs on the caller's tokio runtime and
//! listens on two Unix sockets: `http.sock` (HTTP `CONNECT`, and
//! absolute-form plain-http requests) and `socks.sock` (SOCKS5 `CONNECT`).
//! A sandboxed command reaches them through [`bridge`], which the sandbox's
//! init process runs on loopback ports inside the command's network
//! namespace.
//!
//! Each connection's destination is decided before anything is connected:
//! `deniedDomains` first (refused), then `allowedDomains` (allowed; patterns
//! as `host.rs` reads them), then the domains answered
//! [`NetworkDecision::AllowDomain`] before, then the [`NetworkAsk`] (one
//! question for concurrent connections to the same domain). An IP address
//! destination is decided on its text like a name. The proxy resolves names
//! itself, and connects a name that resolves to a loopback or link-local
//! address only if `allowedDomains` lists it exactly (`upstream.rs`).
//! Every refusal is kept for [`ProxyHandle::take_refusals`].
//!
//! The clients are hostile (a sandboxed command writes what they send):
//! heads and handshakes are size- and time-bounded, malformed input is
//! answered with an error and closed, and nothing a client sends can panic
//! the proxy.

pub mod bridge;
mod decide;
mod host;
mod http;
mod socks;
mod upstream;

use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::{AbortHandle, JoinSet};

use decide::Decider;

/// What the sandbox settings say about the network
/// (`sandbox.network.allowedDomains` / `deniedDomains`, plus the domains the
/// permission rules allow, e.g. `WebFetch(domain:example.com)`). Patterns are
/// as Claude Code reads them: `example.com`, `*.example.com`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxyPolicy {
    pub allowed_domains: Vec<String>,
    pub denied_domains: Vec<String>,
}

/// The answer for a destination no pattern decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkDecision {
    /// This connection only.
    AllowOnce,
    /// This domain for the rest of the proxy's life.
    AllowDomain,
    Deny,
}

/// Asks the user (or answers for a mode that cannot ask: `-p`, dontAsk).
pub trait NetworkAsk: Send + Sync {
    fn decide<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = NetworkDecision> + Send + 'a>>;
}

/// One refused connection, for the model's tool result and the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub host: String,
    pub port: u16,
    /// Why, in a few words: "denied by sandbox.network.deniedDomains", "not
    /// in sandbox.network.allowedDomains, and not allowed", or that
    /// the name resolves to a loopback or link-local address.
    pub reason: String,
}

/// The running proxy. Dropping it stops the listeners and the connections
/// they serve, and removes the sockets.
#[derive(Debug)]
pub struct ProxyHandle {
    /// HTTP proxy (CONNECT for https, absolute-form requests for http).
    pub http_socket: PathBuf,
    /// SOCKS5 proxy (CONNECT only; domain names resolved by the proxy).
    pub socks_socket: PathBuf,
    running: Running,
}

#[derive(Debug)]
struct Running {
    decider: Arc<Decider>,
    /// The two accept loops; each owns the tasks of its connections.
    listeners: Vec<AbortHandle>,
}

#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("network proxy: {0}")]
    Io(#[from] std::io::Error),
    /// Kept for the interface's sake; [`start`] no longer returns it.
    #[error("network proxy is not built yet")]
    NotBuilt,
}

/// Starts the proxy with its two Unix sockets in `dir` (a private directory
/// the caller made): `http.sock` and `socks.sock`, mode 0600, replacing any
/// left there. Its tasks run on the caller's tokio runtime until the handle
/// is dropped.
pub async fn start(
    policy: ProxyPolicy,
    ask: Arc<dyn NetworkAsk>,
    dir: &Path,
) -> Result<ProxyHandle, ProxyError> {
    let decider = Arc::new(Decider::new(&policy, ask));
    let http_socket = dir.join("http.sock");
    let socks_socket = dir.join("socks.sock");
    let http = bind(&http_socket)?;
    let socks = match bind(&socks_socket) {
        Ok(socks) => socks,
        Err(err) => {
            let _ = std::fs::remove_file(&http_socket);
            return Err(err.into());
        }
    };
    let listeners = vec![
        tokio::spawn(accept_loop(http, Arc::clone(&decider), Protocol::Http)).abort_handle(),
        tokio::spawn(accept_loop(socks, Arc::clone(&decider), Protocol::Socks)).abort_handle(),
    ];
    Ok(ProxyHandle {
        http_socket,
        socks_socket,
        running: Running { decider, listeners },
    })
}

/// Binds `path` (replacing a socket left there), mode 0600; an error names
/// the path.
fn bind(path: &Path) -> std::io::Result<UnixListener> {
    let named =
        |err: std::io::Error| std::io::Error::new(err.kind(), format!("{}: {err}", path.display()));
    match std::fs::remove_file(path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(named(err)),
        Ok(()) | Err(_) => {}
    }
    let short = crate::socket_path::SocketPath::new(path).map_err(named)?;
    let listener = UnixListener::bind(short.path()).map_err(named)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(named)?;
    Ok(listener)
}

/// Connections served at once on one socket; one more is closed at once.
const MAX_CONNECTIONS: usize = 512;

#[derive(Debug, Clone, Copy)]
enum Protocol {
    Http,
    Socks,
}

/// Accepts until aborted (by the handle's drop, which also drops the
/// connections' tasks with the set). Accept errors (out of descriptors) are
/// waited out, never fatal.
async fn accept_loop(listener: UnixListener, decider: Arc<Decider>, protocol: Protocol) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((conn, _)) = accepted else {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    continue;
                };
                if connections.len() >= MAX_CONNECTIONS {
                    continue;
                }
                let decider = Arc::clone(&decider);
                connections.spawn(async move {
                    match protocol {
                        Protocol::Http => http::serve(conn, &decider).await,
                        Protocol::Socks => socks::serve(conn, &decider).await,
                    }
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// After an error answer: how long, and how much, of what the client still
/// sends is read and dropped.
const LINGER: std::time::Duration = std::time::Duration::from_secs(2);
const LINGER_BYTES: usize = 256 * 1024;

/// Ends a connection after an error answer: our side is shut down, then
/// what the client is still sending is read (for a moment) before the
/// close, because closing with unread data resets the connection, and a
/// client behind the bridge could lose the answer with it.
async fn close_after_reply(conn: &mut UnixStream) {
    let _ = conn.shutdown().await;
    let mut sink = [0u8; 4096];
    let mut left = LINGER_BYTES;
    let drain = async {
        while left > 0 {
            match conn.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(LINGER, drain).await;
}

impl ProxyHandle {
    /// The refusals since the last call, oldest first (at most the last
    /// 100; the Bash tool reports them after each command).
    pub fn take_refusals(&self) -> Vec<Refusal> {
        self.running.decider.take_refusals()
    }

    /// Whether an `allowedDomains` entry names `host` exactly (on any port
    /// or one): for a loopback name, that the user wants the host's own
    /// loopback reached through the proxy, not the namespace's.
    pub fn lists(&self, host: &str) -> bool {
        host::Host::parse(host).is_some_and(|h| self.running.decider.lists(&h))
    }
}

impl Drop for ProxyHandle {
    fn drop(&mut self) {
        for listener in &self.running.listeners {
            listener.abort();
        }
        let _ = std::fs::remove_file(&self.http_socket);
        let _ = std::fs::remove_file(&self.socks_socket);
    }
}
