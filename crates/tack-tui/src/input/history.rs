//! Prompt history across sessions: a JSON-lines file under the config dir,
//! browsed with Up/Down and searched with Ctrl+R.

use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Entries kept in memory per project.
const MAX_ENTRIES: usize = 1_000;

/// File name under the config dir.
pub const HISTORY_FILE: &str = "prompt_history.jsonl";

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    display: String,
    project: String,
    timestamp: u64,
}

/// The prompts of one project, oldest first, and where Up/Down browsing is.
#[derive(Debug, Clone, Default)]
pub struct PromptHistory {
    file: Option<PathBuf>,
    project: String,
    entries: Vec<String>,
    /// Index into `entries` while browsing.
    browsing: Option<usize>,
    /// What was typed before browsing started.
    draft: String,
}

impl PromptHistory {
    /// A history kept only in memory.
    pub fn in_memory(entries: Vec<String>) -> PromptHistory {
        PromptHistory {
            entries,
            ..PromptHistory::default()
        }
    }

    /// Loads the prompts of `project` from `<config_dir>/prompt_history.jsonl`.
    /// A missing file is an empty history; unreadable lines are skipped.
    pub fn load(config_dir: &Path, project: &Path) -> io::Result<PromptHistory> {
        let file = config_dir.join(HISTORY_FILE);
        let project = project.to_string_lossy().into_owned();
        let mut entries = Vec::new();
        match std::fs::File::open(&file) {
            Ok(f) => {
                for line in BufReader::new(f).lines() {
                    let line = line?;
                    if let Ok(rec) = serde_json::from_str::<Record>(&line)
                        && rec.project == project
                        && entries.last() != Some(&rec.display)
                    {
                        entries.push(rec.display);
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        if entries.len() > MAX_ENTRIES {
            entries.drain(..entries.len() - MAX_ENTRIES);
        }
        Ok(PromptHistory {
            file: Some(file),
            project,
            entries,
            browsing: None,
            draft: String::new(),
        })
    }

    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Adds a submitted prompt (and appends it to the file).
    pub fn record(&mut self, text: &str) -> io::Result<()> {
        self.browsing = None;
        if text.trim().is_empty() || self.entries.last().map(String::as_str) == Some(text) {
            return Ok(());
        }
        self.entries.push(text.to_string());
        let Some(file) = &self.file else {
            return Ok(());
        };

        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let rec = Record {
            display: text.to_string(),
            project: self.project.clone(),
            timestamp,
        };
        let mut line = serde_json::to_string(&rec).map_err(io::Error::other)?;
        line.push('\n');
        let mut f = tack_sys::private_file::open_private_append(file)?;
        f.write_all(line.as_bytes())
    }

    /// Up: the previous (older) prompt, remembering `current` as the draft.
    pub fn older(&mut self, current: &str) -> Option<String> {
        let next = match self.browsing {
            None => {
                self.draft = current.to_string();
                self.entries.len().checked_sub(1)?
            }
            Some(0) => return None,
            Some(i) => i - 1,
        };
        self.browsing = Some(next);
        Some(self.entries[next].clone())
    }

    /// Down: the next (newer) prompt, and past the newest the draft.
    pub fn newer(&mut self) -> Option<String> {
        let i = self.browsing?;
        if i + 1 < self.entries.len() {
            self.browsing = Some(i + 1);
            Some(self.entries[i + 1].clone())
        } else {
            self.browsing = None;
            Some(std::mem::take(&mut self.draft))
        }
    }

    /// Stops browsing (the text was edited or submitted).
    pub fn reset(&mut self) {
        self.browsing = None;
    }

    /// Ctrl+R: the newest entry containing `query` (case-insensitive) older than
    /// index `before` (all entries when `None`).
    pub fn search(&self, query: &str, before: Option<usize>) -> Option<(usize, &str)> {
        let end = before.unwrap_or(self.entries.len()).min(self.entries.len());
        let needle = query.to_lowercase();
        self.entries[..end]
            .iter()
            .enumerate()
            .rev()
            .find(|(_, e)| e.to_lowercase().contains(&needle))
            .map(|(i, e)| (i, e.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn persists_per_project_across_loads() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = PromptHistory::load(dir.path(), Path::new("/p/a")).unwrap();
        a.record("first").unwrap();
        a.record("second").unwrap();
        a.record("second").unwrap();
        let mut b = PromptHistory::load(dir.path(), Path::new("/p/b")).unwrap();
        b.record("other project").unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(HISTORY_FILE))
            .unwrap()
            .write_all(b"not json\n")
            .unwrap();
        let a = PromptHistory::load(dir.path(), Path::new("/p/a")).unwrap();
        assert_eq!(a.entries(), ["first", "second"]);
    }

    #[test]
    fn browses_and_restores_the_draft() {
        let mut h = PromptHistory::in_memory(vec!["one".into(), "two".into()]);
        assert_eq!(h.older("draft"), Some("two".into()));
        assert_eq!(h.older("two"), Some("one".into()));
        assert_eq!(h.older("one"), None);
        assert_eq!(h.newer(), Some("two".into()));
        assert_eq!(h.newer(), Some("draft".into()));
        assert_eq!(h.newer(), None);
    }

    #[test]
    fn searches_backwards() {
        let h =
            PromptHistory::in_memory(vec!["cargo test".into(), "ls".into(), "Cargo build".into()]);
        assert_eq!(h.search("cargo", None), Some((2, "Cargo build")));
        assert_eq!(h.search("cargo", Some(2)), Some((0, "cargo test")));
        assert_eq!(h.search("cargo", Some(0)), None);
    }
}
