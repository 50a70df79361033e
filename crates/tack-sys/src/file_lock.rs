//! An exclusive advisory lock on a file or a folder, held until the
//! [`FileLock`] drops: for read-modify-write of state files that two
//! processes may do at once (`tack plugin install` in two terminals).
//! `flock(2)`: the kernel drops it when the process dies, so a killed holder
//! never leaves it taken; locking the folder that holds the files leaves no
//! lock file behind (the files themselves are replaced by atomic renames, so
//! a lock on one would not hold).

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
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
    flock(file.as_fd(), libc::LOCK_EX)?;
    Ok(FileLock { _file: file })
}

/// Takes the exclusive lock on `file`, opened by the caller (with the flags
/// it needs: not following a symlink, not blocking on a FIFO), waiting while
/// another open file holds it; the lock owns the file and drops with it.
pub fn lock_exclusive_file(file: File) -> io::Result<FileLock> {
    flock(file.as_fd(), libc::LOCK_EX)?;
    Ok(FileLock { _file: file })
}

/// The exclusive lock on a file the caller keeps open (a transcript it
/// appends to), held until dropped. It borrows the file's descriptor, so it
/// cannot outlive the file; the file is still read and written while locked,
/// through `&File` (`Write for &File`).
#[derive(Debug)]
pub struct OpenFileLock<'f> {
    fd: BorrowedFd<'f>,
}

/// Takes the exclusive lock on the open `file`, waiting while another
/// process (or another open of the same file) holds it.
pub fn lock_open_file(file: &File) -> io::Result<OpenFileLock<'_>> {
    let fd = file.as_fd();
    flock(fd, libc::LOCK_EX)?;
    Ok(OpenFileLock { fd })
}

impl Drop for OpenFileLock<'_> {
    fn drop(&mut self) {
        // Unlocking an open descriptor cannot meaningfully fail.
        let _ = flock(self.fd, libc::LOCK_UN);
    }
}

/// flock(2), retried when a signal interrupts the wait.
fn flock(fd: BorrowedFd<'_>, operation: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: flock(2) takes a descriptor and flags and touches no memory
        // of ours; `fd` is borrowed, so it is open for the call.
        let rc = unsafe { libc::flock(fd.as_raw_fd(), operation) };
        if rc == 0 {
            return Ok(());
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

    /// The lock on an open file excludes another open of it (another open
    /// file description, as another process would have) until it drops, and
    /// the file is written meanwhile through the same handle.
    #[test]
    fn an_open_file_is_written_under_its_lock_and_released_on_drop() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let file = File::create(&path).unwrap();
        let lock = lock_open_file(&file).unwrap();
        (&file).write_all(b"line\n").unwrap();
        let (tx, rx) = mpsc::channel();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || {
                let other = File::open(&path).unwrap();
                let _second = lock_open_file(&other).unwrap();
                tx.send(std::fs::read_to_string(&path).unwrap()).unwrap();
            })
        };
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        drop(lock);
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), "line\n");
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
