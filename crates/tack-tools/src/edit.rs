//! Edit: replaces an exact string in a file (read first, or quoted exactly).

use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tack_tool::{Tool, ToolContext, ToolError, ToolResult};

use crate::file_state;
use crate::string_replace::{self, EditSpec, NO_CHANGES};
use crate::tool_input;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EditInput {
    /// Absolute path of the file to change.
    file_path: String,
    /// The exact text to replace (whitespace and indentation included).
    old_string: String,
    /// The text to replace it with; must differ from `old_string`.
    new_string: String,
    /// Replace every occurrence of `old_string` (default false: it must occur exactly once).
    #[serde(default)]
    replace_all: bool,
}

#[derive(Debug)]
pub(crate) struct EditTool;

const DESCRIPTION: &str = "Replaces exact text in a file.

- Read the file before editing it, so that `old_string` is what the file holds; the edit is refused if the file changed on disk since you read it.
- `old_string` must match the file exactly, including whitespace and indentation, without the line-number prefix Read shows (the number, then a tab; everything after the tab is file content).
- By default `old_string` must occur exactly once: include enough surrounding lines to make it unique, or set `replace_all` to replace every occurrence (e.g. to rename a variable).
- Line endings are kept: in a CRLF file, write strings with plain newlines.
- An empty `old_string` creates a new file with `new_string` as its content.";

impl Tool for EditTool {
    fn name(&self) -> &str {
        "Edit"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/edit.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: EditInput = tool_input::parse(self.name(), input)?;
        if input.old_string == input.new_string {
            return Err(ToolError::new(NO_CHANGES));
        }
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        tool_input::parse_quiet::<EditInput>(input)
            .map(|i| vec![file_state::resolve(&ctx.env, &i.file_path)])
            .unwrap_or_default()
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: EditInput = tool_input::parse(self.name(), &input)?;
            let env = Arc::clone(&ctx.env);
            tokio::task::spawn_blocking(move || {
                let edit = EditSpec {
                    old_string: input.old_string,
                    new_string: input.new_string,
                    replace_all: input.replace_all,
                };
                string_replace::edit_file(&env, &input.file_path, &[edit], false)
            })
            .await
            .map_err(|e| ToolError::new(format!("Edit failed: {e}")))?
        }
        .boxed()
    }
}
