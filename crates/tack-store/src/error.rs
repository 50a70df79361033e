use std::fmt;
use std::path::PathBuf;

use crate::summary::SessionSummary;

/// Everything the store can fail with. Load-time damage a crash can leave
/// behind is not an error but a [`crate::LoadWarning`].
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The OS error is part of the message, not a `source()`: printed as a
    /// chain (`{:#}`) it would otherwise appear twice.
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Something other than a regular file is where a transcript should be.
    #[error("{}", not_a_transcript(path, kind))]
    NotATranscript { path: PathBuf, kind: &'static str },
    #[error("invalid session id `{0}`: a session id is a UUID")]
    InvalidSessionId(String),
    #[error("{}", NotFound { id, recent })]
    SessionNotFound {
        id: String,
        recent: Vec<SessionSummary>,
    },
    #[error("no previous session in {}", cwd.display())]
    NoSessions { cwd: PathBuf },
    #[error("no message `{uuid}` in the session {}", path.display())]
    MessageNotFound { uuid: String, path: PathBuf },
}

struct NotFound<'a> {
    id: &'a str,
    recent: &'a [SessionSummary],
}

impl fmt::Display for NotFound<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no session `{}` in this directory", self.id)?;
        if self.recent.is_empty() {
            return write!(f, " (no sessions here yet)");
        }
        write!(f, "; recent sessions:")?;
        for s in self.recent {
            write!(
                f,
                "\n  {}  {}  {}",
                s.session_id,
                s.modified_display(),
                s.preview()
            )?;
        }
        Ok(())
    }
}

fn not_a_transcript(path: &std::path::Path, kind: &str) -> String {
    if kind == "not a regular file" {
        format!(
            "{} is not a regular file, not a session transcript",
            path.display()
        )
    } else {
        format!("{} is {kind}, not a session transcript", path.display())
    }
}

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.into();
    move |error| StoreError::Io { path, error }
}
