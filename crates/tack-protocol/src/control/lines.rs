//! The three envelopes (and `user` lines) as whole NDJSON lines: what one
//! line of stdin is, and what one control line tack prints is.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::content::Message;

use super::cli_request::CliRequest;
use super::response::ControlResponse;
use super::sdk_request::SdkRequest;
use super::tagged::{from_map, without};

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

impl ControlResponse {
    /// This response as the line tack prints.
    pub fn into_line(self) -> ControlLine {
        ControlLine::ControlResponse(ControlResponseLine { response: self })
    }
}
