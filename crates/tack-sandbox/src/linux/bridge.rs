//! The namespace's network: `lo` up, and each bridge port on loopback
//! forwarded to a Unix socket outside (the proxy's). Nothing else leaves.

use std::io;
use std::net::{Ipv4Addr, TcpListener};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;

use crate::policy::Bridge;

use super::Step;

/// `lo` up, then every bridge's listener bound (before the command starts,
/// so an early connection waits in the backlog).
pub(super) fn bring_up(bridges: &[Bridge]) -> Result<Vec<(TcpListener, PathBuf)>, Step> {
    loopback_up().map_err(|e| ("bringing up lo", e))?;
    bridges
        .iter()
        .map(|b| {
            TcpListener::bind((Ipv4Addr::LOCALHOST, b.port))
                .map(|l| (l, b.socket.clone()))
                .map_err(|e| ("proxy bridge", e))
        })
        .collect()
}

fn loopback_up() -> io::Result<()> {
    // SAFETY: socket(2) takes plain integers and touches no memory of ours.
    let raw = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if raw == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a successful socket(2) returned a new descriptor that nothing
    // else owns; the OwnedFd closes it when this function returns.
    let socket = unsafe { OwnedFd::from_raw_fd(raw) };
    // SAFETY: `ifreq` is plain integers and byte arrays (a union of them for
    // the request's payload): all zeros is a valid value of every field.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    // SAFETY: SIOCGIFFLAGS reads the NUL-terminated name in `req` and writes
    // the flags into it; `req` is a whole, live `ifreq` and `socket` is open.
    if unsafe { libc::ioctl(socket.as_raw_fd(), libc::SIOCGIFFLAGS as _, &mut req) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just wrote `ifru_flags` (a `c_short`, for which every
    // bit pattern is valid) in the union.
    unsafe { req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short };
    // SAFETY: SIOCSIFFLAGS only reads `req`, a whole, live `ifreq`.
    if unsafe { libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS as _, &req) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Each listener served by the proxy's bridge (a thread per listener, two
/// per connection, capped, accept errors waited out).
pub(super) fn serve_all(listeners: Vec<(TcpListener, PathBuf)>) {
    for (listener, target) in listeners {
        let _ = crate::proxy::bridge::serve_on_thread(listener, target);
    }
}
