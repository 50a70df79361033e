//! tack's requests to the SDK: `can_use_tool` for the runtime's permission
//! requests and `hook_callback` for its client hook calls.
//!
//! Each is one of the runtime's asks ([`tack_runtime::AskId`]); its SDK
//! request id is `tack_req_<ask>`. It is settled by the first of:
//! - the SDK's `control_response` (routed here by request id): its answer is
//!   given to the runtime; an `error` response or a malformed payload is an
//!   error outcome (a denial with the reason, or a failed hook), never a hang;
//! - the runtime withdrawing the ask (the turn was interrupted, the hook's
//!   own timeout passed): the SDK gets a `control_cancel_request`;
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
use tack_runtime::{
    AskAnswer, AskId, HookAnswer, HookCallback, PermissionAnswer, PermissionRequest,
};

/// How long a `can_use_tool` callback may take by default: 10 minutes, the
/// ceiling Claude Code puts on waiting for background work in print mode. A
/// callback may ask a person; `TACK_PERMISSION_CALLBACK_TIMEOUT_MS` changes it.
pub const DEFAULT_PERMISSION_TIMEOUT: Duration = Duration::from_secs(600);

/// The SDK's answer to one request, or why there is none.
type Answer = Result<ControlResponse, String>;

/// What kind of answer a request waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Permission,
    Hook,
}

/// Where an answer goes: the runtime's [`tack_runtime::Answers`].
pub type Settle = Box<dyn Fn(AskId, AskAnswer) + Send>;

/// tack's requests waiting for the SDK.
pub struct Asks {
    settle: Settle,
    /// By SDK request id: the ask it serves.
    waiting: HashMap<String, (AskId, Kind)>,
    /// The permission requests' deadlines: each yields its request id.
    pub tasks: FuturesUnordered<BoxFuture<'static, String>>,
    pub permission_timeout: Duration,
    /// The SDK's input is closed.
    closed: bool,
}

impl Asks {
    pub fn new(permission_timeout: Duration, settle: Settle) -> Asks {
        Asks {
            settle,
            waiting: HashMap::new(),
            tasks: FuturesUnordered::new(),
            permission_timeout,
            closed: false,
        }
    }

    fn request_id(ask: AskId) -> String {
        format!("tack_req_{}", ask.0)
    }

    /// Gives the runtime `answer` for `ask` (it may have withdrawn it
    /// meanwhile: nothing to do then).
    fn settle(&self, ask: AskId, answer: AskAnswer) {
        (self.settle)(ask, answer);
    }

    /// Routes the SDK's answer to `request_id`; `false` if nothing waits for
    /// it (settled already, or not tack's).
    pub fn answer(&mut self, request_id: &str, answer: Answer) -> bool {
        let Some((ask, kind)) = self.waiting.remove(request_id) else {
            return false;
        };
        let answer = match kind {
            Kind::Permission => AskAnswer::Permission(permission_answer(answer)),
            Kind::Hook => AskAnswer::Hook(hook_answer(answer)),
        };
        self.settle(ask, answer);
        true
    }

    /// The runtime withdrew `ask`: the cancel to send, if the SDK has it.
    pub fn withdrawn(&mut self, ask: AskId) -> Option<ControlLine> {
        let id = Asks::request_id(ask);
        self.waiting.remove(&id).map(|_| cancel_line(&id))
    }

    /// `request_id`'s deadline passed: the call is denied and the cancel to
    /// send is returned, if it still waited.
    pub fn timed_out(&mut self, request_id: &str) -> Option<ControlLine> {
        let (ask, _) = self.waiting.remove(request_id)?;
        self.settle(
            ask,
            AskAnswer::Permission(deny(format!(
                "The can_use_tool callback did not answer within {}s; the tool call was denied",
                self.permission_timeout.as_secs_f64()
            ))),
        );
        Some(cancel_line(request_id))
    }

    /// The SDK's input closed: every wait fails now, and so will new ones.
    pub fn close(&mut self) {
        self.closed = true;
        for (_, (ask, kind)) in std::mem::take(&mut self.waiting) {
            self.settle(ask, closed_answer(kind));
        }
    }

