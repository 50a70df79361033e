//! LS (legacy): a directory's contents as an indented tree.

use std::path::PathBuf;

use futures::FutureExt;
use futures::future::BoxFuture;
use globset::{Glob, GlobSetBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};

use crate::file_state;
use crate::tool_input;
use crate::walk;

/// Entries listed at most.
pub(crate) const MAX_ENTRIES: usize = 1000;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct LsInput {
    /// Absolute path of the directory to list.
    path: String,
    /// Glob patterns of names or paths to leave out, e.g. `["*.log", "target"]`.
    ignore: Option<Vec<String>>,
}

#[derive(Debug)]
pub(crate) struct LsTool;

const DESCRIPTION: &str = "Lists files and directories under a path as a tree.

- `path` should be absolute. `ignore` takes glob patterns to leave out.
- Skips hidden files, .gitignore'd files and the .git directory. Lists at most 1000 entries.
- Glob and Grep are usually better when you know what you are looking for.";

impl Tool for LsTool {
    fn name(&self) -> &str {
        "LS"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/ls.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: LsInput = tool_input::parse(self.name(), input)?;
        ignore_set(input.ignore.as_deref())?;
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        walk::touched_root(&ctx.env, input)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: LsInput = tool_input::parse(self.name(), &input)?;
            let env = ctx.env.clone();
            tokio::task::spawn_blocking(move || list(&env, &input))
                .await
                .map_err(|e| ToolError::new(format!("LS failed: {e}")))?
        }
        .boxed()
    }
}

fn ignore_set(globs: Option<&[String]>) -> Result<globset::GlobSet, ToolError> {
    let mut set = GlobSetBuilder::new();
    for g in globs.unwrap_or_default() {
        set.add(Glob::new(g).map_err(|e| ToolError::new(format!("Invalid ignore pattern: {e}")))?);
    }
    set.build()
        .map_err(|e| ToolError::new(format!("Invalid ignore pattern: {e}")))
}

fn list(env: &ToolEnv, input: &LsInput) -> ToolResult {
    let root = file_state::resolve(env, &input.path);
    if !root.exists() {
        return Err(walk::missing_root(&root, env));
    }
    if !root.is_dir() {
        return Err(ToolError::new(format!(
            "{} is not a directory; use Read for files.",
            root.display()
        )));
    }
    let ignore = ignore_set(input.ignore.as_deref())?;
    let filter_root = root.clone();
    let mut builder = walk::walker(&root, true);
    builder
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            let rel = entry
                .path()
                .strip_prefix(&filter_root)
                .unwrap_or(entry.path());
            entry.file_name() != ".git"
                && !ignore.is_match(entry.file_name())
                && !ignore.is_match(rel)
        });
    let mut lines = vec![format!(
        "- {}/",
        root.display().to_string().trim_end_matches('/')
    )];
    let mut listed = 0;
    let mut truncated = false;
    for entry in builder.build().flatten() {
        if entry.depth() == 0 {
            continue;
        }
        if listed == MAX_ENTRIES {
            truncated = true;
            break;
        }
        let slash = if entry.file_type().is_some_and(|t| t.is_dir()) {
            "/"
        } else {
            ""
        };
        let indent = "  ".repeat(entry.depth());
        lines.push(format!(
            "{indent}- {}{slash}",
            entry.file_name().to_string_lossy()
        ));
        listed += 1;
    }
    let mut text = lines.join("\n");
    if truncated {
        text = format!(
            "There are more than {MAX_ENTRIES} entries under {}; the first {MAX_ENTRIES} are listed. List a subdirectory, or use Glob or Grep to narrow down.\n\n{text}",
            root.display()
        );
    }
    Ok(ToolOutput::text(text)
        .with_structured(json!({"path": root, "entries": listed, "truncated": truncated})))
}
