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
