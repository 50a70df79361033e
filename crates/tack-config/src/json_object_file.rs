//! A JSON object file that other processes change too: Claude Code's state
//! file `~/.claude.json` (trust, `editorMode`, the user's and a project's MCP
//! servers), tack's `config.json` of the same shape, a project's `.mcp.json`.
//!
//! [`edit`] is the one way tack changes such a file: under an exclusive lock
//! on its folder (the lock every tack process and `tack mcp` take), the whole
//! file read (bounded, a FIFO or device refused), the change applied, written
//! to a temporary file beside it and renamed over it, every other key kept. A
//! file that does not parse, or is not an object, is an error naming it and is
//! never overwritten. A symlinked file (a dotfiles checkout) is written
//! through the link, which stays.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tack_sys::config_file::{is_missing, read_config_file};

/// `~/.claude.json` grows with every project Claude Code has opened; a file
/// larger than this is not one.
pub const MAX_STATE_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The file could not be read, parsed or written.
#[derive(Debug, thiserror::Error)]
pub enum JsonFileError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not valid JSON: {message} at line {line} column {column}; fix or remove it", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        /// serde_json's message without its position.
        message: String,
    },
    #[error("{} is not a JSON object; fix or remove it", path.display())]
    NotObject { path: PathBuf },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Who may read the file once written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The user's alone (0600 whatever it was): `~/.claude.json` holds
    /// credentials and history.
    Private,
    /// A file a project shares (`.mcp.json`): an existing file keeps its
    /// permissions, a new one is 0644.
    Shared,
}

/// The JSON object in `path`; `None` when the file is missing or blank.
pub fn read(path: &Path) -> Result<Option<Map<String, Value>>, JsonFileError> {
    let text = match read_config_file(path, MAX_STATE_FILE_BYTES) {
        Ok(text) => text,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(source) => {
            let path = path.to_owned();
            return Err(JsonFileError::Read { path, source });
        }
    };
    if text.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(_) => Err(JsonFileError::NotObject {
            path: path.to_owned(),
        }),
        Err(e) => Err(JsonFileError::Syntax {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: without_position(&e.to_string()),
        }),
    }
}

/// Applies `change` to the object in `path` (empty when the file is missing
/// or blank) and writes it back if `change` returns true; returns whether it
/// did. Under the lock on the file's folder (created 0700 when missing). A
/// missing file is not created for a change that changes nothing; an error of
/// `change` leaves the file as it was.
pub fn edit<E: From<JsonFileError>>(
    path: &Path,
    access: Access,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<bool, E>,
) -> Result<bool, E> {
    let write_error = |source| JsonFileError::Write {
        path: path.to_owned(),
        source,
    };
    let folder = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        tack_sys::private_file::create_dirs_private(folder).map_err(write_error)?;
    }
    let _lock = tack_sys::file_lock::lock_exclusive(folder).map_err(write_error)?;
    let mut object = read(path)?.unwrap_or_default();
    if !change(&mut object)? {
        return Ok(false);
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(object)).unwrap_or_default();
    text.push('\n');
    let target = through_link(path).map_err(write_error)?;
    let written = match access {
        Access::Private => tack_sys::write_atomic_private(&target, text.as_bytes()),
        Access::Shared => tack_sys::write_atomic_with_mode(&target, text.as_bytes(), Some(0o644)),
    };
    written.map_err(write_error)?;
    Ok(true)
}

/// The file a symlink at `path` points to (so an atomic rename replaces the
/// file and the link stays); `path` itself otherwise. A dangling link is
/// refused rather than replaced.
fn through_link(path: &Path) -> std::io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path),
        _ => Ok(path.to_owned()),
    }
}

/// serde_json's message without its own " at line L column C" suffix.
pub fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}