    /// `can_use_tool` for a permission request: the line to send, if any.
    pub fn permission(&mut self, request: PermissionRequest) -> Option<ControlLine> {
        let PermissionRequest {
            id: ask,
            tool_name,
            input,
            tool_use_id,
            reason,
            suggestions,
            blocked_path,
            agent,
            // SDK hosts answer with `updatedPermissions` (a `setMode`).
            original: _,
            choices: _,
        } = request;
        if self.closed {
            self.settle(ask, closed_answer(Kind::Permission));
            return None;
        }
        let id = Asks::request_id(ask);
        self.waiting.insert(id.clone(), (ask, Kind::Permission));
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
            tokio::time::sleep(timeout).await;
            id
        }));
        Some(line)
    }

    /// `hook_callback` for a client hook call: the line to send, if any. The
    /// runtime bounds the wait (the hook's timeout) and withdraws the ask.
    pub fn hook(&mut self, call: HookCallback) -> Option<ControlLine> {
        let HookCallback {
            id: ask,
            callback_id,
            input,
            tool_use_id,
        } = call;
        if self.closed {
            self.settle(ask, closed_answer(Kind::Hook));
            return None;
        }
        let id = Asks::request_id(ask);
        self.waiting.insert(id.clone(), (ask, Kind::Hook));
        Some(control_request(
            &id,
            CliRequest::HookCallback(HookCallbackRequest {
                callback_id,
                input,
                tool_use_id,
                extra: Default::default(),
            }),
        ))
    }
}

