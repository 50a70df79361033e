//! What CwdChanged, FileChanged and ConfigChange hooks watch, the cheap way:
//! no file-system watcher thread, the files' modification times compared at
//! the session's own pace (after each main-agent tool call and before each
//! prompt). A change made and undone between two looks is not seen, and a
//! change while the session is idle is seen at the next prompt.
//!
//! - the session's cwd (a Bash `cd` moves it): CwdChanged;
//! - files: those FileChanged matchers name (`.envrc|.env`, in the cwd), or
//!   the `watchPaths` a SessionStart, CwdChanged or FileChanged hook returned
//!   (they replace the list): FileChanged `add` / `change` / `unlink`;
//! - the settings files (user, project, local): ConfigChange.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A file's state when last looked at: `None` when it did not exist.
type Seen = Option<SystemTime>;

fn look(path: &Path) -> Seen {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// One change found by [`Watch::changes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileChange {
    pub path: PathBuf,
    /// `add`, `change` or `unlink`.
    pub event: &'static str,
}

/// The watched state of one session.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    cwd: PathBuf,
    files: BTreeMap<PathBuf, Seen>,
    /// (ConfigChange `source`, file) → state.
    settings: BTreeMap<(&'static str, PathBuf), Seen>,
}

impl Watch {
    /// Starts watching from `cwd`, `files` and the `settings` files (with
    /// their ConfigChange source names).
    pub fn new(cwd: &Path, files: Vec<PathBuf>, settings: Vec<(&'static str, PathBuf)>) -> Watch {
        Watch {
            cwd: cwd.to_path_buf(),
            files: files.into_iter().map(|p| (p.clone(), look(&p))).collect(),
            settings: settings
                .into_iter()
                .map(|(s, p)| ((s, p.clone()), look(&p)))
                .collect(),
        }
    }

    /// The previous cwd when `now` differs from it (then `now` is kept).
    pub fn moved(&mut self, now: &Path) -> Option<PathBuf> {
        (self.cwd != now).then(|| std::mem::replace(&mut self.cwd, now.to_path_buf()))
    }

    /// Replaces the watched files (a hook's `watchPaths`).
    pub fn set_files(&mut self, paths: &[String]) {
        self.files = paths
            .iter()
            .map(|p| {
                let p = self.cwd.join(p);
                let seen = look(&p);
                (p, seen)
            })
            .collect();
    }

    /// The watched files that changed since the last look.
    pub fn changes(&mut self) -> Vec<FileChange> {
        let mut out = Vec::new();
        for (path, seen) in &mut self.files {
            let now = look(path);
            let event = match (*seen, now) {
                (None, Some(_)) => "add",
                (Some(_), None) => "unlink",
                (Some(a), Some(b)) if a != b => "change",
                _ => continue,
            };
            *seen = now;
            out.push(FileChange {
                path: path.clone(),
                event,
            });
        }
        out
    }

    /// The settings files that changed (or appeared) since the last look,
    /// with their sources.
    pub fn settings_changes(&mut self) -> Vec<(&'static str, PathBuf)> {
        let mut out = Vec::new();
        for ((source, path), seen) in &mut self.settings {
            let now = look(path);
            if now != *seen && now.is_some() {
                out.push((*source, path.clone()));
            }
            *seen = now;
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_seen_once_each() {
        let dir = tempfile::tempdir().unwrap();
        let env = dir.path().join(".envrc");
        let settings = dir.path().join("settings.json");
        let mut w = Watch::new(
            dir.path(),
            vec![env.clone()],
            vec![("project_settings", settings.clone())],
        );
        assert_eq!(w.changes(), vec![]);
        std::fs::write(&env, "a").unwrap();
        std::fs::write(&settings, "{}").unwrap();
        assert_eq!(
            w.changes(),
            vec![FileChange {
                path: env.clone(),
                event: "add"
            }]
        );
        assert_eq!(w.settings_changes(), vec![("project_settings", settings)]);
        assert_eq!(w.changes(), vec![]);
        std::fs::remove_file(&env).unwrap();
        assert_eq!(
            w.changes(),
            vec![FileChange {
                path: env,
                event: "unlink"
            }]
        );
        assert_eq!(w.moved(dir.path()), None);
        assert_eq!(w.moved(Path::new("/")), Some(dir.path().to_path_buf()));
    }
}
