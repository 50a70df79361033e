//! `#note`: a line for the project's memory file, CLAUDE.md (or AGENTS.md when
//! that is the one the project has).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The memory file of the project at `project_dir`: `CLAUDE.md` if it exists,
/// else `AGENTS.md` if that exists, else `CLAUDE.md` (to be created).
pub fn memory_file(project_dir: &Path) -> PathBuf {
    let claude = project_dir.join("CLAUDE.md");
    let agents = project_dir.join("AGENTS.md");
    if !claude.exists() && agents.exists() {
        agents
    } else {
        claude
    }
}

/// Appends `note` as a list item to `file` (on a line of its own).
pub fn add_note(file: &Path, note: &str) -> std::io::Result<()> {
    let note = note.trim();
    let ends_in_newline = match std::fs::read(file) {
        Ok(bytes) => bytes.is_empty() || bytes.ends_with(b"\n"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => return Err(e),
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    let lead = if ends_in_newline { "" } else { "\n" };
    f.write_all(format!("{lead}- {note}\n").as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn notes_go_to_claude_md_or_the_agents_md_the_project_has() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(memory_file(dir.path()), dir.path().join("CLAUDE.md"));
        std::fs::write(dir.path().join("AGENTS.md"), "# Agents\nno newline").unwrap();
        let file = memory_file(dir.path());
        assert_eq!(file, dir.path().join("AGENTS.md"));
        add_note(&file, " use tabs ").unwrap();
        add_note(&file, "run make test").unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "# Agents\nno newline\n- use tabs\n- run make test\n"
        );
        std::fs::write(dir.path().join("CLAUDE.md"), "").unwrap();
        assert_eq!(memory_file(dir.path()), dir.path().join("CLAUDE.md"));
    }
}
