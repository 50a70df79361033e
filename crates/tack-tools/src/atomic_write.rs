//! Atomic file replacement: the target holds either its old or its new content,
//! never a mix, whatever happens to the process.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rand::Rng;

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
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    fs::create_dir_all(dir)?;
    let existing_perms = fs::metadata(path).ok().map(|m| m.permissions());

    let (tmp_path, mut file) = create_temp(dir, &name.to_string_lossy())?;
    let result = (|| {
        file.write_all(data)?;
        if let Some(perms) = existing_perms {
            file.set_permissions(perms)?;
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

fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let mut rng = rand::rng();
    loop {
        let tmp = dir.join(format!(".{name}.tack-{:016x}.tmp", rng.random::<u64>()));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}
