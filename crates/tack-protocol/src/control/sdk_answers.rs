//! The SDK's answers to tack's requests: a permission decision, a hook
//! callback's output, an in-process MCP server's reply.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::permission_update::PermissionUpdate;

/// The SDK's answer to `can_use_tool`, by `behavior`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
pub enum PermissionResult {
    Allow(PermissionAllow),
    Deny(PermissionDeny),
}

/// `{"behavior": "allow", "updatedInput": {...}, "updatedPermissions": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionAllow {
    /// The input to run the tool with. Python always sends it (the original
    /// input when the callback changed nothing); TypeScript may leave it out,
    /// which means the original input.
    #[serde(
        rename = "updatedInput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_input: Option<Value>,
    /// Rules or mode changes to apply with this allow (all or none).
    #[serde(
        rename = "updatedPermissions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_permissions: Option<Vec<PermissionUpdate>>,
    /// TypeScript echoes the request's `tool_use_id` here.
    #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// TypeScript: `decisionClassification`, ...
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"behavior": "deny", "message": "...", "interrupt": true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDeny {
    /// Goes to the model as the tool result (Python sends `""` by default).
    #[serde(default)]
    pub message: String,
    /// `true`: also stop the turn. Python sends the key only when `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<bool>,
    #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A hook callback's answer: the same JSON a command hook prints on stdout
/// (Python's `async_` / `continue_` already renamed by the SDK).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutput {
    /// `false`: stop the session after this hook.
    #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppress_output: Option<bool>,
    /// Shown when `continue` is `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// `block` (or the deprecated `approve` for PreToolUse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Per event: PreToolUse `permissionDecision` / `updatedInput`, PostToolUse
    /// `additionalContext`, ... (`hookEventName` names the event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<Value>,
    /// `true`: the hook goes on in the background; nothing to apply now.
    #[serde(rename = "async", default, skip_serializing_if = "Option::is_none")]
    pub async_: Option<bool>,
    /// Milliseconds, with `async`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_timeout: Option<u64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The SDK's answer to `mcp_message`: the server's JSON-RPC reply (a
/// notification is acknowledged with `{"jsonrpc": "2.0", "result": {}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpMessageResponse {
    pub mcp_response: Value,
}
