//! Copying a plugin's folder into the cache: regular files and folders,
//! without `.git`; a symlink is copied only when it points inside the
//! plugin (one that leads out, to `~/.ssh` say, is left behind).

use std::path::Path;

use crate::error::InstallError;

/// Folders deeper than this are not copied (a loop or a bomb).
const MAX_DEPTH: usize = 32;

pub(crate) fn copy_plugin(from: &Path, to: &Path) -> Result<(), InstallError> {
    let root = from.canonicalize().map_err(|source| InstallError::Read {
        path: from.to_path_buf(),
        source,
    })?;
    copy_dir(&root, &root, to, 0)
}

fn copy_dir(root: &Path, from: &Path, to: &Path, depth: usize) -> Result<(), InstallError> {
    let read = |source| InstallError::Read {
        path: from.to_path_buf(),
        source,
    };
    let write = |source| InstallError::Write {
        path: to.to_path_buf(),
        source,
    };
    if depth > MAX_DEPTH {
        return Err(InstallError::refused(format!(
            "{}: folders nested too deep",
            from.display()
        )));
    }
    std::fs::create_dir_all(to).map_err(write)?;
    for entry in std::fs::read_dir(from).map_err(read)? {
        let entry = entry.map_err(read)?;
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type().map_err(read)?;
        if kind.is_symlink() {
            let inside = src.canonicalize().is_ok_and(|real| real.starts_with(root));
            if inside {
                let target = std::fs::read_link(&src).map_err(read)?;
                std::os::unix::fs::symlink(target, &dst).map_err(write)?;
            }
        } else if kind.is_dir() {
            copy_dir(root, &src, &dst, depth + 1)?;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst).map_err(write)?;
        }
    }
    Ok(())
}
