//! What a permission dialog shows of a file edit: the file as it is now.

use std::path::Path;

use serde_json::Value;

/// Files larger than this are not read for a permission dialog's diff.
const MAX_DIFF_FILE: u64 = 1024 * 1024;

/// The file a Write, Edit or MultiEdit call would change, as it is now
/// ([`crate::event::PermissionRequest::original`]).
pub(super) fn original_file(tool: &str, input: &Value, cwd: &Path) -> Option<String> {
    if !matches!(tool, "Write" | "Edit" | "MultiEdit") {
        return None;
    }
    let path = cwd.join(input.get("file_path")?.as_str()?);
    tack_tools::read_small_text(&path, MAX_DIFF_FILE)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::original_file;

    #[test]
    fn a_dialog_gets_the_file_an_edit_would_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
        let input = json!({"file_path": "a.txt", "old_string": "old", "new_string": "new"});
        assert_eq!(
            original_file("Edit", &input, dir.path()).as_deref(),
            Some("old\n")
        );
        assert_eq!(original_file("Bash", &input, dir.path()), None);
        let missing = json!({"file_path": "b.txt", "content": "x"});
        assert_eq!(original_file("Write", &missing, dir.path()), None);
        // Never a FIFO (it would block the session).
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let input = json!({"file_path": "fifo", "content": "x"});
        assert_eq!(original_file("Write", &input, dir.path()), None);
    }
}
