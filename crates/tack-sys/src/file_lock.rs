//! An exclusive advisory lock on a file or a folder, held until the
//! [`FileLock`] drops: for read-modify-write of state files that two
//! processes may do at once (`tack plugin install` in two terminals).
//! `flock(2)`: the kernel drops it when the process dies, so a killed holder
//! never leaves it taken; locking the folder that holds the files leaves no
//! lock file behind (the files themselves are replaced by atomic renames, so
//! a lock on one would not hold).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// A held lock; dropping it (closing the file) releases it.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

/// Takes the exclusive lock on `path`, an existing file or folder, waiting
/// while another process holds it.
pub fn lock_exclusive(path: &Path) -> io::Result<FileLock> {
    let file = File::open(path)?;
    loop {
        // SAFETY: flock on a descriptor this function owns, open for the call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc == 0 {
            return Ok(FileLock { _file: file });
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Takes the exclusive lock on an open `file` without waiting: `None` when
/// another open file (this process's or another's) holds it. For a lock
/// whose holder must be told apart from a wait (`tack batch` on a results
/// file another run is writing refuses at once).
pub fn try_lock_exclusive(file: File) -> io::Result<Option<FileLock>> {
    loop {
        // SAFETY: flock on a descriptor this function owns.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(Some(FileLock { _file: file }));
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(None),
            Some(libc::EINTR) => continue,
            _ => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_second_holder_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        let first = lock_exclusive(&path).unwrap();
        let (tx, rx) = mpsc::channel();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || {
                let _second = lock_exclusive(&path).unwrap();
                tx.send(()).unwrap();
            })
        };
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        drop(first);
        rx.recv_timeout(Duration::from_secs(5)).unwrap();
        waiter.join().unwrap();
    }

    #[test]
    fn trying_a_held_lock_says_so_at_once_and_a_freed_one_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results");
        std::fs::write(&path, "").unwrap();
        let first = try_lock_exclusive(File::open(&path).unwrap()).unwrap();
        assert!(first.is_some());
        let second = try_lock_exclusive(File::open(&path).unwrap()).unwrap();
        assert!(second.is_none());
        drop(first);
        let third = try_lock_exclusive(File::open(&path).unwrap()).unwrap();
        assert!(third.is_some());
    }
}
