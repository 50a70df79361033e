//! tack's requests to the SDK: `can_use_tool` for the runtime's permission
//! requests and `hook_callback` for its client hook calls.
//!
//! Each request waits in a task for the first of:
//! - the SDK's `control_response` (routed here by request id): its answer is
//!   applied; an `error` response or a malformed payload is an error outcome
//!   (a denial with the reason, or a failed hook), never a hang;
//! - the runtime giving up (the turn was interrupted, the hook's own timeout
//!   passed: it drops its receiver): the SDK gets a `control_cancel_request`;
//! - for `can_use_tool`, [`Asks::permission_timeout`]: the SDK gets a
//!   `control_cancel_request` and the call is denied, saying so.
//!
//! Once the SDK's input is closed nothing can answer: requests are then not
//! sent, and waiting ones resolve as failures at once.

use std::collections::HashMap;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use serde_json::Value;
use tack_protocol::control::{
    CanUseToolRequest, CliRequest, ControlCancel, ControlLine, ControlRequest, ControlResponse,
    HookCallbackRequest, PermissionResult, PermissionUpdate,
};
use tack_runtime::{HookCallback, PermissionAnswer, PermissionRequest};
use tokio::sync::oneshot;

/// How long a `can_use_tool` callback may take by default: 10 minutes, the
/// ceiling Claude Code puts on waiting for background work in print mode. A
/// callback may ask a person; `TACK_PERMISSION_CALLBACK_TIMEOUT_MS` changes it.
pub const DEFAULT_PERMISSION_TIMEOUT: Duration = Duration::from_secs(600);

/// The SDK's answer to one request, or why there is none.
type Answer = Result<ControlResponse, String>;

/// A finished wait: the request id, and the line to write (a cancel), if any.
type Settled = (String, Option<ControlLine>);

/// tack's requests waiting for the SDK.
pub struct Asks {
    next_id: u64,
    waiting: HashMap<String, oneshot::Sender<Answer>>,
    /// One task per waiting request.
    pub tasks: FuturesUnordered<BoxFuture<'static, Settled>>,
    pub permission_timeout: Duration,
    /// The SDK's input is closed.
    closed: bool,
}

impl Asks {
    pub fn new(permission_timeout: Duration) -> Asks {
        Asks {
            next_id: 0,
            waiting: HashMap::new(),
            tasks: FuturesUnordered::new(),
            permission_timeout,
            closed: false,
        }
    }

    fn request_id(&mut self) -> String {
        self.next_id += 1;
        format!("tack_req_{}", self.next_id)
    }

    /// Registers a request; its answer comes through the returned receiver.
    fn wait(&mut self, id: &str) -> oneshot::Receiver<Answer> {
        let (tx, rx) = oneshot::channel();
        self.waiting.insert(id.to_owned(), tx);
        rx
    }

