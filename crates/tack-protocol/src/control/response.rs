//! The inside of a `control_response` line, either way: a success with its
//! payload, or an error.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
