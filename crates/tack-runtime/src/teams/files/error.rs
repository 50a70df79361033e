//! What can go wrong with a team file, naming the file.

use std::io;
use std::path::{Path, PathBuf};

/// A team file that cannot be read or written, or a name that cannot be one.
#[derive(Debug, thiserror::Error)]
pub enum TeamFileError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    /// The file is there but is not what Claude Code writes (torn, hostile).
    #[error("{}: not a team file tack can read: {reason}", path.display())]
    Malformed { path: PathBuf, reason: String },
    /// A team or agent name that cannot be a file name.
    #[error("{kind} name {name:?} cannot be used: {why}")]
    BadName {
        kind: &'static str,
        name: String,
        why: &'static str,
    },
}

impl TeamFileError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(io::Error) -> TeamFileError + '_ {
        move |source| TeamFileError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn malformed(path: &Path, reason: impl ToString) -> TeamFileError {
        TeamFileError::Malformed {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}
