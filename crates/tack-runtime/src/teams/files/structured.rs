//! The protocol messages Claude Code writes as JSON inside an inbox
//! message's `text` (`{"type":"idle_notification",…}`): the ones tack sends
//! are built here; any other `type` is passed on to the model as text.

use serde_json::{Map, Value, json};

/// What an inbox message's `text` holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Words for the agent.
    Plain,
    /// A protocol message: its `type` and the whole object.
    Structured {
        kind: String,
        value: Map<String, Value>,
    },
}

/// Tells a protocol message from words: an object with a string `type`.
pub fn body(text: &str) -> Body {
    if !text.trim_start().starts_with('{') {
        return Body::Plain;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(value)) => match value.get("type").and_then(Value::as_str) {
            Some(kind) => Body::Structured {
                kind: kind.to_string(),
                value: value.clone(),
            },
            None => Body::Plain,
        },
        _ => Body::Plain,
    }
}

/// Why a teammate went idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleReason {
    Available,
    Interrupted,
}

/// `{"type":"idle_notification","from","timestamp","idleReason"}`.
pub fn idle_notification(from: &str, timestamp: &str, reason: IdleReason) -> String {
    let reason = match reason {
        IdleReason::Available => "available",
        IdleReason::Interrupted => "interrupted",
    };
    json!({"type": "idle_notification", "from": from, "timestamp": timestamp, "idleReason": reason})
        .to_string()
}

/// `{"type":"shutdown_request","requestId":"shutdown-<ms>@<to>","from","reason","timestamp"}`.
pub fn shutdown_request(from: &str, to: &str, reason: &str, timestamp: &str, ms: u64) -> String {
    json!({
        "type": "shutdown_request",
        "requestId": format!("shutdown-{ms}@{to}"),
        "from": from,
        "reason": reason,
        "timestamp": timestamp,
    })
    .to_string()
}

/// `{"type":"task_assignment","taskId","subject","description","assignedBy","timestamp"}`.
pub fn task_assignment(
    task_id: &str,
    subject: &str,
    description: &str,
    assigned_by: &str,
    timestamp: &str,
) -> String {
    json!({
        "type": "task_assignment",
        "taskId": task_id,
        "subject": subject,
        "description": description,
        "assignedBy": assigned_by,
        "timestamp": timestamp,
    })
    .to_string()
}

/// `{"type":"shutdown_response","requestId","approved"}` (and why not).
pub fn shutdown_response(request_id: &str, approved: bool, reason: Option<&str>) -> String {
    let mut value =
        json!({"type": "shutdown_response", "requestId": request_id, "approved": approved});
    if let Some(reason) = reason {
        value["content"] = json!(reason);
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_messages_are_told_from_words() {
        let idle = idle_notification(
            "docs-types",
            "2026-02-07T15:20:49.498Z",
            IdleReason::Available,
        );
        assert_eq!(
            idle,
            r#"{"type":"idle_notification","from":"docs-types","timestamp":"2026-02-07T15:20:49.498Z","idleReason":"available"}"#
        );
        assert!(
            matches!(body(&idle), Body::Structured { kind, .. } if kind == "idle_notification")
        );
        assert_eq!(body("{not json"), Body::Plain);
        assert_eq!(body("{\"no\":\"type\"}"), Body::Plain);
        assert_eq!(body("hello"), Body::Plain);
    }
}
