//! The external editor (`$VISUAL` / `$EDITOR`): Ctrl+G edits the prompt in
//! it, `/memory edit` the memory file.

use std::io;
use std::path::Path;
use std::process::{Command, ExitStatus};

/// Runs `editor` (a shell command such as `vim` or `code --wait`) on `path`
/// with the terminal handed over, and waits for it. The command goes through
/// the shell so that editor flags work; the path is passed as a positional
/// parameter, never spliced into the command text. The caller suspends the
/// UI around this call.
pub fn launch_editor(editor: &str, path: &Path) -> io::Result<ExitStatus> {
    Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("tack-editor")
        .arg(path)
        .status()
}

/// Writes `text` to a temporary file in `dir`, runs `editor` on it (a shell
/// command such as `vim` or `code --wait`, typically `$VISUAL` / `$EDITOR`, read
/// by the caller) with the terminal handed over, and returns the file's content
/// without its final newline. The caller suspends the UI around this call.
pub fn edit_in_editor(editor: &str, text: &str, dir: &Path) -> io::Result<String> {
    let file = tempfile::Builder::new()
        .prefix("tack-prompt-")
        .suffix(".md")
        .tempfile_in(dir)?;
    std::fs::write(file.path(), text)?;
    let status = launch_editor(editor, file.path())?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "editor `{editor}` exited with {status}"
        )));
    }
    let edited = std::fs::read_to_string(file.path())?;
    Ok(edited.strip_suffix('\n').unwrap_or(&edited).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn returns_what_the_editor_wrote() {
        let dir = tempfile::tempdir().unwrap();
        // An "editor" that upper-cases the file in place.
        let edited = edit_in_editor(
            "f() { tr a-z A-Z < \"$1\" > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"; }; f",
            "fix the bug\nplease",
            dir.path(),
        )
        .unwrap();
        assert_eq!(edited, "FIX THE BUG\nPLEASE");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_path_is_one_argument_of_the_editor() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a b \"c\".md");
        std::fs::write(&path, "").unwrap();
        let status = launch_editor("printf '%s|' \"$#\" >", &path).unwrap();
        assert_eq!(
            (status.success(), std::fs::read_to_string(&path).unwrap()),
            (true, "1|".to_owned())
        );
    }

    #[test]
    fn a_failing_editor_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = edit_in_editor("false", "x", dir.path()).unwrap_err();
        assert!(err.to_string().contains("editor `false` exited"), "{err}");
    }
}
