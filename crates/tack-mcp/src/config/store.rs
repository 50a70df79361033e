//! Writing server entries where Claude Code keeps them (user and local
//! scopes in `.claude.json`, the project's in `.mcp.json`): under a lock on
//! the file's folder, read the whole file, change one entry, write a
//! temporary file beside it, fsync, rename. Other keys of the file are kept; a
//! file that does not parse is left alone and reported. Servers an older tack
//! wrote to its own `mcp.json` are still read, and `remove` takes them out
//! of it too.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tack_protocol::json_kind::kind_of;
use tack_sys::config_file::{is_missing, read_config_file};

use super::file::{ConfigScope, MAX_USER_FILE_BYTES, McpConfigError, parse_json};
use super::load::McpPaths;
use super::server::ServerConfig;

/// Why an entry could not be written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Config(#[from] McpConfigError),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no config directory for the {0} scope (is HOME set?)")]
    NoFile(ConfigScope),
    #[error("the dynamic scope (--mcp-config) cannot be edited")]
    Dynamic,
    #[error("a plugin's MCP servers are edited in the plugin")]
    Plugin,
}

/// The file `tack mcp add` writes `scope`'s servers to, where Claude Code
/// keeps them: `.claude.json` for the user and local scopes, `.mcp.json` for
/// the project.
pub(crate) fn scope_file(paths: &McpPaths, scope: ConfigScope) -> Result<PathBuf, StoreError> {
    match scope {
        ConfigScope::Project => Ok(paths.project_file()),
        ConfigScope::User | ConfigScope::Local => {
            paths.claude_file.clone().ok_or(StoreError::NoFile(scope))
        }
        ConfigScope::Dynamic => Err(StoreError::Dynamic),
        ConfigScope::Plugin => Err(StoreError::Plugin),
    }
}

/// Every file `scope`'s servers are read from and may be removed from: the
/// one [`scope_file`] names, then tack's own `mcp.json` of earlier versions
/// (user and local scopes).
pub(crate) fn scope_files(paths: &McpPaths, scope: ConfigScope) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = scope_file(paths, scope).into_iter().collect();
    if matches!(scope, ConfigScope::User | ConfigScope::Local) {
        files.extend(paths.tack_file.clone());
    }
    files
}

/// Adds or replaces `name` in `scope`; returns the file written.
pub(crate) fn put_server(
    paths: &McpPaths,
    scope: ConfigScope,
    name: &str,
    config: &ServerConfig,
) -> Result<PathBuf, StoreError> {
    let path = scope_file(paths, scope)?;
    edit(&path, paths, scope, |servers| {
        servers.insert(name.to_string(), config.to_json());
        true
    })?;
    Ok(path)
}

/// Removes `name` from `scope`, from each file that has it (Claude Code's
/// and tack's older `mcp.json` alike); the files changed, none when it was
/// not there.
pub(crate) fn delete_server(
    paths: &McpPaths,
    scope: ConfigScope,
    name: &str,
) -> Result<Vec<PathBuf>, StoreError> {
    let mut changed = Vec::new();
    for path in scope_files(paths, scope) {
        let mut found = false;
        edit(&path, paths, scope, |servers| {
            found = servers.remove(name).is_some();
            found
        })?;
        if found {
            changed.push(path);
        }
    }
    Ok(changed)
}

/// Applies `change` to the `mcpServers` object of `scope` in `path` and
/// writes the file if `change` returns true: under an exclusive lock on the
/// file's folder (`.claude.json` is Claude Code's big state file, written by
/// other tack processes too), atomically, every other key kept. A missing
/// file is not created for a change that changes nothing.
fn edit(
    path: &Path,
    paths: &McpPaths,
    scope: ConfigScope,
    change: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<(), StoreError> {
    let write_error = |source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    };
    let folder = path.parent().unwrap_or(Path::new("/"));
    if !folder.is_dir() {
        tack_sys::private_file::create_dirs_private(folder).map_err(write_error)?;
    }
    let _lock = tack_sys::file_lock::lock_exclusive(folder).map_err(write_error)?;
    let origin = path.display().to_string();
    let existing = match read_config_file(path, MAX_USER_FILE_BYTES) {
        Ok(text) => Some(text),
        Err(e) if is_missing(&e) => None,
        Err(source) => {
            let path = path.to_path_buf();
            return Err(McpConfigError::Read { path, source }.into());
        }
    };
    let mut doc = match &existing {
        Some(text) if !text.trim().is_empty() => parse_json(text, &origin)?,
        _ => Value::Object(Map::new()),
    };
    let shape = |message: String| McpConfigError::Shape {
        origin: origin.clone(),
        message,
    };
    let root = doc
        .as_object_mut()
        .ok_or_else(|| shape("the file is not a JSON object".into()))?;
    let holder = match scope {
        ConfigScope::Local => {
            let key = paths.project_dir.to_string_lossy().into_owned();
            let projects = object_at(root, "projects").map_err(&shape)?;
            object_at(projects, &key).map_err(|m| shape(format!("projects[\"{key}\"]: {m}")))?
        }
        ConfigScope::User | ConfigScope::Project | ConfigScope::Dynamic | ConfigScope::Plugin => {
            root
        }
    };
    let servers = object_at(holder, "mcpServers").map_err(&shape)?;
    if change(servers) {
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        // User and local entries may hold credentials (~/.claude.json is
        // the user's alone); .mcp.json is shared.
        let private = scope != ConfigScope::Project;
        write_atomically(path, &text, private)?;
    }
    Ok(())
}

/// The object under `key`, created if absent.
fn object_at<'a>(
    parent: &'a mut Map<String, Value>,
    key: &str,
) -> Result<&'a mut Map<String, Value>, String> {
    let value = parent
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    let kind = kind_of(value);
    value
        .as_object_mut()
        .ok_or_else(|| format!("`{key}` must be an object, found {kind}"))
}

/// Writes `text` to `path` atomically: 0600 when `private`; else an
/// existing file keeps its permissions and a new one is 0644.
fn write_atomically(path: &Path, text: &str, private: bool) -> Result<(), StoreError> {
    let written = if private {
        tack_sys::write_atomic_private(path, text.as_bytes())
    } else {
        tack_sys::write_atomic_with_mode(path, text.as_bytes(), Some(0o644))
    };
    written.map_err(|source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    })
}
