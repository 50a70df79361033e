//! Directories whose entries are named by process id (`/proc`, the atomic-write
//! journals).

use std::path::{Path, PathBuf};

/// The entries of `dir` whose names are process ids, with their paths; an
/// unreadable directory has none.
pub(crate) fn pid_entries(dir: &Path) -> impl Iterator<Item = (i32, PathBuf)> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
            Some((pid, entry.path()))
        })
}
