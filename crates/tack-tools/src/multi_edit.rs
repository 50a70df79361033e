//! MultiEdit (legacy): several exact-string replacements in one file, applied in
//! order, all or nothing.

use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tack_tool::{Tool, ToolContext, ToolError, ToolResult};

use crate::file_state;
use crate::string_replace::{self, EditSpec};
use crate::tool_input;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct MultiEditInput {
    /// Absolute path of the file to change.
    file_path: String,
    /// Replacements applied one after another, each to the result of the previous one.
    #[schemars(length(min = 1))]
    edits: Vec<EditSpec>,
}

#[derive(Debug)]
pub(crate) struct MultiEditTool;

const DESCRIPTION: &str = "Makes several exact-text replacements in one file in a single call.

- Same rules as Edit for each element of `edits`: read the file first, match exactly, unique unless `replace_all`.
- Edits apply in order, each to the output of the previous one, so an edit must match the text as earlier edits left it.
- All or nothing: if any edit fails, the file is not changed.
- To create a file, give a new path and make the first edit's `old_string` empty.";

impl Tool for MultiEditTool {
    fn name(&self) -> &str {
        "MultiEdit"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/multi_edit.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: MultiEditInput = tool_input::parse(self.name(), input)?;
        if input.edits.is_empty() {
            return Err(ToolError::new(
                "`edits` is empty: give at least one {old_string, new_string} edit.",
            ));
        }
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        tool_input::parse_quiet::<MultiEditInput>(input)
            .map(|i| vec![file_state::resolve(&ctx.env, &i.file_path)])
            .unwrap_or_default()
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: MultiEditInput = tool_input::parse(self.name(), &input)?;
            if input.edits.is_empty() {
                return Err(ToolError::new(
                    "`edits` is empty: give at least one {old_string, new_string} edit.",
                ));
            }
            let env = Arc::clone(&ctx.env);
            tokio::task::spawn_blocking(move || {
                string_replace::edit_file(&env, &input.file_path, &input.edits, true)
            })
            .await
            .map_err(|e| ToolError::new(format!("MultiEdit failed: {e}")))?
        }
        .boxed()
    }
}
