//! The Agent SDK control protocol: what the official SDKs (Python
//! `claude-agent-sdk` 0.2.x, TypeScript `@anthropic-ai/claude-agent-sdk` 0.3.x)
//! write to tack's stdin under `--input-format stream-json`, and the control lines
//! tack writes back on stdout beside the stream-json records. `docs/sdk-protocol.md`
//! says who sends what, when, and what each SDK does with the answer.
//!
//! # Model
//!
//! Both directions use one NDJSON channel and three envelopes:
//!
//! - `control_request` `{request_id, request: {subtype, ...}}`: the sender picks the
//!   id; the receiver answers with exactly one `control_response` echoing it.
//!   Requests the SDK sends are [`SdkRequest`]s; requests tack sends are
//!   [`CliRequest`]s.
//! - `control_response` `{response: {subtype: "success"|"error", request_id, ...}}`:
//!   [`ControlResponse`]. A success carries a payload whose shape depends on the
//!   request (typed here: [`InitializeResponse`], [`InterruptResponse`],
//!   [`PermissionResult`], [`HookOutput`], [`McpMessageResponse`], ...).
//! - `control_cancel_request` `{request_id}`: the sender abandons a request it made;
//!   no response follows.
//!
//! [`StdinLine`] is one line of stdin (the three envelopes plus `user` messages);
//! [`ControlLine`] is one control line tack prints.
//!
//! Unknown request subtypes and unknown line types are kept whole
//! ([`OtherRequest`], [`StdinLine::Other`]) so tack can answer "unsupported" by
//! subtype instead of failing the session; a *known* subtype that is malformed is
//! a deserialisation error, never silently taken for an unknown one. Fields tack
//! does not model are kept in each payload's `extra` map.

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::content::Message;

// ---------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------

/// One line an SDK writes to tack's stdin.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StdinLine {
    /// A user turn (or, with `shouldQuery: false`, context appended without a turn).
    User(Box<UserLine>),
    /// A request from the SDK (`initialize`, `interrupt`, ...).
    ControlRequest(ControlRequest<SdkRequest>),
    /// The SDK's answer to one of tack's requests (`can_use_tool`, ...).
    ControlResponse(ControlResponseLine),
    /// The SDK abandons a request it sent (TypeScript, when the caller aborts).
    ControlCancelRequest(ControlCancel),
    /// Any other `type`, verbatim (including `type`).
    #[serde(untagged)]
    Other(Map<String, Value>),
}

/// One control line tack writes to stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ControlLine {
    /// A request to the SDK (`can_use_tool`, `hook_callback`, `mcp_message`).
    ControlRequest(ControlRequest<CliRequest>),
    /// tack's answer to one of the SDK's requests.
    ControlResponse(ControlResponseLine),
    /// tack abandons a request it sent (the turn was interrupted, say).
    ControlCancelRequest(ControlCancel),
}

/// `{"type": "control_request", "request_id": ..., "request": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlRequest<R> {
    /// Chosen by the sender: the Python SDK uses `req_<n>_<8 hex>`, the
    /// TypeScript SDK 11 random base-36 characters.
    pub request_id: String,
    pub request: R,
}

/// `{"type": "control_response", "response": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlResponseLine {
    pub response: ControlResponse,
}

/// `{"type": "control_cancel_request", "request_id": ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlCancel {
    pub request_id: String,
}

impl<'de> Deserialize<'de> for StdinLine {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<StdinLine, D::Error> {
        let mut map = Map::<String, Value>::deserialize(deserializer)?;
        let Some(kind) = map.get("type").and_then(Value::as_str).map(str::to_owned) else {
            return Err(D::Error::missing_field("type"));
        };
        let line = match kind.as_str() {
            "user" => StdinLine::User(Box::new(from_map(without(&mut map, "type"))?)),
            "control_request" => StdinLine::ControlRequest(from_map(without(&mut map, "type"))?),
            "control_response" => StdinLine::ControlResponse(from_map(without(&mut map, "type"))?),
            "control_cancel_request" => {
                StdinLine::ControlCancelRequest(from_map(without(&mut map, "type"))?)
            }
            _ => StdinLine::Other(map),
        };
        Ok(line)
    }
}