    /// Routes the SDK's answer to `request_id`; `false` if nothing waits for
    /// it (cancelled already, or not tack's).
    pub fn answer(&mut self, request_id: &str, answer: Answer) -> bool {
        match self.waiting.remove(request_id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// A task finished (`id` no longer waits).
    pub fn settled(&mut self, id: &str) {
        self.waiting.remove(id);
    }

    /// The SDK's input closed: every wait fails now, and so will new ones.
    pub fn close(&mut self) {
        self.closed = true;
        self.waiting.clear();
    }

    /// `can_use_tool` for a permission request: the line to send, if any.
    pub fn permission(&mut self, request: PermissionRequest) -> Option<ControlLine> {
        let PermissionRequest {
            tool_name,
            input,
            tool_use_id,
            reason,
            suggestions,
            blocked_path,
            agent,
            reply,
        } = request;
        if self.closed {
            let _ = reply.send(deny(INPUT_CLOSED.to_owned()));
            return None;
        }
        let id = self.request_id();
        let answer = self.wait(&id);
        let line = control_request(
            &id,
            CliRequest::CanUseTool(Box::new(CanUseToolRequest {
                tool_name,
                input,
                tool_use_id,
                permission_suggestions: (!suggestions.is_empty()).then(|| {
                    suggestions
                        .iter()
                        .map(|r| PermissionUpdate::allow_rule(r))
                        .collect()
                }),
                blocked_path: blocked_path.map(|p| p.to_string_lossy().into_owned()),
                decision_reason: Some(reason),
                title: None,
                display_name: None,
                description: None,
                agent_id: agent.map(|a| a.id),
                extra: Default::default(),
            })),
        );
        let timeout = self.permission_timeout;
        self.tasks.push(Box::pin(async move {
            let mut reply = reply;
            tokio::select! {
                answer = answer => {
                    let _ = reply.send(permission_answer(answer));
                    (id, None)
                }
                () = reply.closed() => {
                    let cancel = cancel_line(&id);
                    (id, Some(cancel))
                }
                () = tokio::time::sleep(timeout) => {
                    let _ = reply.send(deny(format!(
                        "The can_use_tool callback did not answer within {}s; the tool call was denied",
                        timeout.as_secs_f64()
                    )));
                    let cancel = cancel_line(&id);
                    (id, Some(cancel))
                }
            }
        }));
        Some(line)
    }

    /// `hook_callback` for a client hook call: the line to send, if any. The
    /// runtime bounds the wait (the hook's timeout).
    pub fn hook(&mut self, call: HookCallback) -> Option<ControlLine> {
        let HookCallback {
            callback_id,
            input,
            tool_use_id,
            reply,
        } = call;
        if self.closed {
            let _ = reply.send(Err(INPUT_CLOSED.to_owned()));
            return None;
        }
        let id = self.request_id();
        let answer = self.wait(&id);
        let line = control_request(
            &id,
            CliRequest::HookCallback(HookCallbackRequest {
                callback_id,
                input,
                tool_use_id,
                extra: Default::default(),
            }),
        );
        self.tasks.push(Box::pin(async move {
            let mut reply = reply;
            tokio::select! {
                answer = answer => {
                    let _ = reply.send(hook_answer(answer));
                    (id, None)
                }
                () = reply.closed() => {
                    let cancel = cancel_line(&id);
                    (id, Some(cancel))
                }
            }
        }));
        Some(line)
    }
}

const INPUT_CLOSED: &str = "the SDK closed its input, so nobody can answer";

fn control_request(id: &str, request: CliRequest) -> ControlLine {
    ControlLine::ControlRequest(ControlRequest {
        request_id: id.to_owned(),
        request,
    })
}

fn cancel_line(id: &str) -> ControlLine {
    ControlLine::ControlCancelRequest(ControlCancel {
        request_id: id.to_owned(),
    })
}

fn deny(message: String) -> PermissionAnswer {
    PermissionAnswer::Deny {
        message,
        interrupt: false,
    }
}

/// The SDK's `can_use_tool` answer as the runtime's; anything but a valid
/// allow or deny denies the call, saying why.
fn permission_answer(answer: Result<Answer, oneshot::error::RecvError>) -> PermissionAnswer {
    let response = match answer {
        Ok(Ok(response)) => response,
        Ok(Err(why)) => return deny(format!("The can_use_tool callback failed: {why}")),
        Err(_) => {
            return deny(format!(
                "The can_use_tool callback never answered: {INPUT_CLOSED}"
            ));
        }
    };
    match response {
        ControlResponse::Success(success) => match success.payload::<PermissionResult>() {
            Ok(PermissionResult::Allow(allow)) => PermissionAnswer::Allow {
                updated_input: allow.updated_input,
                updates: allow.updated_permissions.unwrap_or_default(),
            },
            Ok(PermissionResult::Deny(d)) => PermissionAnswer::Deny {
                message: d.message,
                interrupt: d.interrupt.unwrap_or(false),
            },
            Err(e) => deny(format!(
                "The can_use_tool callback returned a malformed answer ({e}); the tool call was denied"
            )),
        },
        ControlResponse::Error(e) => deny(format!("The can_use_tool callback failed: {}", e.error)),
    }
}

/// The SDK's `hook_callback` answer: the hook's JSON output, or why not.
fn hook_answer(answer: Result<Answer, oneshot::error::RecvError>) -> Result<Value, String> {
    match answer {
        Ok(Ok(ControlResponse::Success(success))) => Ok(success
            .response
            .unwrap_or_else(|| Value::Object(Default::default()))),
        Ok(Ok(ControlResponse::Error(e))) => Err(e.error),
        Ok(Err(why)) => Err(why),
        Err(_) => Err(INPUT_CLOSED.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use futures::StreamExt;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn permission_request() -> (PermissionRequest, oneshot::Receiver<PermissionAnswer>) {
        let (reply, rx) = oneshot::channel();
        let request = PermissionRequest {
            tool_name: "Bash".into(),
            input: json!({"command": "npm test"}),
            tool_use_id: "toolu_1".into(),
            reason: "Bash needs approval".into(),
            suggestions: vec!["Bash(npm test *)".into()],
            blocked_path: Some(PathBuf::from("/elsewhere/x")),
            agent: None,
            reply,
        };
        (request, rx)
    }

    fn success(id: &str, payload: Value) -> Answer {
        Ok(ControlResponse::success(id, &payload).unwrap())
    }

    #[test]
    fn can_use_tool_carries_the_request_and_its_suggestions() {
        let mut asks = Asks::new(DEFAULT_PERMISSION_TIMEOUT);
        let (request, _rx) = permission_request();
        let line = asks.permission(request).unwrap();
        assert_eq!(
            serde_json::to_value(&line).unwrap(),
            json!({"type": "control_request", "request_id": "tack_req_1", "request": {
                "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "npm test"},
                "tool_use_id": "toolu_1",
                "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test *"}],
                    "behavior": "allow", "destination": "localSettings"}],
                "blocked_path": "/elsewhere/x", "decision_reason": "Bash needs approval"}})
        );
        // A sub-agent's call names the agent.
        let (request, _rx) = permission_request();
        let request = PermissionRequest {
            agent: Some(tack_runtime::AgentIdentity {
                id: "a1b2c3d4".into(),
                agent_type: "reviewer".into(),
            }),
            ..request
        };
        let line = serde_json::to_value(asks.permission(request).unwrap()).unwrap();
        assert_eq!(line["request"]["agent_id"], json!("a1b2c3d4"));
    }

