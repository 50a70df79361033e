//! The success payloads tack answers the SDK's requests with (`initialize`,
//! `interrupt`, `mcp_status`, `get_context_usage`, `rewind_files`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
