//! The records `--output-format stream-json` prints, one JSON object per line,
//! with Claude Code's field names (see `shared/spec/claude-code-headless.md` §4
//! and the real samples in `shared/spec/samples/`).
//!
//! Every record type keeps the fields tack does not model in a flattened
//! `extra` map, so a Claude Code record parsed here serialises back to the same
//! JSON value, and consumers that know newer fields lose nothing.
//!
//! `message` on user records is plain JSON: tool results carry whatever the tool
//! produced, and Claude Code writes `"is_error": false` on some results and not
//! on others, which a typed block cannot reproduce.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::response::MessageResponse;
use crate::usage::Usage;

/// One line of stream-json output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamJsonRecord {
    System(SystemRecord),
    Assistant(AssistantRecord),
    User(UserRecord),
    StreamEvent(StreamEventRecord),
    Result(ResultRecord),
    /// `/clear` (Claude Code's `conversation_reset`): the conversation goes on
    /// under `new_conversation_id`.
    ConversationReset(ConversationReset),
    /// `--session-mirror`: lines just written to a transcript file, for the
    /// SDKs' SessionStore (the SDK takes these off the stream).
    TranscriptMirror(TranscriptMirror),
}

/// `type: "system"` records, by `subtype`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SystemRecord {
    Init(Box<SystemInit>),
    ApiRetry(ApiRetry),
    CompactBoundary(CompactBoundary),
    Informational(Informational),
    HookStarted(HookStarted),
    HookResponse(HookResponse),
    PermissionDenied(PermissionDeniedRecord),
    /// Any other subtype (`status`, hook events, ...), verbatim including its
    /// `subtype`.
    #[serde(untagged)]
    Other(Map<String, Value>),
}

/// `system/init`: the first record of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemInit {
    pub cwd: String,
    pub session_id: String,
    pub tools: Vec<String>,
    pub mcp_servers: Vec<McpServerStatus>,
    pub model: String,
    #[serde(rename = "permissionMode")]
    pub permission_mode: String,
    pub slash_commands: Vec<String>,
    #[serde(rename = "apiKeySource")]
    pub api_key_source: String,
    pub claude_code_version: String,
    pub output_style: String,
    #[serde(default)]
    pub agents: Vec<String>,
    #[serde(default)]
    pub skills: Vec<String>,
    #[serde(default)]
    pub plugins: Vec<Value>,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerStatus {
    pub name: String,
    pub status: String,
}

/// `system/api_retry`: a failed model request is about to be retried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiRetry {
    pub attempt: u32,
    pub max_retries: u32,
    pub retry_delay_ms: u64,
    pub error_status: Option<u16>,
    /// Category as in an assistant record's `error` (`overloaded`, `rate_limit`, ...).
    pub error: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/compact_boundary`: the conversation was summarised; what follows
/// continues from the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactBoundary {
    pub compact_metadata: CompactMetadata,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What started a compaction and how large the history was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactMetadata {
    /// `manual` or `auto` (tack also writes `reactive`).
    pub trigger: String,
    pub pre_tokens: u64,
}

/// `system/informational`: a message for the user (`level`: `info`, `notice`,
/// `suggestion`, `warning`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Informational {
    pub content: String,
    pub level: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/permission_denied`: a tool call was refused without asking anyone
/// (a deny rule, the mode, auto mode's classifier).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDeniedRecord {
    pub tool_name: String,
    pub tool_use_id: String,
    /// What the model was told.
    pub message: String,
    /// `rule`, `mode`, `classifier`, `safetyCheck`, `hook`, `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<String>,
    /// The sub-agent that made the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/hook_started`: a command hook started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookStarted {
    pub hook_id: String,
    /// The event and its match target: `PreToolUse:Bash`, `SessionStart:startup`.
    pub hook_name: String,
    pub hook_event: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/hook_response`: the hook with `hook_id` ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookResponse {
    pub hook_id: String,
    pub hook_name: String,
    pub hook_event: String,
    /// stdout, then stderr.
    pub output: String,
    pub stdout: String,
    pub stderr: String,
    /// Absent when the hook did not exit (timed out, killed, never started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// `success`, `error` or `cancelled`.
    pub outcome: String,
    pub session_id: String,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `conversation_reset`: the conversation was dropped (`trigger: "clear"`);
/// `session_id` is the old session's, `new_conversation_id` the new one's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationReset {
    pub new_conversation_id: String,
    pub uuid: String,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// The `/clear` user message's uuid, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `transcript_mirror`: `entries` were appended to the transcript at
/// `filePath` (absolute; a main session's or a sub-agent's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptMirror {
    #[serde(rename = "filePath")]
    pub file_path: String,
    pub entries: Vec<Value>,
}

/// An assistant record: one completed content block of a model response (a
/// response with several blocks is several records sharing `message.id`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantRecord {
    pub message: AssistantPayload,
    pub parent_tool_use_id: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Error category when the message reports a failed request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The API Message inside an assistant record, plus what Claude Code adds
/// (`context_management`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantPayload {
    #[serde(flatten)]
    pub message: MessageResponse,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A user record: tool results (one record per result, as Claude Code prints
/// them) or an injected user turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserRecord {
    /// `{"role": "user", "content": ...}`, as plain JSON (see the module docs).
    pub message: Value,
    pub parent_tool_use_id: Option<String>,
    pub session_id: String,
    pub uuid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// The tool's structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<Value>,
    #[serde(
        rename = "isSynthetic",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub is_synthetic: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `stream_event` (with `--include-partial-messages`): a raw SSE event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamEventRecord {
    /// The SSE `data` object as the API sent it.
    pub event: Value,
    pub session_id: String,
    pub parent_tool_use_id: Option<String>,
    pub uuid: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The last record of a turn; also the whole output of `--output-format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// `success`, `error_max_turns`, `error_during_execution`, `error_max_budget_usd`,
    /// `error_max_structured_output_retries`.
    pub subtype: String,
    pub is_error: bool,
    pub duration_ms: u64,
    pub duration_api_ms: u64,
    pub num_turns: u32,
    /// The final text (success arm only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    #[serde(default)]
    pub stop_reason: Option<String>,
    pub session_id: String,
    pub total_cost_usd: f64,
    pub usage: ResultUsage,
    #[serde(rename = "modelUsage")]
    pub model_usage: BTreeMap<String, ModelUsageRecord>,
    pub permission_denials: Vec<PermissionDenial>,
    /// `--json-schema`: the validated answer the model gave through the
    /// `StructuredOutput` tool (success arm only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<String>,
    /// Error arm: what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<String>>,
    #[serde(default)]
    pub api_error_status: Option<u16>,
    pub uuid: String,
    /// The `uuid` of the stream-json user line this turn answers, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_message_uuid: Option<String>,
    /// The `origin` of that user line (e.g. `{"kind": "human"}`), echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `result.usage`: API usage totals plus what Claude Code adds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultUsage {
    #[serde(flatten)]
    pub usage: Usage,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One model's totals in `result.modelUsage`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsageRecord {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub web_search_requests: u64,
    #[serde(rename = "costUSD")]
    pub cost_usd: f64,
    pub context_window: u64,
    pub max_output_tokens: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool call the permission layer refused (`result.permission_denials`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDenial {
    pub tool_name: String,
    pub tool_use_id: String,
    pub tool_input: Value,
}
