//! Requests tack sends to the SDK (`can_use_tool`, `hook_callback`,
//! `mcp_message`), by `subtype`, and their payloads.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::permission_update::PermissionUpdate;
use super::tagged::{OtherRequest, subtype_of, typed};

/// A `control_request` payload tack sends to the SDK, by `subtype`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum CliRequest {
    /// With `--permission-prompt-tool stdio`: ask before a tool call; answered
    /// with a [`PermissionResult`](super::sdk_answers::PermissionResult).
    CanUseTool(Box<CanUseToolRequest>),
    /// Run a hook callback registered in `initialize`; answered with a
    /// [`HookOutput`](super::sdk_answers::HookOutput).
    HookCallback(HookCallbackRequest),
    /// Relay one JSON-RPC message to an in-process MCP server; answered with a
    /// [`McpMessageResponse`](super::sdk_answers::McpMessageResponse).
    McpMessage(McpMessageRequest),
    /// Any other subtype, verbatim.
    #[serde(untagged)]
    Other(OtherRequest),
}

impl CliRequest {
    /// The wire `subtype`.
    pub fn subtype(&self) -> &str {
        match self {
            CliRequest::CanUseTool(_) => "can_use_tool",
            CliRequest::HookCallback(_) => "hook_callback",
            CliRequest::McpMessage(_) => "mcp_message",
            CliRequest::Other(other) => other.subtype(),
        }
    }
}

impl<'de> Deserialize<'de> for CliRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CliRequest, D::Error> {
        let mut map = Map::<String, Value>::deserialize(deserializer)?;
        let subtype = subtype_of::<D::Error>(&map)?;
        let request = match subtype.as_str() {
            "can_use_tool" => CliRequest::CanUseTool(Box::new(typed(&mut map, &subtype)?)),
            "hook_callback" => CliRequest::HookCallback(typed(&mut map, &subtype)?),
            "mcp_message" => CliRequest::McpMessage(typed(&mut map, &subtype)?),
            _ => CliRequest::Other(OtherRequest(map)),
        };
        Ok(request)
    }
}

/// `can_use_tool`. `permission_suggestions` and `blocked_path` are always
/// written (as `null` when empty): the Python SDK declares them required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanUseToolRequest {
    pub tool_name: String,
    pub input: Value,
    pub tool_use_id: String,
    /// Rules the user could accept to stop being asked.
    #[serde(default)]
    pub permission_suggestions: Option<Vec<PermissionUpdate>>,
    /// The path outside the allowed directories that caused the ask.
    #[serde(default)]
    pub blocked_path: Option<String>,
    /// Why the ask escalated (a PreToolUse hook's `ask` reason, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<String>,
    /// "Claude wants to read foo.txt".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// "Read file".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Set inside a subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `hook_callback`. `tool_use_id` is always written (`null` outside tool events).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookCallbackRequest {
    /// One of the `hookCallbackIds` from `initialize`.
    pub callback_id: String,
    /// The hook input, exactly as a command hook gets it on stdin
    /// (`hook_event_name`, `session_id`, `transcript_path`, `cwd`, `tool_name`, ...).
    pub input: Value,
    #[serde(default)]
    pub tool_use_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_message`, in both directions: tack relays its MCP client's messages to
/// an in-process server ([`CliRequest::McpMessage`]); the TypeScript SDK sends
/// the messages such a server starts itself ([`SdkRequest::McpMessage`](super::sdk_request::SdkRequest::McpMessage)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpMessageRequest {
    pub server_name: String,
    /// A JSON-RPC 2.0 request, notification or response.
    pub message: Value,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