    #[tokio::test]
    async fn allow_and_deny_answers_reach_the_runtime() {
        let mut asks = Asks::new(DEFAULT_PERMISSION_TIMEOUT);
        let (request, rx) = permission_request();
        asks.permission(request);
        let update = json!({"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"});
        assert!(asks.answer(
            "tack_req_1",
            success(
                "tack_req_1",
                json!({"behavior": "allow", "updatedInput": {"command": "npm t"}, "updatedPermissions": [update]})
            )
        ));
        assert_eq!(asks.tasks.next().await, Some(("tack_req_1".into(), None)));
        assert_eq!(
            rx.await.unwrap(),
            PermissionAnswer::Allow {
                updated_input: Some(json!({"command": "npm t"})),
                updates: vec![serde_json::from_value(update).unwrap()],
            }
        );

        let (request, rx) = permission_request();
        asks.permission(request);
        asks.answer(
            "tack_req_2",
            success(
                "tack_req_2",
                json!({"behavior": "deny", "message": "no", "interrupt": true}),
            ),
        );
        asks.tasks.next().await;
        assert_eq!(
            rx.await.unwrap(),
            PermissionAnswer::Deny {
                message: "no".into(),
                interrupt: true
            }
        );
        // Nothing waits for an unknown id.
        assert!(!asks.answer("tack_req_9", success("tack_req_9", json!({}))));
    }

