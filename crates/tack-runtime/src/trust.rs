//! Workspace trust: which folders the user has trusted, recorded in tack's
//! config dir (`<config>/config.json`, in the shape Claude Code keeps in
//! `~/.claude.json`: `{"projects": {"<dir>": {"hasTrustDialogAccepted": true,
//! "hasClaudeMdExternalIncludesApproved": true}}}`).
//!
//! A repository's committed settings are written by whoever wrote the
//! repository. Until its folder (or a parent) is trusted, tack-config leaves
//! out what those settings could use to run code or loosen permissions
//! (`tack_config::IgnoredUntrusted`); the terminal UI asks once, `tack trust`
//! does it for scripts. Other keys of the file are kept as they are.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

const FILE: &str = "config.json";
const TRUSTED: &str = "hasTrustDialogAccepted";
const EXTERNAL_IMPORTS: &str = "hasClaudeMdExternalIncludesApproved";

/// The trust records in one config dir, and in Claude Code's `.claude.json`
/// (same shape) when given: a folder trusted in either is trusted, and trusting
/// one records it in both, so Claude Code and tack agree.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
    claude_json: Option<PathBuf>,
}

/// The config file could not be read or written.
pub type TrustError = crate::claude_json::ClaudeJsonError;

/// Why trusting `dir` for good would be too broad: trust covers every folder
/// below, so trusting the home folder (or `/`) would trust every repository
/// cloned under it. `None`: `dir` is an ordinary folder. The trust dialog
/// trusts such a folder for the session only; `tack trust` needs `--force`.
pub fn too_broad_to_trust(dir: &Path, home: Option<&Path>) -> Option<&'static str> {
    let same = |a: &Path, b: &Path| {
        a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
    };
    if dir.parent().is_none() {
        Some("it is the root folder: trusting it would trust every project on this machine")
    } else if home.is_some_and(|h| same(dir, h)) {
        Some("it is your home folder: trusting it would trust every project under it")
    } else {
        None
    }
}

/// What the user has approved for a folder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trust {
    /// The folder or one of its parents is trusted.
    pub trusted: bool,
    /// Its memory files may import files from outside the project.
    pub external_imports: bool,
}

impl TrustStore {
    pub fn new(config_dir: &Path) -> TrustStore {
        TrustStore {
            path: config_dir.join(FILE),
            claude_json: None,
        }
    }

    /// Also reads and writes the trust Claude Code keeps in `file`
    /// (`~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json`).
    #[must_use]
    pub fn also_claude_json(mut self, file: Option<PathBuf>) -> TrustStore {
        self.claude_json = file;
        self
    }

    fn files(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.path.as_path()).chain(self.claude_json.as_deref())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is approved for `dir`: a record for `dir` or any parent counts.
    /// A missing file approves nothing; an unreadable one is an error (the
    /// caller reports it and treats the folder as untrusted).
    pub fn lookup(&self, dir: &Path) -> Result<Trust, TrustError> {
        let mut trust = Trust::default();
        for file in self.files() {
            let config = crate::claude_json::read(file)?;
            let Some(projects) = config.get("projects").and_then(Value::as_object) else {
                continue;
            };
            lookup_in(projects, dir, &mut trust);
        }
        Ok(trust)
    }

    /// Records `dir` as trusted (and, with `external_imports`, its memory files'
    /// imports from outside the project as approved), in every file. Written
    /// atomically; other keys are kept.
    pub fn trust(&self, dir: &Path, external_imports: bool) -> Result<(), TrustError> {
        for file in self.files() {
            trust_in(file, dir, external_imports)?;
        }
        Ok(())
    }
}

