//! Files tack keeps under its config dir (transcripts, prompt history) hold
//! everything said in a session: they are the user's alone, 0600 in folders
//! 0700 (as Claude Code's), also when an older tack created them readable by
//! others.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of a private file.
pub const FILE_MODE: u32 = 0o600;
/// Mode of a private folder.
pub const DIR_MODE: u32 = 0o700;

/// Creates `dir` and its missing parents 0700; an existing `dir` open to
/// others is made 0700.
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)?;
    restrict(dir, DIR_MODE)
}

/// Creates `dir`'s missing folders 0700, leaving existing ones as they are
/// (the home folder above `~/.claude.json` is not tack's to narrow).
pub fn create_dirs_private(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)
}

/// `path` opened for appending (and reading), created 0600 in a private
/// folder if missing; an existing file open to others is made 0600.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_private_dir_all(dir)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(FILE_MODE)
        .open(path)?;
    tighten(file)
}

/// `path` created (or truncated) for writing, 0600, its missing folders
/// 0700; an existing file open to others is made 0600.
pub fn create_private(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_dirs_private(dir)?;
    }
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(FILE_MODE)
        .open(path)?;
    tighten(file)
}

/// An existing file open to others made 0600.
fn tighten(file: File) -> io::Result<File> {
    let mode = file.metadata()?.permissions().mode();
    if mode & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(mode & FILE_MODE))?;
    }
    Ok(file)
}

/// Writes `data` to `path` through [`create_private`] (not atomically: for
/// files written once, such as a saved tool result).
pub fn write_private(path: &Path, data: &[u8]) -> io::Result<()> {
    use std::io::Write;
    create_private(path)?.write_all(data)
}

/// Makes the tree at `root` the user's alone: folders 0700, files 0600
/// (0700 when the owner may run them: a plugin's scripts stay runnable).
/// Symlinks are not followed.
pub fn restrict_tree(root: &Path) -> io::Result<()> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path)?;
        let mode = if meta.is_dir() {
            for entry in std::fs::read_dir(&path)? {
                stack.push(entry?.path());
            }
            DIR_MODE
        } else if meta.is_file() && meta.permissions().mode() & 0o100 != 0 {
            0o700
        } else if meta.is_file() {
            FILE_MODE
        } else {
            continue;
        };
        if meta.permissions().mode() & 0o777 != mode {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
        }
    }
    Ok(())
}

fn restrict(path: &Path, keep: u32) -> io::Result<()> {
    let mode = std::fs::metadata(path)?.permissions().mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & keep))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_files_and_folders_are_private_and_old_ones_are_made_so() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a/b/t.jsonl");
        open_private_append(&file).unwrap();
        let new = [
            mode(&file),
            mode(&tmp.path().join("a")),
            mode(&tmp.path().join("a/b")),
        ];
        let old = tmp.path().join("old/h.jsonl");
        std::fs::create_dir(tmp.path().join("old")).unwrap();
        std::fs::write(&old, "x\n").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(
            tmp.path().join("old"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        open_private_append(&old).unwrap();
        assert_eq!(
            (new, mode(&old), mode(&tmp.path().join("old"))),
            ([0o600, 0o700, 0o700], 0o600, 0o700)
        );
    }
}