/// A `user` line: the SDKs send `{"type": "user", "message": {"role": "user",
/// "content": ...}, "parent_tool_use_id": null, "session_id": ...}`; content is a
/// string (Python) or blocks (TypeScript).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserLine {
    pub message: Message,
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// `""` from `query()`, `"default"` (or the caller's) from `ClaudeSDKClient.query`.
    /// Not a session selector: Claude Code ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Echoed as `user_message_uuid` on the turn's result when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// `false`: append to the conversation without starting a turn.
    #[serde(
        rename = "shouldQuery",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub should_query: Option<bool>,
    /// `now` | `next` | `later` (TypeScript only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// `{"kind": "human", ...}`; only `human` is honoured from a host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Value>,
    /// `verbatim_prompts` / `verbatimPrompts`: no `@path` expansion, no slash commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_composed: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// ---------------------------------------------------------------------------
// Requests the SDK sends
// ---------------------------------------------------------------------------

/// A `control_request` payload sent by the SDK, by `subtype`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SdkRequest {
    /// First line of every SDK session; answered with [`InitializeResponse`].
    Initialize(Box<InitializeRequest>),
    /// Stop the running turn; answered with [`InterruptResponse`].
    Interrupt(InterruptRequest),
    /// Answered with an empty success.
    SetPermissionMode(SetPermissionModeRequest),
    /// Answered with an empty success.
    SetModel(SetModelRequest),
    /// Answered with [`McpStatusResponse`].
    McpStatus(McpStatusRequest),
    /// Answered with [`ContextUsageResponse`].
    GetContextUsage(GetContextUsageRequest),
    /// Answered with [`RewindFilesResponse`].
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

/// A request whose subtype tack does not model, kept whole (with its `subtype`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OtherRequest(pub Map<String, Value>);

impl OtherRequest {
    pub fn subtype(&self) -> &str {
        self.0.get("subtype").and_then(Value::as_str).unwrap_or("")
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
    /// SDK process; tack calls them with [`CliRequest::HookCallback`].
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
    /// [`CliRequest::McpMessage`] (Python lists them in `--mcp-config` with
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

// ---------------------------------------------------------------------------
// Requests tack sends
// ---------------------------------------------------------------------------

/// A `control_request` payload tack sends to the SDK, by `subtype`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum CliRequest {
    /// With `--permission-prompt-tool stdio`: ask before a tool call; answered
    /// with a [`PermissionResult`].
    CanUseTool(Box<CanUseToolRequest>),
    /// Run a hook callback registered in `initialize`; answered with a
    /// [`HookOutput`].
    HookCallback(HookCallbackRequest),
    /// Relay one JSON-RPC message to an in-process MCP server; answered with a
    /// [`McpMessageResponse`].
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
/// the messages such a server starts itself ([`SdkRequest::McpMessage`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpMessageRequest {
    pub server_name: String,
    /// A JSON-RPC 2.0 request, notification or response.
    pub message: Value,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

/// The inside of a `control_response`, by `subtype`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlResponse {
    Success(ControlSuccess),
    Error(ControlError),
}

/// `{"subtype": "success", "request_id", "response": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlSuccess {
    pub request_id: String,
    /// The payload; both SDKs read a missing one as `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{"subtype": "error", "request_id", "error": "..."}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlError {
    pub request_id: String,
    pub error: String,
    /// TypeScript: `error_code` (`unsupported_request`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ControlResponse {
    /// A success carrying `payload`.
    pub fn success(
        request_id: impl Into<String>,
        payload: &impl Serialize,
    ) -> Result<ControlResponse, serde_json::Error> {
        Ok(ControlResponse::Success(ControlSuccess {
            request_id: request_id.into(),
            response: Some(serde_json::to_value(payload)?),
            extra: Map::new(),
        }))
    }

