//! `httpProxyPort` / `socksProxyPort`: a proxy the user runs on a loopback
//! port instead of tack's own. The namespace cannot reach the host's
//! loopback, so each port gets a Unix socket here, relayed to it, and the
//! namespace's bridge reaches that socket as it would reach tack's proxy.

use std::io;
use std::path::{Path, PathBuf};

use tokio::net::{TcpStream, UnixListener};

use crate::socket_path::SocketPath;
use tokio::task::JoinHandle;

/// The relays' sockets; dropping it stops them and removes the sockets.
#[derive(Debug)]
pub struct PortRelays {
    pub http_socket: Option<PathBuf>,
    pub socks_socket: Option<PathBuf>,
    tasks: Vec<JoinHandle<()>>,
}

/// Starts a relay for each port given, its socket in `dir` (a private
/// directory the caller made). Must be called inside a Tokio runtime.
pub fn relay_ports(dir: &Path, http: Option<u16>, socks: Option<u16>) -> io::Result<PortRelays> {
    let mut relays = PortRelays {
        http_socket: None,
        socks_socket: None,
        tasks: Vec::new(),
    };
    for (port, name) in [(http, "http-relay.sock"), (socks, "socks-relay.sock")] {
        let Some(port) = port else { continue };
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(SocketPath::new(&path)?.path())?;
        relays.tasks.push(tokio::spawn(relay(listener, port)));
        if name.starts_with("http") {
            relays.http_socket = Some(path);
        } else {
            relays.socks_socket = Some(path);
        }
    }
    Ok(relays)
}

async fn relay(listener: UnixListener, port: u16) {
    while let Ok((mut unix, _)) = listener.accept().await {
        tokio::spawn(async move {
            if let Ok(mut tcp) = TcpStream::connect(("127.0.0.1", port)).await {
                let _ = tokio::io::copy_bidirectional(&mut unix, &mut tcp).await;
            }
        });
    }
}

impl Drop for PortRelays {
    fn drop(&mut self) {
        self.tasks.iter().for_each(JoinHandle::abort);
        for path in self.http_socket.iter().chain(&self.socks_socket) {
            let _ = std::fs::remove_file(path);
        }
    }
}
