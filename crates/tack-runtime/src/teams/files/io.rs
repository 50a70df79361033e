//! Reading and writing one team file: bounded reads, atomic private writes,
//! and the folder lock every read-modify-write holds.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;
use tack_sys::FileLock;
use tack_sys::config_file::{is_missing, read_config_file};

use super::error::TeamFileError;

/// Largest team file read (an inbox of long messages stays far below it).
const MAX_TEAM_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The file's value, `None` when it does not exist.
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, TeamFileError> {
    let text = match read_config_file(path, MAX_TEAM_FILE_BYTES) {
        Ok(text) => text,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) => return Err(TeamFileError::io(path)(e)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| TeamFileError::malformed(path, e))
}

/// Replaces the file with `value` as Claude Code writes it (two-space JSON).
pub(crate) fn write<T: Serialize>(path: &Path, value: &T) -> Result<(), TeamFileError> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| TeamFileError::malformed(path, e))?;
    tack_sys::write_atomic_private(path, text.as_bytes()).map_err(TeamFileError::io(path))
}

/// The exclusive lock on `dir` (created private if missing), held while a
/// file in it is read, changed and replaced.
pub(crate) fn lock_dir(dir: &Path) -> Result<FileLock, TeamFileError> {
    tack_sys::private_file::create_dirs_private(dir).map_err(TeamFileError::io(dir))?;
    tack_sys::lock_exclusive(dir).map_err(TeamFileError::io(dir))
}

/// Claude Code's lock on `path` (proper-lockfile's `<path>.lock` folder),
/// taken after [`lock_dir`].
pub(crate) fn lock_cc(path: &Path) -> Result<tack_sys::cc_lock::CcLock, TeamFileError> {
    tack_sys::cc_lock::hold(path).map_err(TeamFileError::io(path))
}
