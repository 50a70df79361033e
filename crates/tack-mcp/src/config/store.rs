//! Writing server entries where Claude Code keeps them (user and local
//! scopes in `.claude.json`, the project's in `.mcp.json`): under a lock on
//! the file's folder, read the whole file, change one entry, write a
//! temporary file beside it, fsync, rename. Other keys of the file are kept; a
//! file that does not parse is left alone and reported. Servers an older tack
//! wrote to its own `mcp.json` are still read, and `remove` takes them out
//! of it too.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tack_config::json_object_file::{self, Access, JsonFileError};
use tack_protocol::json_kind::kind_of;

use super::file::{ConfigScope, McpConfigError};
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
/// writes the file if `change` returns true, as
/// [`tack_config::json_object_file::edit`] does (`.claude.json` is Claude
/// Code's big state file, written by other tack processes too). User and
/// local entries may hold credentials (`~/.claude.json` is the user's alone);
/// `.mcp.json` is shared.
fn edit(
    path: &Path,
    paths: &McpPaths,
    scope: ConfigScope,
    change: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<(), StoreError> {
    let access = match scope {
        ConfigScope::Project => Access::Shared,
        _ => Access::Private,
    };
    let origin = path.display().to_string();
    let shape = |message: String| McpConfigError::Shape {
        origin: origin.clone(),
        message,
    };
    json_object_file::edit(path, access, |root| {
        let holder = match scope {
            ConfigScope::Local => {
                let key = paths.project_dir.to_string_lossy().into_owned();
                let projects = object_at(root, "projects").map_err(&shape)?;
                object_at(projects, &key).map_err(|m| shape(format!("projects[\"{key}\"]: {m}")))?
            }
            ConfigScope::User
            | ConfigScope::Project
            | ConfigScope::Dynamic
            | ConfigScope::Plugin => root,
        };
        let servers = object_at(holder, "mcpServers").map_err(&shape)?;
        Ok::<_, StoreError>(change(servers))
    })?;
    Ok(())
}

impl From<JsonFileError> for StoreError {
    fn from(e: JsonFileError) -> StoreError {
        match e {
            JsonFileError::Read { path, source } => McpConfigError::Read { path, source }.into(),
            JsonFileError::Syntax {
                path,
                line,
                column,
                message,
            } => McpConfigError::Syntax {
                origin: path.display().to_string(),
                line,
                column,
                message,
            }
            .into(),
            JsonFileError::NotObject { path } => McpConfigError::Shape {
                origin: path.display().to_string(),
                message: "the file is not a JSON object".into(),
            }
            .into(),
            JsonFileError::Write { path, source } => StoreError::Write { path, source },
        }
    }
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
