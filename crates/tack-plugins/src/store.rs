//! Where Claude Code keeps plugins (`<config dir>/plugins/`), and the one way
//! this crate reads and writes its JSON files: bounded reads, objects only,
//! atomic writes that keep every key it does not own.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::InstallError;

/// A JSON file larger than this is refused (a marketplace of thousands of
/// plugins is far below it).
pub(crate) const MAX_JSON_BYTES: u64 = 8 << 20;

/// `<config dir>/plugins/` and the paths in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginsDir {
    pub root: PathBuf,
}

impl PluginsDir {
    /// The plugins folder of Claude Code's config dir (`$CLAUDE_CONFIG_DIR`,
    /// else `~/.claude`).
    pub fn new(claude_dir: &Path) -> PluginsDir {
        PluginsDir {
            root: claude_dir.join("plugins"),
        }
    }

    pub fn known_marketplaces(&self) -> PathBuf {
        self.root.join("known_marketplaces.json")
    }

    pub fn installed_plugins(&self) -> PathBuf {
        self.root.join("installed_plugins.json")
    }

    /// Where a cloned or fetched marketplace is kept.
    pub fn marketplace_dir(&self, name: &str) -> PathBuf {
        self.root.join("marketplaces").join(name)
    }

    /// `cache/<marketplace>/<plugin>/<version>`.
    pub fn cache_dir(&self, marketplace: &str, plugin: &str, version: &str) -> PathBuf {
        self.root
            .join("cache")
            .join(marketplace)
            .join(plugin)
            .join(version)
    }

    /// A fresh folder to build something in before it is moved into place
    /// (same file system, so the move is a rename).
    pub(crate) fn staging(&self, what: &str) -> Result<tempfile::TempDir, InstallError> {
        let dir = self.root.join(".staging");
        tack_sys::private_file::create_dirs_private(&dir).map_err(|source| {
            InstallError::Write {
                path: dir.clone(),
                source,
            }
        })?;
        tempfile::Builder::new()
            .prefix(what)
            .tempdir_in(&dir)
            .map_err(|source| InstallError::Write { path: dir, source })
    }
}

impl PluginsDir {
    /// Removes the staging folder when nothing is being built in it, so the
    /// plugins folder holds only what Claude Code expects.
    pub fn tidy(&self) {
        let _ = std::fs::remove_dir(self.root.join(".staging"));
    }

    /// Holds the plugins folder's state (`known_marketplaces.json`,
    /// `installed_plugins.json`, the settings' `enabledPlugins`, the clones and
    /// the cache) for one `tack plugin` command: a second tack changing them
    /// waits, so neither write loses the other's entry. The lock is on the
    /// folder itself (no file of its own), released when the returned lock
    /// drops or the process dies.
    pub fn lock(&self) -> Result<tack_sys::FileLock, InstallError> {
        let write = |source| InstallError::Write {
            path: self.root.clone(),
            source,
        };
        tack_sys::private_file::create_dirs_private(&self.root).map_err(write)?;
        tack_sys::lock_exclusive(&self.root).map_err(write)
    }
}

/// The JSON object in `path`; a missing file is an empty object.
pub(crate) fn read_object(path: &Path) -> Result<Map<String, Value>, InstallError> {
    match read_value(path)? {
        None => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err(InstallError::Json {
            path: path.to_path_buf(),
            message: "must be a JSON object".to_owned(),
        }),
    }
}

/// The JSON value in `path`, `None` when the file does not exist.
pub(crate) fn read_value(path: &Path) -> Result<Option<Value>, InstallError> {
    let text = match tack_sys::read_config_file(path, MAX_JSON_BYTES) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(InstallError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| InstallError::Json {
            path: path.to_path_buf(),
            message: format!("not valid JSON: {e}"),
        })
}

/// Writes `value` as Claude Code does (two-space indent, a final newline),
/// atomically, creating the folder: a file of the plugins folder, the
/// user's alone (0600 in folders 0700).
pub(crate) fn write_value(path: &Path, value: &Value) -> Result<(), InstallError> {
    let text = json_text(value);
    tack_sys::write_atomic_private(path, text.as_bytes()).map_err(write_error(path))
}

/// [`write_value`] for a settings file, which may be a project's: an
/// existing file keeps its mode, a new one is 0600 (missing folders 0700).
pub(crate) fn write_settings(path: &Path, value: &Value) -> Result<(), InstallError> {
    let text = json_text(value);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        tack_sys::private_file::create_dirs_private(dir).map_err(write_error(path))?;
    }
    let mode = Some(tack_sys::private_file::FILE_MODE);
    tack_sys::write_atomic_with_mode(path, text.as_bytes(), mode).map_err(write_error(path))
}

fn json_text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

fn write_error(path: &Path) -> impl Fn(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// Now, as Claude Code writes times (`2026-01-11T03:25:18.278Z`).
pub(crate) fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// Removes a folder and everything in it; a missing one is fine.
pub(crate) fn remove_dir(path: &Path) -> Result<(), InstallError> {
    match std::fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(InstallError::Write {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Moves `from` to `to`, replacing what is there. What moves in (a copy,
/// a clone) is made the user's alone first, as everything under the config
/// dir is.
pub(crate) fn replace_dir(from: &Path, to: &Path) -> Result<(), InstallError> {
    let write = |source| InstallError::Write {
        path: to.to_path_buf(),
        source,
    };
    tack_sys::private_file::restrict_tree(from).map_err(write)?;
    if let Some(parent) = to.parent() {
        tack_sys::private_file::create_dirs_private(parent).map_err(write)?;
    }
    remove_dir(to)?;
    std::fs::rename(from, to).map_err(write)
}
