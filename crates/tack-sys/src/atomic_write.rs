//! Atomic file replacement: the target holds either its old or its new content,
//! never a mix, whatever happens to the process.
//!
//! A process killed between creating its temporary file and renaming it leaves
//! the temporary file behind (`.<name>.tack-<hex>.tmp`, next to the target).
//! With a journal ([`journal_in`]) each temporary file is listed before it is
//! created, one journal file per process, so a later session can remove what
//! a dead one left ([`remove_leftovers`]) without scanning the disk.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rand::Rng;

use crate::private_file;

/// This process's journal of temporary files (`<dir>/<pid>`), once set.
static JOURNAL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// From now on, lists this process's temporary files in `<dir>/<pid>` so a later
/// [`remove_leftovers`] can delete them if the process dies mid-write. The
/// first call wins.
pub fn journal_in(dir: &Path) {
    let _ = JOURNAL.set(dir.join(std::process::id().to_string()));
}

/// Deletes the temporary files listed by processes that are gone, and their
/// journals; returns how many files were removed. A journal of a live process
/// is left alone; only paths named like tack's temporary files are touched.
pub fn remove_leftovers(dir: &Path) -> usize {
    let mut removed = 0;
    for (pid, journal) in crate::pid_dir::pid_entries(dir) {
        if pid_alive(pid) {
            continue;
        }
        let listed = fs::read_to_string(&journal).unwrap_or_default();
        for line in listed.lines() {
            let path = Path::new(line);
            if is_temp_name(path) && fs::remove_file(path).is_ok() {
                removed += 1;
            }
        }
        let _ = fs::remove_file(&journal);
    }
    removed
}

fn pid_alive(pid: i32) -> bool {
    if pid <= 0 || u32::try_from(pid).ok() == Some(std::process::id()) {
        return pid > 0;
    }
    // SAFETY: kill with signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// `.<name>.tack-<16 hex>.tmp`.
fn is_temp_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    name.starts_with('.')
        && name.strip_suffix(".tmp").is_some_and(|stem| {
            stem.rsplit_once(".tack-").is_some_and(|(_, hex)| {
                hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit())
            })
        })
}

/// Lists `tmp` in the journal before it is created (best effort: a journal
/// that cannot be written only means no cleanup later). The journal names
/// files under the user's config dir: it is private too.
fn journal(tmp: &Path) {
    let Some(path) = JOURNAL.get() else { return };
    let line = format!("{}\n", tmp.display());
    let _ = private_file::open_private_append(path).and_then(|mut f| f.write_all(line.as_bytes()));
}

/// Replaces `path` with `data`: writes a temp file in the same directory
/// (`create_new`, random name, not following symlinks), fsyncs it, gives it the
/// permissions of the file it replaces, renames it over `path` and fsyncs the
/// directory. Missing parent directories are created. On error the temp file is
/// removed; a crash can leave it behind (named `.<name>.tack-<hex>.tmp`), never a
/// half-written target.
///
/// `path` should not be a symlink (callers resolve it first): rename replaces the
/// link itself.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    write_atomic_with_mode(path, data, None)
}

/// [`write_atomic`]; a file that does not exist yet is created with `new_mode`
/// (e.g. `0o600` for a file holding secrets) instead of the umask's default.
pub fn write_atomic_with_mode(path: &Path, data: &[u8], new_mode: Option<u32>) -> io::Result<()> {
    let dir = parent_of(path);
    fs::create_dir_all(dir)?;
    let mode = fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode())
        .or(new_mode);
    replace(path, dir, data, mode)
}

/// [`write_atomic`] for a file under the user's config dir: missing folders
/// are created 0700 (existing ones are left alone), and the file is 0600
/// whatever it was (from the temporary file's creation on, so its content is
/// never readable by others).
pub fn write_atomic_private(path: &Path, data: &[u8]) -> io::Result<()> {
    let dir = parent_of(path);
    private_file::create_dirs_private(dir)?;
    replace(path, dir, data, Some(private_file::FILE_MODE))
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes `data` to a temporary file in `dir` (created with `mode`, or the
/// umask's default) and renames it over `path`.
fn replace(path: &Path, dir: &Path, data: &[u8], mode: Option<u32>) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let (tmp_path, mut file) = create_temp(dir, &name.to_string_lossy(), mode)?;
    let result = (|| {
        file.write_all(data)?;
        if let Some(mode) = mode {
            // The umask may have narrowed the creation mode; an old file's
            // mode may be wider than the one asked for at creation.
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp_path, path)?;
        // The rename is durable only once the directory entry is.
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    result
}

fn create_temp(dir: &Path, name: &str, mode: Option<u32>) -> io::Result<(PathBuf, File)> {
    let mut rng = rand::rng();
    loop {
        let tmp = dir.join(format!(".{name}.tack-{:016x}.tmp", rng.random::<u64>()));
        journal(&tmp);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode.map_or(0o666, |m| m & 0o777))
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_of_dead_processes_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let journals = dir.path().join("journals");
        fs::create_dir_all(&journals).unwrap();
        let left = dir.path().join(".a.txt.tack-0123456789abcdef.tmp");
        let not_ours = dir.path().join("b.txt");
        fs::write(&left, "half").unwrap();
        fs::write(&not_ours, "keep").unwrap();
        // A dead process (pid far above pid_max) and this live one.
        let listing = format!("{}\n{}\n", left.display(), not_ours.display());
        fs::write(journals.join("999999999"), &listing).unwrap();
        fs::write(journals.join(std::process::id().to_string()), &listing).unwrap();
        assert_eq!(remove_leftovers(&journals), 1);
        assert!(!left.exists() && not_ours.exists());
        assert!(!journals.join("999999999").exists());
        assert!(journals.join(std::process::id().to_string()).exists());
    }

    #[test]
    fn a_new_file_gets_the_mode_asked_for_and_an_old_one_keeps_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret.json");
        write_atomic_with_mode(&path, b"{}", Some(0o600)).unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic_with_mode(&path, b"{ }", Some(0o600)).unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "{ }");
    }
}
