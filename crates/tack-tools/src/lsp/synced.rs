//! The file tools with their edits synced to the language servers: after a
//! successful Write, Edit or MultiEdit of a file a server covers, the change
//! is sent (`didChange` + `didSave`) and the diagnostics new since the last
//! delivery join the next request as Claude Code's `<new-diagnostics>`
//! reminder (through the session's arrivals, after the tool results).

use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tack_tool::{Arrival, Tool, ToolContext, ToolError, ToolResult};

use super::servers::LspServers;
use crate::file_state;

/// The tools whose edits are synced, by name.
const EDIT_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit"];

/// `tool` wrapped if it edits files; others as they are.
pub(crate) fn synced(tool: Arc<dyn Tool>, servers: &LspServers) -> Arc<dyn Tool> {
    match EDIT_TOOLS.contains(&tool.name()) {
        true => Arc::new(Synced {
            inner: tool,
            servers: servers.clone(),
        }),
        false => tool,
    }
}

struct Synced {
    inner: Arc<dyn Tool>,
    servers: LspServers,
}

impl Tool for Synced {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn aliases(&self) -> &[&str] {
        self.inner.aliases()
    }

    fn description(&self) -> String {
        self.inner.description()
    }

    fn input_schema(&self) -> Value {
        self.inner.input_schema()
    }

    fn is_read_only(&self, input: &Value) -> bool {
        self.inner.is_read_only(input)
    }

    fn is_concurrency_safe(&self, input: &Value) -> bool {
        self.inner.is_concurrency_safe(input)
    }

    fn validate(&self, input: &Value, ctx: &ToolContext) -> Result<(), ToolError> {
        self.inner.validate(input, ctx)
    }

    fn max_result_chars(&self) -> Option<usize> {
        self.inner.max_result_chars()
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        self.inner.paths_touched(input, ctx)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let path = input
                .get("file_path")
                .and_then(Value::as_str)
                .map(|p| file_state::resolve(&ctx.env, p));
            let out = self.inner.call(input, ctx).await;
            let edited = path.filter(|p| self.servers.covers(p));
            if let (Ok(done), Some(path)) = (&out, edited)
                && !done.is_error
                && let Some(text) = self.servers.after_edit(&path).await
            {
                let reminder = format!("<system-reminder>\n{text}\n</system-reminder>");
                ctx.env.arrivals().push(Arrival::soon(reminder));
            }
            out
        }
        .boxed()
    }
}
