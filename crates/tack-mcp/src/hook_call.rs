//! A tool of a connected server called directly, not by the model: a
//! `type: "mcp_tool"` hook. The server must already be connected (a hook
//! starts no server and no sign-in); the answer is the result's text.

use serde_json::Value;
use tack_tool::ProgressSink;
use tokio_util::sync::CancellationToken;

use crate::manager::McpManager;
use crate::result::result_text;

impl McpManager {
    /// Calls `tool` of the connected server `server` with `arguments` (an
    /// object) within the tool's timeout: the text of the result. `Err`: the
    /// server is not connected, has no such tool, failed, or answered with
    /// an error result (its text).
    pub async fn call_tool_text(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        let found = self
            .mcp_tools()
            .into_iter()
            .find(|t| t.target.server == server && t.tool == tool)
            .ok_or_else(
                || match self.connected_names().iter().any(|n| n == server) {
                    true => format!("MCP server \"{server}\" has no tool `{tool}`"),
                    false => format!("MCP server \"{server}\" is not connected"),
                },
            )?;
        let Value::Object(arguments) = arguments else {
            return Err(format!("the arguments of {} are not an object", found.name));
        };
        let result = found
            .target
            .call_tool(
                &found.tool,
                &found.name,
                arguments,
                found.timeout,
                &ProgressSink::discard(format!("hook-{}", found.name)),
                cancel,
            )
            .await
            .map_err(|e| e.message)?;
        let text = result_text(&result);
        match result.is_error {
            Some(true) => Err(format!("{} answered with an error: {text}", found.name)),
            Some(false) | None => Ok(text),
        }
    }
}
