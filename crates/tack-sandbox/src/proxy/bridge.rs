//! The bridge from a loopback port inside the sandbox's network namespace to
//! one of the proxy's Unix sockets: the only way out of a namespace with no
//! route. It runs in the sandbox's init process, before seccomp, so it uses
//! the standard library only (no tokio, no allocation-heavy machinery): a
//! thread per direction of each connection, each copying until end of file.
//!
//! End of file on one side is passed on as a half-close (`shutdown(Write)`)
//! to the other, so a client's "I am done sending" reaches the proxy and the
//! proxy's end reaches the client; an error on either side shuts both
//! sockets down. At most [`MAX_CONNECTIONS`] connections are served at once;
//! one more is closed at once (a sandboxed command must not exhaust the
//! user's threads).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::socket_path::SocketPath;

pub const MAX_CONNECTIONS: usize = 256;

/// The copying threads' stacks: a copy loop needs little.
const STACK: usize = 64 * 1024;
const BUFFER: usize = 16 * 1024;

/// Accepts on `listener` and connects each client to a fresh
/// `UnixStream::connect(target)`, until accepting fails for good; returns
/// that error (a client going away before it was accepted, an interrupted
/// call or a momentary lack of descriptors or memory is waited out).
pub fn serve(listener: TcpListener, target: PathBuf) -> io::Error {
    // Opened now, in the init after the command's fork: the command never
    // holds the folder's descriptor.
    let target = match SocketPath::new(&target) {
        Ok(target) => Arc::new(target),
        Err(err) => return err,
    };
    let live = Arc::new(AtomicUsize::new(0));
    loop {
        let client = match listener.accept() {
            Ok((client, _)) => client,
            Err(err) => match transient(&err) {
                Some(pause) => {
                    thread::sleep(pause);
                    continue;
                }
                None => return err,
            },
        };
        if live.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
            live.fetch_sub(1, Ordering::AcqRel);
            continue;
        }
        let (target, count) = (Arc::clone(&target), Arc::clone(&live));
        let spawned = thread::Builder::new()
            .name("tack-bridge".into())
            .stack_size(STACK)
            .spawn(move || {
                relay(client, target.path());
                count.fetch_sub(1, Ordering::AcqRel);
            });
        if spawned.is_err() {
            live.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// [`serve`] on a thread of its own; the thread's result is `serve`'s.
pub fn serve_on_thread(
    listener: TcpListener,
    target: PathBuf,
) -> io::Result<JoinHandle<io::Error>> {
    thread::Builder::new()
        .name("tack-bridge-accept".into())
        .stack_size(STACK)
        .spawn(move || serve(listener, target))
}

/// `None` when accepting cannot succeed any more; else how long to wait.
fn transient(err: &io::Error) -> Option<Duration> {
    match err.kind() {
        io::ErrorKind::Interrupted
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::WouldBlock => Some(Duration::ZERO),
        _ => match err.raw_os_error() {
            Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM) => {
                Some(Duration::from_millis(20))
            }
            Some(_) | None => None,
        },
    }
}

fn relay(client: TcpStream, target: &Path) {
    let Ok(proxy) = UnixStream::connect(target) else {
        return;
    };
    let _ = client.set_nodelay(true);
    let (Ok(client_in), Ok(proxy_out)) = (client.try_clone(), proxy.try_clone()) else {
        return;
    };
    let outward = thread::Builder::new()
        .name("tack-bridge".into())
        .stack_size(STACK)
        .spawn(move || pump(client_in, proxy_out));
    let Ok(outward) = outward else {
        return;
    };
    pump(proxy, client);
    let _ = outward.join();
}

/// Both ends, as the copy needs them: read from one, write to and shut down
/// the other.
trait End: Read + Write {
    fn shutdown(&self, how: Shutdown) -> io::Result<()>;
}

impl End for TcpStream {
    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        TcpStream::shutdown(self, how)
    }
}

impl End for UnixStream {
    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        UnixStream::shutdown(self, how)
    }
}

/// Copies `from` to `to` until end of file (then half-closes `to`) or an
/// error (then shuts both down, which also ends the other direction).
fn pump(mut from: impl End, mut to: impl End) {
    let mut buf = vec![0u8; BUFFER];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => {
                let _ = to.shutdown(Shutdown::Write);
                return;
            }
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}