    /// A success with `{}` (`set_model`, `set_permission_mode`, ...).
    pub fn empty_success(request_id: impl Into<String>) -> ControlResponse {
        ControlResponse::Success(ControlSuccess {
            request_id: request_id.into(),
            response: Some(Value::Object(Map::new())),
            extra: Map::new(),
        })
    }

    /// An error; both SDKs raise `error` as the exception message.
    pub fn error(request_id: impl Into<String>, error: impl Into<String>) -> ControlResponse {
        ControlResponse::Error(ControlError {
            request_id: request_id.into(),
            error: error.into(),
            extra: Map::new(),
        })
    }

    /// The answer to a request tack does not implement, worded as the SDKs word
    /// theirs.
    pub fn unsupported(request_id: impl Into<String>, subtype: &str) -> ControlResponse {
        ControlResponse::error(
            request_id,
            format!("Unsupported control request subtype: {subtype}"),
        )
    }

    pub fn request_id(&self) -> &str {
        match self {
            ControlResponse::Success(s) => &s.request_id,
            ControlResponse::Error(e) => &e.request_id,
        }
    }

    /// This response as the line tack prints.
    pub fn into_line(self) -> ControlLine {
        ControlLine::ControlResponse(ControlResponseLine { response: self })
    }
}

impl ControlSuccess {
    /// The payload read as `T`; a missing payload reads as `{}`.
    pub fn payload<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match &self.response {
            Some(value) => T::deserialize(value),
            None => T::deserialize(Value::Object(Map::new())),
        }
    }
}

/// The success payload for `initialize`: what the session really has.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InitializeResponse {
    /// Slash commands the session understands.
    pub commands: Vec<SlashCommand>,
    /// Subagents.
    pub agents: Vec<AgentInfo>,
    pub output_style: String,
    pub available_output_styles: Vec<String>,
    /// Models `set_model` accepts.
    pub models: Vec<ModelInfo>,
    pub account: AccountInfo,
    /// Whether the request's `hooks` were registered (absent when it had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks_applied: Option<bool>,
    /// `true` when `onFailure` on hook matchers is honoured; both SDKs refuse a
    /// session with `onFailure: "block"` hooks without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_on_failure_supported: Option<bool>,
    /// Same value as `system/init` `claude_code_version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claude_code_version: Option<String>,
    /// `off` | `cooldown` | `on`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_mode_state: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of `InitializeResponse::commands`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlashCommand {
    /// Without the leading `/`.
    pub name: String,
    pub description: String,
    /// `""` when the command takes no arguments.
    pub argument_hint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of `InitializeResponse::agents`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    pub name: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of `InitializeResponse::models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// What `set_model` / `--model` takes (`sonnet`, `default`, or an id).
    pub value: String,
    pub display_name: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_model: Option<String>,
    /// `supportsEffort`, `supportedEffortLevels`, `supportsAdaptiveThinking`, ...
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `InitializeResponse::account`; every field optional (`{}` with an API key
/// and nothing else known).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscription_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_source: Option<String>,
    /// As `system/init` `apiKeySource`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_source: Option<String>,
    /// `firstParty`, `bedrock`, `vertex`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_provider: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The success payload for `interrupt` (the `interrupt_receipt_v1` capability).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InterruptResponse {
    /// `uuid`s of queued user messages that will still run.
    pub still_queued: Vec<String>,
    /// With `cancel_queued: true`: the `uuid`s dropped instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<Vec<String>>,
}

/// The success payload for `mcp_status`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct McpStatusResponse {
    #[serde(rename = "mcpServers")]
    pub mcp_servers: Vec<McpServerStatus>,
}

/// One server in [`McpStatusResponse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerStatus {
    pub name: String,
    /// `connected`, `failed`, `needs-auth`, `pending`, `disabled`.
    pub status: String,
    /// `serverInfo`, `error`, `config`, `scope`, `tools`.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The success payload for `get_context_usage` (what `/context` shows). The
/// Python SDK types every field here as present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsageResponse {
    pub categories: Vec<ContextUsageCategory>,
    pub total_tokens: u64,
    pub max_tokens: u64,
    pub raw_max_tokens: u64,
    /// 0-100.
    pub percentage: f64,
    pub model: String,
    pub is_auto_compact_enabled: bool,
    pub memory_files: Vec<Value>,
    pub mcp_tools: Vec<Value>,
    pub agents: Vec<Value>,
    pub grid_rows: Vec<Vec<Value>>,
    /// `autoCompactThreshold`, `systemTools`, `messageBreakdown`, `apiUsage`, ...
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One category of [`ContextUsageResponse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextUsageCategory {
    pub name: String,
    pub tokens: u64,
    pub color: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The success payload for `rewind_files`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindFilesResponse {
    pub can_rewind: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insertions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

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

/// A permission change, in `permission_suggestions` and `updatedPermissions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PermissionUpdate {
    AddRules(RulesUpdate),
    ReplaceRules(RulesUpdate),
    RemoveRules(RulesUpdate),
    SetMode(ModeUpdate),
    AddDirectories(DirectoriesUpdate),
    RemoveDirectories(DirectoriesUpdate),
}

impl PermissionUpdate {
    /// A rule (`Bash(npm test *)`) as an "always allow" suggestion: add it to
    /// the local settings.
    pub fn allow_rule(rule: &str) -> PermissionUpdate {
        let (tool_name, rule_content) = match rule.split_once('(') {
            Some((tool, rest)) => (tool.to_owned(), rest.strip_suffix(')').map(str::to_owned)),
            None => (rule.to_owned(), None),
        };
        PermissionUpdate::AddRules(RulesUpdate {
            rules: vec![PermissionRuleValue {
                tool_name,
                rule_content,
            }],
            behavior: PermissionBehavior::Allow,
            destination: PermissionDestination::LocalSettings,
        })
    }
}

/// `addRules` / `replaceRules` / `removeRules`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RulesUpdate {
    pub rules: Vec<PermissionRuleValue>,
    pub behavior: PermissionBehavior,
    pub destination: PermissionDestination,
}

/// `setMode`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeUpdate {
    /// A permission mode name (`acceptEdits`, ...).
    pub mode: String,
    pub destination: PermissionDestination,
}