    #[tokio::test]
    async fn malformed_and_error_answers_deny_with_the_reason() {
        let mut asks = Asks::new(DEFAULT_PERMISSION_TIMEOUT);
        let cases = [
            (
                success("x", json!({"behavior": "maybe"})),
                "The can_use_tool callback returned a malformed answer (unknown variant `maybe`, expected `allow` or `deny`); the tool call was denied",
            ),
            (
                Ok(ControlResponse::error("x", "ValueError: boom")),
                "The can_use_tool callback failed: ValueError: boom",
            ),
            (
                Err("a control_response line that is not valid".to_owned()),
                "The can_use_tool callback failed: a control_response line that is not valid",
            ),
        ];
        for (i, (answer, want)) in cases.into_iter().enumerate() {
            let (request, rx) = permission_request();
            asks.permission(request);
            asks.answer(&format!("tack_req_{}", i + 1), answer);
            asks.tasks.next().await;
            assert_eq!(
                rx.await.unwrap(),
                PermissionAnswer::Deny {
                    message: want.into(),
                    interrupt: false
                }
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_callback_that_never_answers_is_cancelled_and_denied() {
        let mut asks = Asks::new(Duration::from_secs(30));
        let (request, rx) = permission_request();
        asks.permission(request);
        let settled = asks.tasks.next().await.unwrap();
        assert_eq!(
            serde_json::to_value(&settled).unwrap(),
            json!(["tack_req_1", {"type": "control_cancel_request", "request_id": "tack_req_1"}])
        );
        assert_eq!(
            rx.await.unwrap(),
            PermissionAnswer::Deny {
                message:
                    "The can_use_tool callback did not answer within 30s; the tool call was denied"
                        .into(),
                interrupt: false
            }
        );
    }

    #[tokio::test]
    async fn the_runtime_giving_up_cancels_the_request() {
        let mut asks = Asks::new(DEFAULT_PERMISSION_TIMEOUT);
        let (reply, rx) = oneshot::channel();
        asks.hook(HookCallback {
            callback_id: "hook_0".into(),
            input: json!({"hook_event_name": "Stop"}),
            tool_use_id: None,
            reply,
        });
        drop(rx); // the hook's timeout passed
        let settled = asks.tasks.next().await.unwrap();
        assert_eq!(
            serde_json::to_value(&settled).unwrap(),
            json!(["tack_req_1", {"type": "control_cancel_request", "request_id": "tack_req_1"}])
        );
    }

    #[tokio::test]
    async fn hook_answers_and_a_closed_input() {
        let mut asks = Asks::new(DEFAULT_PERMISSION_TIMEOUT);
        let call = |reply| HookCallback {
            callback_id: "hook_0".into(),
            input: json!({}),
            tool_use_id: Some("toolu_1".into()),
            reply,
        };
        let (reply, rx) = oneshot::channel();
        let line = asks.hook(call(reply)).unwrap();
        assert_eq!(
            serde_json::to_value(&line).unwrap(),
            json!({"type": "control_request", "request_id": "tack_req_1", "request": {
                "subtype": "hook_callback", "callback_id": "hook_0", "input": {}, "tool_use_id": "toolu_1"}})
        );
        asks.answer(
            "tack_req_1",
            success("tack_req_1", json!({"decision": "block", "reason": "r"})),
        );
        asks.tasks.next().await;
        assert_eq!(
            rx.await.unwrap(),
            Ok(json!({"decision": "block", "reason": "r"}))
        );

        let (reply, rx) = oneshot::channel();
        asks.hook(call(reply));
        asks.close();
        asks.tasks.next().await;
        assert_eq!(rx.await.unwrap(), Err(INPUT_CLOSED.to_owned()));
        let (reply, rx) = oneshot::channel();
        assert_eq!(asks.hook(call(reply)), None);
        assert_eq!(rx.await.unwrap(), Err(INPUT_CLOSED.to_owned()));
    }
}
