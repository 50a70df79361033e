//! Requests the SDK sends (`initialize`, `interrupt`, `set_model`, ...), by
//! `subtype`, and their payloads.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::cli_request::McpMessageRequest;
use super::tagged::{OtherRequest, subtype_of, typed};

/// A `control_request` payload sent by the SDK, by `subtype`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SdkRequest {
    /// First line of every SDK session; answered with [`InitializeResponse`](super::cli_answers::InitializeResponse).
    Initialize(Box<InitializeRequest>),
    /// Stop the running turn; answered with [`InterruptResponse`](super::cli_answers::InterruptResponse).
    Interrupt(InterruptRequest),
    /// Answered with an empty success.
    SetPermissionMode(SetPermissionModeRequest),
    /// Answered with an empty success.
    SetModel(SetModelRequest),
    /// Answered with [`McpStatusResponse`](super::cli_answers::McpStatusResponse).
    McpStatus(McpStatusRequest),
    /// Answered with [`ContextUsageResponse`](super::cli_answers::ContextUsageResponse).
    GetContextUsage(GetContextUsageRequest),
    /// Answered with [`RewindFilesResponse`](super::cli_answers::RewindFilesResponse).
    RewindFiles(RewindFilesRequest),
    /// Answered with an empty success.
    McpReconnect(McpReconnectRequest),
    /// Answered with an empty success.
    McpToggle(McpToggleRequest),
    /// Answered with `{added, removed, errors}`.
    McpSetServers(McpSetServersRequest),
    /// Answered with an empty success.
    StopTask(StopTaskRequest),
    /// TypeScript: a message an in-process MCP server starts itself (e.g.
    /// `notifications/tools/list_changed`), for tack's MCP client; answered
    /// with an empty success.
    McpMessage(McpMessageRequest),
    /// Any other subtype (the TypeScript SDK knows some forty), verbatim.
    #[serde(untagged)]
    Other(OtherRequest),
}

impl SdkRequest {
    /// The wire `subtype` (`initialize`, `interrupt`, ... or the unknown one).
    pub fn subtype(&self) -> &str {
        match self {
            SdkRequest::Initialize(_) => "initialize",
            SdkRequest::Interrupt(_) => "interrupt",
            SdkRequest::SetPermissionMode(_) => "set_permission_mode",
            SdkRequest::SetModel(_) => "set_model",
            SdkRequest::McpStatus(_) => "mcp_status",
            SdkRequest::GetContextUsage(_) => "get_context_usage",
            SdkRequest::RewindFiles(_) => "rewind_files",
            SdkRequest::McpReconnect(_) => "mcp_reconnect",
            SdkRequest::McpToggle(_) => "mcp_toggle",
            SdkRequest::McpSetServers(_) => "mcp_set_servers",
            SdkRequest::StopTask(_) => "stop_task",
            SdkRequest::McpMessage(_) => "mcp_message",
            SdkRequest::Other(other) => other.subtype(),
        }
    }
}

