//! The `LSP` tool: Claude Code's name, input schema and result text. Read-only:
//! the permission layer treats `filePath` as Read's (`tack-permissions`'
//! read tools), so a file a Read rule keeps out stays out.

use std::path::PathBuf;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use super::format::format;
use super::servers::LspServers;
use super::{LSP_TOOL_NAME, Operation, file_uri};
use crate::{file_state, tool_input};

/// Claude Code's `maxResultSizeChars` for the tool.
const MAX_RESULT_CHARS: usize = 100_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct LspInput {
    operation: Operation,
    file_path: String,
    line: u32,
    character: u32,
}

const DESCRIPTION: &str = "Interact with Language Server Protocol (LSP) servers to get code intelligence features.

Supported operations:
- goToDefinition: Find where a symbol is defined
- findReferences: Find all references to a symbol
- hover: Get hover information (documentation, type info) for a symbol
- documentSymbol: Get all symbols (functions, classes, variables) in a document
- workspaceSymbol: Search for symbols across the entire workspace
- goToImplementation: Find implementations of an interface or abstract method
- prepareCallHierarchy: Get call hierarchy item at a position (functions/methods)
- incomingCalls: Find all functions/methods that call the function at a position
- outgoingCalls: Find all functions/methods called by the function at a position

All operations require:
- filePath: The file to operate on
- line: The line number (1-based, as shown in editors)
- character: The character offset (1-based, as shown in editors)

Note: LSP servers must be configured for the file type. If no server is available, an error will be returned.";

pub(crate) struct LspTool {
    servers: LspServers,
}

impl LspTool {
    pub(crate) fn new(servers: LspServers) -> LspTool {
        LspTool { servers }
    }
}

fn schema() -> Value {
    let ops = [
        "goToDefinition",
        "findReferences",
        "hover",
        "documentSymbol",
        "workspaceSymbol",
        "goToImplementation",
        "prepareCallHierarchy",
        "incomingCalls",
        "outgoingCalls",
    ];
    json!({
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": ops, "description": "The LSP operation to perform"},
            "filePath": {"type": "string", "description": "The absolute or relative path to the file"},
            "line": {"type": "integer", "exclusiveMinimum": 0, "description": "The line number (1-based, as shown in editors)"},
            "character": {"type": "integer", "exclusiveMinimum": 0, "description": "The character offset (1-based, as shown in editors)"}
        },
        "required": ["operation", "filePath", "line", "character"],
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"
    })
}

/// The request for `input` on the file at `uri` (positions 0-based).
fn request(input: &LspInput, uri: &str) -> (&'static str, Value) {
    let at = json!({
        "textDocument": {"uri": uri},
        "position": {"line": input.line.saturating_sub(1), "character": input.character.saturating_sub(1)}
    });
    let with = |mut v: Value, key: &str, extra: Value| {
        v[key] = extra;
        v
    };
    match input.operation {
        Operation::GoToDefinition => ("textDocument/definition", at),
        Operation::FindReferences => (
            "textDocument/references",
            with(at, "context", json!({"includeDeclaration": true})),
        ),
        Operation::Hover => ("textDocument/hover", at),
        Operation::DocumentSymbol => (
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        ),
        Operation::WorkspaceSymbol => ("workspace/symbol", json!({"query": ""})),
        Operation::GoToImplementation => ("textDocument/implementation", at),
        Operation::PrepareCallHierarchy | Operation::IncomingCalls | Operation::OutgoingCalls => {
            ("textDocument/prepareCallHierarchy", at)
        }
    }
}

impl LspTool {
    /// The answer's text, or what went wrong as the text Claude Code gives.
    async fn answer(
        &self,
        input: &LspInput,
        path: &std::path::Path,
        cwd: &std::path::Path,
    ) -> (String, usize, usize) {
        let (method, params) = request(input, &file_uri(path));
        let op = input.operation;
        let failed = |e: super::LspError| (format!("Error performing {}: {e}", op.name()), 0, 0);
        let mut result = match self.servers.request(path, method, params).await {
            Ok(Some(result)) => result,
            Ok(None) => {
                let ext = path
                    .extension()
                    .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
                return (
                    format!("No LSP server available for file type: {ext}"),
                    0,
                    0,
                );
            }
            Err(e) => return failed(e),
        };
        let second = match op {
            Operation::IncomingCalls => Some("callHierarchy/incomingCalls"),
            Operation::OutgoingCalls => Some("callHierarchy/outgoingCalls"),
            _ => None,
        };
        if let Some(method) = second {
            let Some(item) = result.as_array().and_then(|items| items.first()).cloned() else {
                return format(op, &Value::Null, cwd);
            };
            result = match self
                .servers
                .request(path, method, json!({ "item": item }))
                .await
            {
                Ok(r) => r.unwrap_or(Value::Null),
                Err(e) => return failed(e),
            };
        }
        format(op, &result, cwd)
    }
}

impl Tool for LspTool {
    fn name(&self) -> &str {
        LSP_TOOL_NAME
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        schema()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn max_result_chars(&self) -> Option<usize> {
        Some(MAX_RESULT_CHARS)
    }

    fn validate(&self, input: &Value, ctx: &ToolContext) -> Result<(), ToolError> {
        let parsed: LspInput = tool_input::parse(self.name(), input)?;
        if parsed.line == 0 || parsed.character == 0 {
            return Err(ToolError::new(
                "line and character are 1-based, as shown in editors: they start at 1",
            ));
        }
        let path = file_state::resolve(&ctx.env, &parsed.file_path);
        if !path.is_file() {
            return Err(ToolError::new(format!(
                "File does not exist: {}",
                parsed.file_path
            )));
        }
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        let path = input.get("filePath").and_then(Value::as_str);
        path.map(|p| file_state::resolve(&ctx.env, p))
            .into_iter()
            .collect()
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let parsed: LspInput = tool_input::parse(self.name(), &input)?;
            let path = file_state::resolve(&ctx.env, &parsed.file_path);
            let cwd = ctx.env.cwd();
            let (text, results, files) = tokio::select! {
                answer = self.answer(&parsed, &path, &cwd) => answer,
                () = ctx.cancel.cancelled() => return Err(ToolError::new("LSP request cancelled")),
            };
            let structured = json!({
                "operation": parsed.operation.name(),
                "result": text,
                "filePath": parsed.file_path,
                "resultCount": results,
                "fileCount": files,
            });
            Ok(ToolOutput::text(text).with_structured(structured))
        }
        .boxed()
    }
}