fn closed_answer(kind: Kind) -> AskAnswer {
    match kind {
        Kind::Permission => AskAnswer::Permission(deny(format!(
            "The can_use_tool callback never answered: {INPUT_CLOSED}"
        ))),
        Kind::Hook => AskAnswer::Hook(HookAnswer::Failed(INPUT_CLOSED.to_owned())),
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
fn permission_answer(answer: Answer) -> PermissionAnswer {
    let response = match answer {
        Ok(response) => response,
        Err(why) => return deny(format!("The can_use_tool callback failed: {why}")),
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
fn hook_answer(answer: Answer) -> HookAnswer {
    match answer {
        Ok(ControlResponse::Success(success)) => HookAnswer::Output(
            success
                .response
                .unwrap_or_else(|| Value::Object(Default::default())),
        ),
        Ok(ControlResponse::Error(e)) => HookAnswer::Failed(e.error),
        Err(why) => HookAnswer::Failed(why),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    use futures::StreamExt;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    /// The answers given to the runtime, in order.
    type Given = Arc<Mutex<Vec<(AskId, AskAnswer)>>>;

    fn asks(timeout: Duration) -> (Asks, Given) {
        let given = Given::default();
        let sink = given.clone();
        let settle = Box::new(move |ask, answer| sink.lock().unwrap().push((ask, answer)));
        (Asks::new(timeout, settle), given)
    }

    fn taken(given: &Given) -> Vec<(AskId, AskAnswer)> {
        std::mem::take(&mut *given.lock().unwrap())
    }

    fn permission_request(ask: u64) -> PermissionRequest {
        PermissionRequest {
            id: AskId(ask),
            tool_name: "Bash".into(),
            input: json!({"command": "npm test"}),
            tool_use_id: "toolu_1".into(),
            reason: "Bash needs approval".into(),
            suggestions: vec!["Bash(npm test *)".into()],
            blocked_path: Some(PathBuf::from("/elsewhere/x")),
            agent: None,
            original: None,
            choices: Vec::new(),
        }
    }

    fn hook_call(ask: u64) -> HookCallback {
        HookCallback {
            id: AskId(ask),
            callback_id: "hook_0".into(),
            input: json!({}),
            tool_use_id: Some("toolu_1".into()),
        }
    }

    fn success(id: &str, payload: Value) -> Answer {
        Ok(ControlResponse::success(id, &payload).unwrap())
    }

    fn denied(message: &str) -> AskAnswer {
        AskAnswer::Permission(PermissionAnswer::Deny {
            message: message.into(),
            interrupt: false,
        })
    }

    #[test]
    fn can_use_tool_carries_the_request_and_its_suggestions() {
        let (mut asks, _) = asks(DEFAULT_PERMISSION_TIMEOUT);
        let line = asks.permission(permission_request(1)).unwrap();
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
        let request = PermissionRequest {
            agent: Some(tack_runtime::AgentIdentity {
                id: "a1b2c3d4".into(),
                agent_type: "reviewer".into(),
            }),
            ..permission_request(2)
        };
        let line = serde_json::to_value(asks.permission(request).unwrap()).unwrap();
        assert_eq!(line["request"]["agent_id"], json!("a1b2c3d4"));
    }

    #[test]
    fn allow_and_deny_answers_reach_the_runtime() {
        let (mut asks, given) = asks(DEFAULT_PERMISSION_TIMEOUT);
        asks.permission(permission_request(1));
        let update = json!({"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"});
        assert!(asks.answer(
            "tack_req_1",
            success(
                "tack_req_1",
                json!({"behavior": "allow", "updatedInput": {"command": "npm t"}, "updatedPermissions": [update]})
            )
        ));
        asks.permission(permission_request(2));
        asks.answer(
            "tack_req_2",
            success(
                "tack_req_2",
                json!({"behavior": "deny", "message": "no", "interrupt": true}),
            ),
        );
        assert_eq!(
            taken(&given),
            vec![
                (
                    AskId(1),
                    AskAnswer::Permission(PermissionAnswer::Allow {
                        updated_input: Some(json!({"command": "npm t"})),
                        updates: vec![serde_json::from_value(update).unwrap()],
                    })
                ),
                (
                    AskId(2),
                    AskAnswer::Permission(PermissionAnswer::Deny {
                        message: "no".into(),
                        interrupt: true
                    })
                ),
            ]
        );
        // Nothing waits for an unknown id, or for one answered already.
        assert!(!asks.answer("tack_req_9", success("tack_req_9", json!({}))));
        assert!(!asks.answer("tack_req_1", success("tack_req_1", json!({}))));
        // A settled request's deadline does nothing.
        assert_eq!(asks.timed_out("tack_req_1"), None);
        assert_eq!(taken(&given), vec![]);
    }

    #[test]
    fn malformed_and_error_answers_deny_with_the_reason() {
        let (mut asks, given) = asks(DEFAULT_PERMISSION_TIMEOUT);
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
        let mut want = Vec::new();
        for (i, (answer, message)) in cases.into_iter().enumerate() {
            let ask = i as u64 + 1;
            asks.permission(permission_request(ask));
            asks.answer(&format!("tack_req_{ask}"), answer);
            want.push((AskId(ask), denied(message)));
        }
        assert_eq!(taken(&given), want);
    }

    #[tokio::test(start_paused = true)]
    async fn a_callback_that_never_answers_is_cancelled_and_denied() {
        let (mut asks, given) = asks(Duration::from_secs(30));
        asks.permission(permission_request(1));
        let due = asks.tasks.next().await.unwrap();
        assert_eq!(due, "tack_req_1");
        let cancel = asks.timed_out(&due).unwrap();
        assert_eq!(
            serde_json::to_value(&cancel).unwrap(),
            json!({"type": "control_cancel_request", "request_id": "tack_req_1"})
        );
        assert_eq!(
            taken(&given),
            vec![(
                AskId(1),
                denied(
                    "The can_use_tool callback did not answer within 30s; the tool call was denied"
                )
            )]
        );
        // The answer that comes too late is not taken.
        assert!(!asks.answer("tack_req_1", success("tack_req_1", json!({}))));
    }

    #[test]
    fn the_runtime_giving_up_cancels_the_request() {
        let (mut asks, given) = asks(DEFAULT_PERMISSION_TIMEOUT);
        asks.hook(hook_call(4));
        let cancel = asks.withdrawn(AskId(4)).unwrap();
        assert_eq!(
            serde_json::to_value(&cancel).unwrap(),
            json!({"type": "control_cancel_request", "request_id": "tack_req_4"})
        );
        assert_eq!(asks.withdrawn(AskId(4)), None);
        assert!(!asks.answer("tack_req_4", success("tack_req_4", json!({}))));
        assert_eq!(taken(&given), vec![]);
    }

    #[test]
    fn hook_answers_and_a_closed_input() {
        let (mut asks, given) = asks(DEFAULT_PERMISSION_TIMEOUT);
        let line = asks.hook(hook_call(1)).unwrap();
        assert_eq!(
            serde_json::to_value(&line).unwrap(),
            json!({"type": "control_request", "request_id": "tack_req_1", "request": {
                "subtype": "hook_callback", "callback_id": "hook_0", "input": {}, "tool_use_id": "toolu_1"}})
        );
        asks.answer(
            "tack_req_1",
            success("tack_req_1", json!({"decision": "block", "reason": "r"})),
        );
        asks.hook(hook_call(2));
        asks.permission(permission_request(3));
        asks.close();
        assert_eq!(asks.hook(hook_call(4)), None);
        let mut got = taken(&given);
        got[1..3].sort_by_key(|(ask, _)| *ask);
        assert_eq!(
            got,
            vec![
                (
                    AskId(1),
                    AskAnswer::Hook(HookAnswer::Output(
                        json!({"decision": "block", "reason": "r"})
                    ))
                ),
                (
                    AskId(2),
                    AskAnswer::Hook(HookAnswer::Failed(INPUT_CLOSED.to_owned()))
                ),
                (
                    AskId(3),
                    denied(&format!(
                        "The can_use_tool callback never answered: {INPUT_CLOSED}"
                    ))
                ),
                (
                    AskId(4),
                    AskAnswer::Hook(HookAnswer::Failed(INPUT_CLOSED.to_owned()))
                ),
            ]
        );
    }
}
