//! Claude Code's own lock on a shared file, beside tack's `flock`: Claude
//! Code locks with the `proper-lockfile` package, which makes the folder
//! `<file>.lock` and removes it when done (a folder older than 10 s is a dead
//! holder's and is taken over). It locks a task list's `.lock` around
//! creating a task, each `<n>.json` around changing it, and a team inbox
//! `<agent>.json` around appending to it or marking it read, so tack takes
//! the same folders around the same steps: a Claude Code and a tack process
//! on one file exclude each other. Between tack processes the `flock` (taken
//! first) keeps these folders uncontended.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// proper-lockfile's default: a lock folder not refreshed for this long is
/// a dead holder's.
const STALE: Duration = Duration::from_secs(10);
/// Give up waiting after this long (a live Claude Code holds the lock for
/// milliseconds, and refreshes it while it does).
const GIVE_UP: Duration = Duration::from_secs(30);

/// A held `<file>.lock` folder, removed on drop.
#[derive(Debug)]
pub struct CcLock {
    dir: PathBuf,
}

impl Drop for CcLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Takes Claude Code's lock on `file`, waiting (5 ms, doubling to 100 ms, as
/// Claude Code's retries do) while a live holder has it.
pub fn hold(file: &Path) -> io::Result<CcLock> {
    let mut name = file.as_os_str().to_owned();
    name.push(".lock");
    let dir = PathBuf::from(name);
    let started = Instant::now();
    let mut wait = Duration::from_millis(5);
    loop {
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(CcLock { dir }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let age = std::fs::symlink_metadata(&dir)
            .and_then(|m| m.modified())
            .map(|t| SystemTime::now().duration_since(t).unwrap_or_default());
        match age {
            Ok(age) if age > STALE => {
                // A dead holder's: take it over (as proper-lockfile does).
                let _ = std::fs::remove_dir(&dir);
                continue;
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        }
        if started.elapsed() > GIVE_UP {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!("{} is held by another process", dir.display()),
            ));
        }
        std::thread::sleep(wait);
        wait = (wait * 2).min(Duration::from_millis(100));
    }
}
