//! Claude Code's state file, `~/.claude.json` (and tack's `config.json` of
//! the same shape): read whole; changed under an exclusive lock on its
//! folder (`tack mcp add`, other tacks and the trust dialog write it too)
//! and written atomically, 0600, every other key kept.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ClaudeJsonError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid JSON ({source}); fix or remove it")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The JSON object in `path`; empty if the file is missing, blank or not
/// an object.
pub fn read(path: &Path) -> Result<Map<String, Value>, ClaudeJsonError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(source) => {
            return Err(ClaudeJsonError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Ok(Map::new()),
        Err(source) => Err(ClaudeJsonError::Parse {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Applies `change` to the object in `path` and writes it back, under the
/// lock on its folder (created 0700 when missing).
pub fn edit(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>),
) -> Result<(), ClaudeJsonError> {
    let write_error = |source| ClaudeJsonError::Write {
        path: path.to_owned(),
        source,
    };
    let folder = path.parent().unwrap_or(Path::new("/"));
    if !folder.is_dir() {
        tack_sys::private_file::create_dirs_private(folder).map_err(write_error)?;
    }
    let _lock = tack_sys::file_lock::lock_exclusive(folder).map_err(write_error)?;
    let mut config = read(path)?;
    change(&mut config);
    let mut text = serde_json::to_string_pretty(&Value::Object(config)).unwrap_or_default();
    text.push('\n');
    // The user's alone, as transcripts are.
    tack_sys::write_atomic_private(path, text.as_bytes()).map_err(write_error)
}

/// `editorMode`: whether the prompt's vim mode is on (`"vim"`; Claude
/// Code's other values, `"normal"` and the older `"emacs"`, are off). A
/// file that cannot be read says off.
pub fn vim_mode(path: &Path) -> bool {
    read(path).is_ok_and(|c| c.get(EDITOR_MODE).and_then(Value::as_str) == Some("vim"))
}

/// Saves `editorMode` as Claude Code's `/vim` does: `"vim"` or `"normal"`.
pub fn set_vim_mode(path: &Path, vim: bool) -> Result<(), ClaudeJsonError> {
    let mode = if vim { "vim" } else { "normal" };
    edit(path, |c| {
        c.insert(EDITOR_MODE.to_owned(), Value::String(mode.to_owned()));
    })
}

const EDITOR_MODE: &str = "editorMode";

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_editor_mode_is_saved_beside_every_other_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("home/.claude.json");
        assert!(!vim_mode(&path));
        set_vim_mode(&path, true).unwrap();
        assert!(vim_mode(&path));
        std::fs::write(
            &path,
            r#"{"editorMode": "vim", "projects": {"/p": {"hasTrustDialogAccepted": true}}}"#,
        )
        .unwrap();
        set_vim_mode(&path, false).unwrap();
        assert!(!vim_mode(&path));
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            saved,
            json!({"editorMode": "normal", "projects": {"/p": {"hasTrustDialogAccepted": true}}})
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // Claude Code's older value is not vim; a broken file is an error
        // and is left as it was.
        std::fs::write(&path, r#"{"editorMode": "emacs"}"#).unwrap();
        assert!(!vim_mode(&path));
        std::fs::write(&path, "{broken").unwrap();
        assert!(!vim_mode(&path));
        let err = set_vim_mode(&path, true).unwrap_err();
        assert!(matches!(err, ClaudeJsonError::Parse { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{broken");
    }
}
