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

/// How a teammate answers a `shutdown_request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShutdownAnswer<'a> {
    /// It stops: its pane (when it has one) and backend, as Claude Code's.
    Approved {
        pane_id: Option<&'a str>,
        backend_type: Option<&'a str>,
    },
    /// It goes on working, for `reason`.
    Rejected { reason: &'a str },
}

/// Claude Code's answer to a `shutdown_request`:
/// `{"type":"shutdown_approved","requestId","from","timestamp","paneId"?,"backendType"?}`
/// or `{"type":"shutdown_rejected","requestId","from","reason","timestamp"}`.
pub fn shutdown_answer(
    request_id: &str,
    from: &str,
    timestamp: &str,
    answer: ShutdownAnswer<'_>,
) -> String {
    match answer {
        ShutdownAnswer::Approved {
            pane_id,
            backend_type,
        } => {
            let mut value = json!({"type": "shutdown_approved", "requestId": request_id,
                "from": from, "timestamp": timestamp});
            if let Some(pane) = pane_id.filter(|p| !p.is_empty()) {
                value["paneId"] = json!(pane);
            }
            if let Some(backend) = backend_type {
                value["backendType"] = json!(backend);
            }
            value.to_string()
        }
        ShutdownAnswer::Rejected { reason } => json!({"type": "shutdown_rejected",
            "requestId": request_id, "from": from, "reason": reason, "timestamp": timestamp})
        .to_string(),
    }
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

    #[test]
    fn a_shutdown_is_answered_as_claude_code_answers_it() {
        let approved = ShutdownAnswer::Approved {
            pane_id: Some("%3"),
            backend_type: Some("tmux"),
        };
        assert_eq!(
            shutdown_answer("shutdown-1@alice", "alice", "t", approved),
            r#"{"type":"shutdown_approved","requestId":"shutdown-1@alice","from":"alice","timestamp":"t","paneId":"%3","backendType":"tmux"}"#
        );
        let rejected = ShutdownAnswer::Rejected { reason: "busy" };
        assert_eq!(
            shutdown_answer("r", "bob", "t", rejected),
            r#"{"type":"shutdown_rejected","requestId":"r","from":"bob","reason":"busy","timestamp":"t"}"#
        );
    }
}
