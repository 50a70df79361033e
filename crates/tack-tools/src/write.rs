//! Write: creates a file or replaces one the model has read in full, atomically.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};

use crate::file_state::{self, Need};
use crate::file_write::write_file;
use crate::tool_input;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WriteInput {
    /// Absolute path of the file to write.
    file_path: String,
    /// The complete new content of the file.
    content: String,
}

#[derive(Debug)]
pub(crate) struct WriteTool;

const DESCRIPTION: &str = "Writes a file, creating it (and missing parent directories) or replacing its whole content.

- `file_path` should be absolute.
- An existing file must have been read in full with Read in this session first, and must not have changed since; otherwise the write is refused.
- Prefer Edit for changes to existing files: it sends only the changed part.
- Do not create documentation or README files unless asked to.";

impl Tool for WriteTool {
    fn name(&self) -> &str {
        "Write"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/write.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: WriteInput = tool_input::parse(self.name(), input)?;
        if input.file_path.is_empty() {
            return Err(ToolError::new(
                "`file_path` is empty: give the absolute path of the file to write.",
            ));
        }
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        tool_input::parse_quiet::<WriteInput>(input)
            .map(|i| vec![file_state::resolve(&ctx.env, &i.file_path)])
            .unwrap_or_default()
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: WriteInput = tool_input::parse(self.name(), &input)?;
            let env = ctx.env.clone();
            tokio::task::spawn_blocking(move || write(&env, &input))
                .await
                .map_err(|e| ToolError::new(format!("Write failed: {e}")))?
        }
        .boxed()
    }
}

fn write(env: &Arc<ToolEnv>, input: &WriteInput) -> ToolResult {
    let path = file_state::resolve(env, &input.file_path);
    let target = existing_target(&path)?;
    let created = target.is_none();
    if let Some(target) = &target {
        let (meta, current) = crate::regular_file::read_existing(target, &path, "Write")?;
        file_state::check_fresh(env, &path, &meta, &current, Need::WholeFile)?;
    }
    let target = target.unwrap_or_else(|| path.clone());
    write_file(env, &target, &input.content)
        .map_err(|e| ToolError::new(format!("Could not write {}: {e}", path.display())))?;
    file_state::record_written(env, &path, input.content.as_bytes());
    let text = if created {
        format!("File created successfully at: {}", path.display())
    } else {
        format!(
            "The file {} has been overwritten successfully.",
            path.display()
        )
    };
    Ok(ToolOutput::text(text).with_structured(json!({
        "type": if created { "create" } else { "update" },
        "filePath": input.file_path,
    })))
}

/// The file a write to `path` must replace: `path` itself, or the file a symlink
/// at `path` points to (so the link survives). `None` if nothing is there yet.
pub(crate) fn existing_target(path: &Path) -> Result<Option<PathBuf>, ToolError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(real) => Ok(Some(real)),
            // A dangling link: write where it points.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let link = fs::read_link(path)?;
                Ok(Some(path.parent().map(|p| p.join(&link)).unwrap_or(link))
                    .filter(|p| p.exists()))
            }
            Err(e) => Err(e.into()),
        },
        Ok(_) => Ok(Some(path.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ToolError::new(format!(
            "Cannot access {}: {e}",
            path.display()
        ))),
    }
}
