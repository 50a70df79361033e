use std::path::PathBuf;

/// Why a plugin (or part of one) could not be used. Each names the file or
/// folder, so a warning or `tack plugin validate` can say where to look.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    ComponentPath { path: PathBuf, message: String },
}

/// Why a `tack plugin` command (a marketplace or an install) failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file that is not the JSON it should be.
    #[error("{path}: {message}")]
    Json { path: PathBuf, message: String },
    #[error(transparent)]
    Plugin(#[from] PluginError),
    /// `git` failed, timed out or could not start.
    #[error("git {action} failed: {message}")]
    Git { action: String, message: String },
    #[error("cannot fetch {url}: {message}")]
    Fetch { url: String, message: String },
    /// A folder, file or repository with no marketplace file where one
    /// should be: `place` names it and `looked` what was looked for.
    #[error("{place} is not a marketplace: there is no {looked}")]
    NotAMarketplace { place: String, looked: String },
    /// Anything the user asked for that cannot be done as asked.
    #[error("{0}")]
    Refused(String),
}

impl InstallError {
    pub(crate) fn refused(message: impl Into<String>) -> InstallError {
        InstallError::Refused(message.into())
    }
}
