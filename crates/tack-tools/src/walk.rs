//! The directory walk shared by Glob, Grep and LS: the `ignore` crate's walker
//! with ripgrep's filters (.gitignore, .ignore, hidden files), except that
//! .gitignore files count outside git repositories too, and `.git` itself is
//! never entered.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use serde_json::Value;
use tack_tool::{ToolEnv, ToolError};

use crate::file_state;

pub(crate) fn walker(root: &Path, skip_hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(true)
        .hidden(skip_hidden)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    // (LS replaces this filter with one that also applies its ignore globs.)
    builder
}

/// The directory (or file) to search: `path` resolved against the cwd, or the
/// cwd. Models sometimes send the strings "undefined" or "null" for "none".
pub(crate) fn search_root(env: &ToolEnv, path: Option<&str>) -> PathBuf {
    match path.map(str::trim) {
        None | Some("" | "undefined" | "null") => env.cwd(),
        Some(p) => file_state::resolve(env, p),
    }
}

/// `search_root` for `paths_touched`, from the raw input.
pub(crate) fn touched_root(env: &ToolEnv, input: &Value) -> Vec<PathBuf> {
    vec![search_root(env, input.get("path").and_then(Value::as_str))]
}

pub(crate) fn missing_root(root: &Path, env: &ToolEnv) -> ToolError {
    ToolError::new(format!(
        "Path does not exist: {}. Current working directory: {}",
        root.display(),
        env.cwd().display()
    ))
}
