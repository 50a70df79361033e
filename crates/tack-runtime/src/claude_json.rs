//! Claude Code's state file, `~/.claude.json` (and tack's `config.json` of
//! the same shape): read whole; changed by
//! [`tack_config::json_object_file::edit`] (under the lock on its folder that
//! `tack mcp add`, other tacks and the trust dialog take; atomically, 0600,
//! every other key kept; a broken file is an error naming it and is left as
//! it was).

use std::path::Path;

use serde_json::{Map, Value};
use tack_config::json_object_file::{self, Access};

/// The file could not be read, parsed or written.
pub type ClaudeJsonError = json_object_file::JsonFileError;

/// The JSON object in `path`; empty if the file is missing or blank.
pub fn read(path: &Path) -> Result<Map<String, Value>, ClaudeJsonError> {
    Ok(json_object_file::read(path)?.unwrap_or_default())
}

/// Applies `change` to the object in `path` and writes it back, under the
/// lock on its folder (created 0700 when missing).
pub fn edit(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>),
) -> Result<(), ClaudeJsonError> {
    json_object_file::edit(path, Access::Private, |object| {
        change(object);
        Ok::<_, ClaudeJsonError>(true)
    })?;
    Ok(())
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
        assert!(matches!(err, ClaudeJsonError::Syntax { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{broken");
    }
}