/// Adds to `trust` what `projects` approves for `dir` or a parent.
fn lookup_in(projects: &Map<String, Value>, dir: &Path, trust: &mut Trust) {
    for ancestor in dir.ancestors() {
        let Some(entry) = projects.get(&ancestor.to_string_lossy().into_owned()) else {
            continue;
        };
        let flag = |key| entry.get(key).and_then(Value::as_bool) == Some(true);
        trust.trusted |= flag(TRUSTED);
        trust.external_imports |= flag(EXTERNAL_IMPORTS);
    }
}

/// [`TrustStore::trust`] in one file.
fn trust_in(path: &Path, dir: &Path, external_imports: bool) -> Result<(), TrustError> {
    crate::claude_json::edit(path, |config| {
        let projects = config.entry("projects").or_insert_with(|| json!({}));
        if !projects.is_object() {
            *projects = json!({});
        }
        let key = dir.to_string_lossy().into_owned();
        if let Some(projects) = projects.as_object_mut() {
            let entry = projects.entry(key).or_insert_with(|| json!({}));
            if !entry.is_object() {
                *entry = json!({});
            }
            entry[TRUSTED] = Value::Bool(true);
            if external_imports {
                entry[EXTERNAL_IMPORTS] = Value::Bool(true);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn trust_covers_subfolders_keeps_other_keys_and_survives_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::new(dir.path());
        let repo = Path::new("/work/repo");
        assert_eq!(store.lookup(repo).unwrap(), Trust::default());

        std::fs::write(
            store.path(),
            r#"{"mcpServers": {"x": {}}, "projects": {"/other": {"a": 1}}}"#,
        )
        .unwrap();
        store.trust(repo, false).unwrap();
        assert_eq!(
            store.lookup(&repo.join("sub/dir")).unwrap(),
            Trust {
                trusted: true,
                external_imports: false
            }
        );
        assert_eq!(store.lookup(Path::new("/work")).unwrap(), Trust::default());
        store.trust(repo, true).unwrap();
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(store.path()).unwrap()).unwrap();
        assert_eq!(
            written,
            json!({
                "mcpServers": {"x": {}},
                "projects": {
                    "/other": {"a": 1},
                    "/work/repo": {"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true}
                }
            })
        );
    }

    #[test]
    fn trusting_waits_for_the_lock_tack_mcp_add_takes_on_the_files_folder() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::new(dir.path());
        let folder = store.path().parent().unwrap().to_path_buf();
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(store.path(), r#"{"mcpServers": {"added": {}}}"#).unwrap();
        let held = tack_sys::file_lock::lock_exclusive(&folder).unwrap();
        let trusting = {
            let store = store.clone();
            std::thread::spawn(move || store.trust(Path::new("/r"), false).unwrap())
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        let unchanged = std::fs::read_to_string(store.path()).unwrap();
        drop(held);
        trusting.join().unwrap();
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(store.path()).unwrap()).unwrap();
        assert_eq!(
            (unchanged.as_str(), written),
            (
                r#"{"mcpServers": {"added": {}}}"#,
                json!({"mcpServers": {"added": {}}, "projects": {"/r": {"hasTrustDialogAccepted": true}}})
            )
        );
    }

    #[test]
    fn the_root_and_the_home_folder_are_too_broad_to_trust() {
        let home = tempfile::tempdir().unwrap();
        let reasons = [
            Path::new("/"),
            home.path(),
            &home.path().join("."),
            &home.path().join("repo"),
        ]
        .map(|d| too_broad_to_trust(d, Some(home.path())));
        assert_eq!(
            reasons,
            [
                Some(
                    "it is the root folder: trusting it would trust every project on this machine"
                ),
                Some("it is your home folder: trusting it would trust every project under it"),
                Some("it is your home folder: trusting it would trust every project under it"),
                None,
            ]
        );
    }

    #[test]
    fn a_broken_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::new(dir.path());
        std::fs::write(store.path(), "{not json").unwrap();
        let err = store.lookup(Path::new("/x")).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{} is not valid JSON", store.path().display())),
            "{err}"
        );
        assert!(store.trust(Path::new("/x"), false).is_err());
    }
}
