//! An MCP server's tool as a [`tack_tool::Tool`], and the request path every
//! call to a server takes (timeout, cancellation, progress, error wording).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, JsonObject, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};
use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use serde_json::Value;
use tack_tool::{ProgressSink, Tool, ToolContext, ToolError, ToolResult};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::handler::Events;
use crate::result::{OutputFiles, to_tool_output};

/// One connected server, as requests see it. Holding it does not keep the
/// server process alive: the manager owns that.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) server: String,
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) events: Arc<Events>,
    /// The stdio server's stderr log, named when the server dies.
    pub(crate) log: Option<PathBuf>,
    /// stdio: counts the messages the server sent over the transport's line
    /// limit (dropped unread).
    pub(crate) oversized: Option<watch::Receiver<u64>>,
    /// The server's own tool-call timeout (an SDK server's declared one);
    /// `None`: `McpOptions::tool_timeout`.
    pub(crate) tool_timeout: Option<Duration>,
}

/// Sends `notifications/cancelled` for a request whose caller went away
/// (user abort, the executor dropping the call) before its answer came.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let params =
                CancelledNotificationParam::new(Some(id), Some("cancelled by the user".into()));
            // The server may be gone already; nothing more to do then.
            let _ = peer.notify_cancelled(params).await;
        });
    }
}

impl Target {
    /// `tools/call`. `display` names the tool in error messages.
    pub(crate) async fn call_tool(
        &self,
        tool: &str,
        display: &str,
        arguments: JsonObject,
        timeout: Duration,
        progress: &ProgressSink,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, ToolError> {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        // Only what arrives from now on can be this call's answer.
        let mut oversized = self.oversized.clone();
        if let Some(receiver) = &mut oversized {
            receiver.mark_unchanged();
        }
        let handle = self
            .peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(timeout))
            .await
            .map_err(|e| self.service_error(e, display, timeout))?;
        let _route = self.events.route(
            handle.progress_token.clone(),
            progress.clone(),
            &self.server,
            tool,
        );
        let mut guard = CancelOnDrop {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            () = cancel.cancelled() => {
                return Err(ToolError::new(format!("{display} was cancelled")));
            }
            () = oversized_message(oversized) => {
                return Err(ToolError::new(format!(
                    "MCP server \"{}\" sent a message over {} MiB, which tack cannot read; the result of {display} is lost",
                    self.server,
                    DEFAULT_MAX_LINE_LENGTH >> 20
                )));
            }
        };
        // Answered (or timed out, which rmcp already told the server): no
        // cancellation to send.
        guard.id = None;
        match response.map_err(|e| self.service_error(e, display, timeout))? {
            ServerResult::CallToolResult(result) => Ok(result),
            other => Err(ToolError::new(format!(
                "MCP server \"{}\" answered {display} with something other than a tool result: {}",
                self.server,
                serde_json::to_string(&other).unwrap_or_default()
            ))),
        }
    }

    /// Words an rmcp failure for the model.
    pub(crate) fn service_error(
        &self,
        error: ServiceError,
        what: &str,
        timeout: Duration,
    ) -> ToolError {
        let server = &self.server;
        let log = self
            .log
            .as_ref()
            .map(|p| format!(" (its stderr is in {})", p.display()))
            .unwrap_or_default();
        let message = match error {
            ServiceError::McpError(e) => {
                format!(
                    "MCP server \"{server}\" returned an error for {what}: {} (code {})",
                    e.message, e.code.0
                )
            }
            ServiceError::Timeout { .. } => format!(
                "{what} timed out after {} ({}); the server was asked to cancel it",
                humanize(timeout),
                if self.tool_timeout.is_some() {
                    "the server's timeout"
                } else {
                    "MCP_TOOL_TIMEOUT"
                }
            ),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => format!(
                "MCP server \"{server}\" closed the connection during {what}; the server may have crashed{log}"
            ),
            other => format!("MCP server \"{server}\" failed during {what}: {other}"),
        };
        ToolError::new(message)
    }
}

/// Resolves when the server sends a message too long to read.
/// The message cannot be matched to its request, so every call waiting on
/// that server gives up: one of them lost its answer and none can tell which.
async fn oversized_message(receiver: Option<watch::Receiver<u64>>) {
    match receiver {
        Some(mut receiver) => {
            if receiver.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}

pub(crate) fn humanize(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// A server's tool, named `mcp__<server>__<tool>`.
#[derive(Debug)]
pub(crate) struct McpTool {
    pub(crate) name: String,
    /// The tool's name on its server.
    pub(crate) tool: String,
    pub(crate) description: String,
    pub(crate) schema: Value,
    pub(crate) read_only: bool,
    pub(crate) target: Arc<Target>,
    pub(crate) timeout: Duration,
    pub(crate) max_result_chars: Option<usize>,
}

impl McpTool {
    pub(crate) fn new(
        target: Arc<Target>,
        tool: rmcp::model::Tool,
        timeout: Duration,
        max_result_chars: Option<usize>,
    ) -> McpTool {
        let mut schema = Value::Object((*tool.input_schema).clone());
        // The API requires `"type": "object"`; a few servers leave it out.
        if let Value::Object(map) = &mut schema {
            map.entry("type")
                .or_insert_with(|| Value::String("object".into()));
        }
        McpTool {
            name: crate::names::tool_name(&target.server, &tool.name),
            description: tool.description.as_deref().unwrap_or_default().to_string(),
            read_only: tool
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false),
            tool: tool.name.into_owned(),
            schema,
            target,
            timeout,
            max_result_chars,
        }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> String {
        self.description.clone()
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    /// From the server's `readOnlyHint` (absent: not read-only).
    fn is_read_only(&self, _input: &Value) -> bool {
        self.read_only
    }

    fn max_result_chars(&self) -> Option<usize> {
        self.max_result_chars
    }

    /// The input must be an object with the schema's required properties;
    /// the server checks the rest.
    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let Some(obj) = input.as_object() else {
            return Err(ToolError::new(format!(
                "InputValidationError: {} takes a JSON object",
                self.name
            )));
        };
        let missing: Vec<&str> = self
            .schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|key| !obj.contains_key(*key))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(ToolError::new(format!(
                "InputValidationError: {} is missing the required parameter{} {}",
                self.name,
                if missing.len() == 1 { "" } else { "s" },
                missing
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )))
        }
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let Value::Object(arguments) = input else {
                return Err(ToolError::new(format!("{} takes a JSON object", self.name)));
            };
            let result = self
                .target
                .call_tool(
                    &self.tool,
                    &self.name,
                    arguments,
                    self.timeout,
                    &ctx.progress,
                    &ctx.cancel,
                )
                .await?;
            let files = OutputFiles::new(ctx.env.session_dir(), &ctx.tool_use_id);
            to_tool_output(result, &self.name, &files)
        })
    }
}
