//! Writing server entries: read the whole file, change one entry, write a
//! temporary file beside it, fsync, rename. Other keys of the file are kept; a
//! file that does not parse is left alone and reported.

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

/// The file holding `scope`'s servers.
pub(crate) fn scope_file(paths: &McpPaths, scope: ConfigScope) -> Result<PathBuf, StoreError> {
    match scope {
        ConfigScope::Project => Ok(paths.project_file()),
        ConfigScope::User | ConfigScope::Local => {
            paths.tack_file.clone().ok_or(StoreError::NoFile(scope))
        }
        ConfigScope::Dynamic => Err(StoreError::Dynamic),
        ConfigScope::Plugin => Err(StoreError::Plugin),
    }
}

/// Adds or replaces `name` in `scope`; returns the file written.
pub(crate) fn put_server(
    paths: &McpPaths,
    scope: ConfigScope,
    name: &str,
    config: &ServerConfig,
) -> Result<PathBuf, StoreError> {
    edit(paths, scope, |servers| {
        servers.insert(name.to_string(), config.to_json());
        true
    })
}

/// Removes `name` from `scope`; `Ok(None)` when it was not there.
pub(crate) fn delete_server(
    paths: &McpPaths,
    scope: ConfigScope,
    name: &str,
) -> Result<Option<PathBuf>, StoreError> {
    let mut found = false;
    let path = edit(paths, scope, |servers| {
        found = servers.remove(name).is_some();
        found
    })?;
    Ok(found.then_some(path))
}

/// Applies `change` to the scope's `mcpServers` object and writes the file if
/// `change` returns true.
fn edit(
    paths: &McpPaths,
    scope: ConfigScope,
    change: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<PathBuf, StoreError> {
    let path = scope_file(paths, scope)?;
    let origin = path.display().to_string();
    let existing = match read_config_file(&path, MAX_USER_FILE_BYTES) {
        Ok(text) => Some(text),
        Err(e) if is_missing(&e) => None,
        Err(source) => return Err(McpConfigError::Read { path, source }.into()),
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
        write_atomically(&path, &text, private)?;
    }
    Ok(path)
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
