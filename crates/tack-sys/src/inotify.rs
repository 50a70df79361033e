//! Watching a folder for files written into it, with inotify(7): the
//! descriptor becomes readable when a file in the folder is closed after
//! writing or renamed into it (an atomic replace), so a waiter sleeps in
//! the kernel instead of polling. For the agent-team inboxes, where another
//! process appends a message by replacing the file.

use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

/// A nonblocking inotify descriptor watching one folder.
#[derive(Debug)]
pub struct DirWatch {
    fd: OwnedFd,
}

impl DirWatch {
    /// Watches `dir` (which must exist) for files closed after writing,
    /// moved in or created.
    pub fn new(dir: &Path) -> io::Result<DirWatch> {
        // SAFETY: inotify_init1 takes flags and touches no memory of ours.
        let raw = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a descriptor inotify_init1 just opened for us,
        // owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let path = CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
        let mask = libc::IN_CLOSE_WRITE | libc::IN_MOVED_TO | libc::IN_CREATE;
        // SAFETY: `path` is a NUL-terminated string that outlives the call;
        // `fd` is open.
        let wd = unsafe { libc::inotify_add_watch(fd.as_raw_fd(), path.as_ptr(), mask) };
        if wd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(DirWatch { fd })
    }

    /// The names of the files the events since the last read are about;
    /// `WouldBlock` when there are none yet.
    pub fn read_names(&self) -> io::Result<Vec<OsString>> {
        let mut buf = [0u8; 4096];
        // SAFETY: reads at most `buf.len()` bytes into `buf`, which lives
        // across the call; `fd` is open.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(names(&buf[..n as usize]))
    }
}

/// The names in a buffer of `inotify_event`s.
fn names(mut buf: &[u8]) -> Vec<OsString> {
    const HEADER: usize = std::mem::size_of::<libc::inotify_event>();
    let mut names = Vec::new();
    while buf.len() >= HEADER {
        // The name length is the header's last field (u32, native endian).
        let len_bytes: [u8; 4] = buf[HEADER - 4..HEADER].try_into().unwrap_or([0; 4]);
        let len = u32::from_ne_bytes(len_bytes) as usize;
        let Some(name) = buf.get(HEADER..HEADER + len) else {
            break;
        };
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        if end > 0 {
            names.push(OsString::from_vec(name[..end].to_vec()));
        }
        buf = &buf[HEADER + len..];
    }
    names
}

impl AsFd for DirWatch {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl AsRawFd for DirWatch {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_replaced_in_the_folder_is_reported_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let watch = DirWatch::new(dir.path()).unwrap();
        assert_eq!(
            watch.read_names().unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        crate::write_atomic(&dir.path().join("lead.json"), b"[]").unwrap();
        let names = watch.read_names().unwrap();
        assert!(names.iter().any(|n| n == "lead.json"), "{names:?}");
    }
}
