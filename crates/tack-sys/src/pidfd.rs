//! A Linux pidfd (`pidfd_open(2)`): a descriptor that turns readable once
//! the process has exited, without reaping it, so a process that is not
//! one's child (a background session another launcher started) can be
//! waited for with the event loop instead of polling `/proc`.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

/// A pidfd for `pid`; `Ok(None)` when no such process runs (it has exited
/// already).
pub fn open(pid: i32) -> io::Result<Option<OwnedFd>> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if raw < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ESRCH) => Ok(None),
            _ => Err(e),
        };
    }
    let raw = i32::try_from(raw).map_err(io::Error::other)?;
    // SAFETY: a successful pidfd_open returned a new fd that nothing else owns.
    Ok(Some(unsafe { OwnedFd::from_raw_fd(raw) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_process_has_one_and_an_exited_one_none() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let fd = open(pid).unwrap();
        assert!(fd.is_some(), "a zombie still has a pidfd");
        child.wait().unwrap();
        assert!(open(pid).unwrap().is_none());
    }
}