impl<'de> Deserialize<'de> for SdkRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SdkRequest, D::Error> {
        let mut map = Map::<String, Value>::deserialize(deserializer)?;
        let subtype = subtype_of::<D::Error>(&map)?;
        let request = match subtype.as_str() {
            "initialize" => SdkRequest::Initialize(Box::new(typed(&mut map, &subtype)?)),
            "interrupt" => SdkRequest::Interrupt(typed(&mut map, &subtype)?),
            "set_permission_mode" => SdkRequest::SetPermissionMode(typed(&mut map, &subtype)?),
            "set_model" => SdkRequest::SetModel(typed(&mut map, &subtype)?),
            "mcp_status" => SdkRequest::McpStatus(typed(&mut map, &subtype)?),
            "get_context_usage" => SdkRequest::GetContextUsage(typed(&mut map, &subtype)?),
            "rewind_files" => SdkRequest::RewindFiles(typed(&mut map, &subtype)?),
            "mcp_reconnect" => SdkRequest::McpReconnect(typed(&mut map, &subtype)?),
            "mcp_toggle" => SdkRequest::McpToggle(typed(&mut map, &subtype)?),
            "mcp_set_servers" => SdkRequest::McpSetServers(typed(&mut map, &subtype)?),
            "stop_task" => SdkRequest::StopTask(typed(&mut map, &subtype)?),
            "mcp_message" => SdkRequest::McpMessage(typed(&mut map, &subtype)?),
            _ => SdkRequest::Other(OtherRequest(map)),
        };
        Ok(request)
    }
}
/// `initialize`. The Python SDK sends `hooks` (or `null`), `agents`,
/// `excludeDynamicSections`, `systemPromptSnapshot`, `skills`,
/// `forwardSubagentText`; the TypeScript SDK also moves the system prompt, the
/// structured-output schema and its in-process MCP servers here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequest {
    /// Hook event name (`PreToolUse`, ...) → matchers whose callbacks live in the
    /// SDK process; tack calls them with [`CliRequest::HookCallback`](super::cli_request::CliRequest::HookCallback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<BTreeMap<String, Vec<HookCallbackMatcher>>>,
    /// Subagent definitions by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<BTreeMap<String, AgentDefinition>>,
    /// TypeScript: replaces the default system prompt (joined). The SDK default
    /// is `[""]`: no default prompt at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<Vec<String>>,
    /// TypeScript: `systemPrompt: {type: "preset", append}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_system_prompt: Option<String>,
    /// TypeScript: `outputFormat: {type: "json_schema", schema}` (Python passes
    /// `--json-schema` instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<Value>,
    /// TypeScript: names of in-process MCP servers, reached with
    /// [`CliRequest::McpMessage`](super::cli_request::CliRequest::McpMessage) (Python lists them in `--mcp-config` with
    /// `"type": "sdk"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_mcp_servers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_dynamic_sections: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_snapshot: Option<bool>,
    /// Only these skills go into the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_subagent_text: Option<bool>,
    /// Everything else (`sdkMcpServerManifests`, `title`, `plugins`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One matcher of an SDK hook registration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookCallbackMatcher {
    /// Tool-name pattern as in settings hooks; `null`/absent matches everything.
    #[serde(default)]
    pub matcher: Option<String>,
    /// `hook_0`, `hook_1`, ...: numbered per SDK process across all events.
    pub hook_callback_ids: Vec<String>,
    /// Seconds (Python allows fractions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// `continue` | `block`: what a failed callback means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A subagent definition from `initialize.agents`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentDefinition {
    pub description: String,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(
        rename = "disallowedTools",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub disallowed_tools: Option<Vec<String>>,
    /// Alias (`sonnet`, `inherit`, ...) or model id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `skills`, `memory`, `mcpServers`, `maxTurns`, `effort`, ...
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `interrupt`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InterruptRequest {
    /// TypeScript `interrupt({cancelQueued: true})`: also drop queued user messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_queued: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `set_permission_mode`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetPermissionModeRequest {
    /// `default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk`, `auto`.
    pub mode: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `set_model`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetModelRequest {
    /// `null`, absent or `"default"`: back to the session's default model.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_status`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct McpStatusRequest {
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `get_context_usage`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetContextUsageRequest {
    /// TypeScript: `summary` | `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `rewind_files`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewindFilesRequest {
    /// The `uuid` of a user message (seen with `--replay-user-messages`).
    pub user_message_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_reconnect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpReconnectRequest {
    #[serde(rename = "serverName")]
    pub server_name: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_toggle`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpToggleRequest {
    #[serde(rename = "serverName")]
    pub server_name: String,
    pub enabled: bool,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp_set_servers`: the servers the session should now manage, by name
/// (an `mcpServers` object; a host's in-process server as `{"type": "sdk",
/// "name": …}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpSetServersRequest {
    pub servers: Value,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `stop_task`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopTaskRequest {
    pub task_id: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
