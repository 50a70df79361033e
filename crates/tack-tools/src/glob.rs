//! Glob: files whose path matches a glob pattern, newest first.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use futures::FutureExt;
use futures::future::BoxFuture;
use globset::GlobBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};
use tokio_util::sync::CancellationToken;

use crate::tool_input;
use crate::walk;

/// Claude Code's Glob result cap.
pub(crate) const MAX_RESULTS: usize = 100;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GlobInput {
    /// The glob pattern, e.g. `**/*.rs` or `src/**/*.{ts,tsx}`.
    pattern: String,
    /// The directory to search in; omit it to search the working directory.
    path: Option<String>,
}

#[derive(Debug)]
pub(crate) struct GlobTool;

const DESCRIPTION: &str = "Finds files by name pattern, in any size of codebase.

- Supports standard glob syntax: `*` (within one directory), `**` (any depth), `?`, `[abc]`, `{a,b}`. Patterns are relative to `path` (default: the working directory): `*.rs` matches only at the top, `**/*.rs` at any depth.
- Returns absolute paths, most recently modified first, at most 100.
- Skips files ignored by .gitignore and the .git directory.
- For searching file contents use Grep. For open-ended searches that need several rounds, consider doing them in parallel.";

impl Tool for GlobTool {
    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/glob.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: GlobInput = tool_input::parse(self.name(), input)?;
        check_pattern(&input.pattern)?;
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        walk::touched_root(&ctx.env, input)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: GlobInput = tool_input::parse(self.name(), &input)?;
            let env = ctx.env.clone();
            let cancel = ctx.cancel.clone();
            tokio::task::spawn_blocking(move || glob(&env, &input, &cancel))
                .await
                .map_err(|e| ToolError::new(format!("Glob failed: {e}")))?
        }
        .boxed()
    }
}

fn check_pattern(pattern: &str) -> Result<(), ToolError> {
    if pattern.contains('\0') {
        return Err(ToolError::new("The pattern contains a null byte."));
    }
    if pattern.trim().is_empty() {
        return Err(ToolError::new(
            "`pattern` is empty: give a glob such as `**/*.rs`.",
        ));
    }
    GlobBuilder::new(pattern)
        .build()
        .map_err(|e| ToolError::new(format!("Invalid glob pattern: {e}")))?;
    Ok(())
}

fn glob(env: &ToolEnv, input: &GlobInput, cancel: &CancellationToken) -> ToolResult {
    check_pattern(&input.pattern)?;
    let root = walk::search_root(env, input.path.as_deref());
    if !root.exists() {
        return Err(walk::missing_root(&root, env));
    }
    if !root.is_dir() {
        return Err(ToolError::new(format!(
            "{} is not a directory.",
            root.display()
        )));
    }
    let (base, rest) = split_literal_prefix(&root, &input.pattern);
    let mut found = if rest.is_empty() {
        // No wildcard at all: the pattern names one file.
        std::fs::metadata(&base)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| vec![(m.modified().ok(), base)])
            .unwrap_or_default()
    } else {
        walk_matches(&base, &rest, cancel)?
    };
    // Newest first; equal times by path, so the order is stable.
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    if total == 0 {
        return Ok(ToolOutput::text("No files found")
            .with_structured(json!({"numFiles": 0, "filenames": []})));
    }
    let shown: Vec<String> = found
        .iter()
        .take(MAX_RESULTS)
        .map(|(_, p)| p.display().to_string())
        .collect();
    let mut text = shown.join("\n");
    if total > MAX_RESULTS {
        text.push_str(&format!(
            "\n(Showing the {MAX_RESULTS} most recently modified of {total} matching files. Use a more specific path or pattern to narrow the results.)"
        ));
    }
    Ok(ToolOutput::text(text).with_structured(json!({
        "numFiles": total,
        "filenames": shown,
        "truncated": total > MAX_RESULTS,
    })))
}

/// Splits off the leading components of `pattern` that contain no wildcard, so
/// the walk starts as deep as it can: (`root/src`, `**/*.rs`) for `src/**/*.rs`.
fn split_literal_prefix(root: &Path, pattern: &str) -> (PathBuf, String) {
    let is_magic = |c: &str| c.contains(['*', '?', '[', '{']);
    let mut base = if pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        root.to_path_buf()
    };
    let components: Vec<&str> = pattern
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let literal = components.iter().take_while(|c| !is_magic(c)).count();
    for c in &components[..literal] {
        base.push(c);
    }
    (base, components[literal..].join("/"))
}

type Found = Vec<(Option<SystemTime>, PathBuf)>;

fn walk_matches(base: &Path, rest: &str, cancel: &CancellationToken) -> Result<Found, ToolError> {
    if !base.is_dir() {
        return Ok(Vec::new());
    }
    let matcher = GlobBuilder::new(rest)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::new(format!("Invalid glob pattern: {e}")))?
        .compile_matcher();
    let depth = if rest.contains("**") {
        None
    } else {
        Some(rest.split('/').count())
    };
    let found = Mutex::new(Found::new());
    let mut builder = walk::walker(base, false);
    builder.max_depth(depth);
    walk::visit(&builder, base, || {
        let matcher = &matcher;
        let found = &found;
        move |entry: Result<ignore::DirEntry, ignore::Error>| {
            if cancel.is_cancelled() {
                return false;
            }
            let Ok(entry) = entry else {
                return true;
            };
            let is_file = entry.file_type().is_some_and(|t| t.is_file())
                || (entry.path_is_symlink() && entry.path().is_file());
            if !is_file {
                return true;
            }
            let path = entry.path();
            if path
                .strip_prefix(base)
                .is_ok_and(|rel| matcher.is_match(rel))
            {
                let mtime = entry.metadata().ok().and_then(|m| m.modified().ok());
                found
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((mtime, path.to_path_buf()));
            }
            true
        }
    });
    if cancel.is_cancelled() {
        return Err(ToolError::new("Glob was interrupted."));
    }
    Ok(found.into_inner().unwrap_or_else(PoisonError::into_inner))
}