/// `addDirectories` / `removeDirectories`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectoriesUpdate {
    pub directories: Vec<String>,
    pub destination: PermissionDestination,
}

/// `{"toolName": "Bash", "ruleContent": "npm test *"}`; no `ruleContent` is a rule
/// for every use of the tool (the Python SDK leaves the key out, never `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRuleValue {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionBehavior {
    Allow,
    Deny,
    Ask,
}

/// Where a permission update is applied and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionDestination {
    UserSettings,
    ProjectSettings,
    LocalSettings,
    /// In memory until the session ends (the Python SDK's default).
    Session,
    /// The command line's rules (TypeScript only).
    CliArg,
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

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn subtype_of<E: serde::de::Error>(map: &Map<String, Value>) -> Result<String, E> {
    match map.get("subtype") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(E::custom("control request `subtype` is not a string")),
        None => Err(E::missing_field("subtype")),
    }
}

/// The map without `key` (the tag, which the payload types do not carry).
fn without(map: &mut Map<String, Value>, key: &str) -> Map<String, Value> {
    let mut rest = std::mem::take(map);
    rest.remove(key);
    rest
}

fn from_map<T: DeserializeOwned, E: serde::de::Error>(map: Map<String, Value>) -> Result<T, E> {
    T::deserialize(Value::Object(map)).map_err(E::custom)
}

/// A known subtype's payload; its errors name the subtype.
fn typed<T: DeserializeOwned, E: serde::de::Error>(
    map: &mut Map<String, Value>,
    subtype: &str,
) -> Result<T, E> {
    T::deserialize(Value::Object(without(map, "subtype")))
        .map_err(|e| E::custom(format!("invalid `{subtype}` control request: {e}")))
}
