//! Plan approval for teammates (Claude Code's `planModeRequired`, the Agent
//! tool's `mode: "plan"`): a teammate in plan mode that calls ExitPlanMode
//! asks no person. It writes Claude Code's
//! `{"type":"plan_approval_request","from","timestamp","planFilePath",
//! "planContent","requestId"}` to the lead's inbox and the call returns at
//! once, as Claude Code's does. The lead's
//! `{"type":"plan_approval_response","requestId","approved","feedback"?,
//! "timestamp","permissionMode"?}` arrives later in the teammate's inbox:
//! when its inbox watch reads an approving one, the teammate leaves plan
//! mode right then (Claude Code's inbox poller does the same), and the
//! message goes on to its model, a refusal's feedback with it. Only an
//! answer from `team-lead` to a request the teammate made and has not had
//! answered counts.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value, json};
use tack_permissions::PermissionMode;

use super::files::config::{self, TEAM_LEAD};
use super::files::inbox::{self, InboxMessage};
use super::files::place::TeamDir;
use crate::gate::relay::{OnVerdict, PlanApprover};

pub use crate::gate::relay::PlanVerdict as Verdict;

/// A teammate's open plan approval requests, by request id: what to do
/// with the lead's answer.
#[derive(Clone, Default)]
pub struct PlanApprovals(Arc<Mutex<HashMap<String, OnVerdict>>>);

/// A teammate whose plan its lead approves: who it is and its open requests.
#[derive(Clone)]
pub struct PlanLead {
    /// The teammate's team, name and colour.
    pub team: TeamDir,
    pub agent: String,
    pub color: Option<String>,
    pub approvals: PlanApprovals,
}

impl PlanApprovals {
    /// Carries out the lead's answer when `value` (a
    /// `plan_approval_response` from `from`) answers an open request;
    /// whether it did. The message itself is the model's either way.
    pub fn answered(&self, from: &str, value: &Map<String, Value>) -> bool {
        let Some((id, verdict)) = verdict_of(value).filter(|_| from == TEAM_LEAD) else {
            return false;
        };
        let waiting = self.pending().remove(&id);
        match waiting {
            Some(on_verdict) => {
                on_verdict(verdict);
                true
            }
            None => false,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<String, OnVerdict>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl PlanLead {
    /// Sends the plan to the lead; `on_verdict` runs when its answer is
    /// read. The request's id.
    pub fn submit(&self, plan: &str, file: &Path, on_verdict: OnVerdict) -> Result<String, String> {
        let m = self;
        let id = format!(
            "plan_approval-{}@{}",
            config::now_ms(),
            config::agent_id(&m.agent, m.team.name())
        );
        self.approvals.pending().insert(id.clone(), on_verdict);
        let request = request(&m.agent, file, plan, &id, &inbox::now_iso());
        let mut message = InboxMessage::new(&m.agent, request, None);
        message.color = m.color.clone();
        let sent = (m.team.inbox(TEAM_LEAD).map_err(|e| e.to_string()))
            .and_then(|path| inbox::append(&path, message).map_err(|e| e.to_string()));
        match sent {
            Ok(()) => Ok(id),
            Err(e) => {
                self.approvals.pending().remove(&id);
                Err(format!("The plan could not be sent to the team lead: {e}"))
            }
        }
    }
}

impl PlanApprover for PlanLead {
    fn submit(&self, plan: &str, file: &Path, on_verdict: OnVerdict) -> Result<String, String> {
        PlanLead::submit(self, plan, file, on_verdict)
    }
}

/// Claude Code's `plan_approval_request`.
pub fn request(from: &str, file: &Path, plan: &str, request_id: &str, timestamp: &str) -> String {
    json!({
        "type": "plan_approval_request",
        "from": from,
        "timestamp": timestamp,
        "planFilePath": file.display().to_string(),
        "planContent": plan,
        "requestId": request_id,
    })
    .to_string()
}

/// Claude Code's `plan_approval_response` from the lead's SendMessage
/// input (`request_id`, `approve`, `feedback`, optionally tack's
/// `permission_mode`; Claude Code's own keys are read too). An approval
/// without a mode named carries `lead_mode`, the lead's own (plan read as
/// default), as Claude Code's SendMessage sends it. `None` without a
/// request id.
pub fn response(
    input: &Map<String, Value>,
    timestamp: &str,
    lead_mode: Option<&str>,
) -> Option<String> {
    let field = |a: &str, b: &str| input.get(a).or(input.get(b));
    let id = field("request_id", "requestId")?.as_str()?;
    let approved = field("approve", "approved").and_then(Value::as_bool) == Some(true);
    let mut value =
        json!({"type": "plan_approval_response", "requestId": id, "approved": approved});
    let feedback = ["feedback", "content", "reason"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|f| !f.is_empty());
    if let Some(feedback) = feedback {
        value["feedback"] = json!(feedback);
    }
    value["timestamp"] = json!(timestamp);
    let named = field("permission_mode", "permissionMode").and_then(Value::as_str);
    let lead = lead_mode.map(|m| if m == "plan" { "default" } else { m });
    if let Some(mode) = named.or(lead).filter(|_| approved) {
        value["permissionMode"] = json!(mode);
    }
    Some(value.to_string())
}

/// The request id and verdict of a `plan_approval_response`.
fn verdict_of(value: &Map<String, Value>) -> Option<(String, Verdict)> {
    let field = |a: &str, b: &str| value.get(a).or(value.get(b));
    let id = field("requestId", "request_id")?.as_str()?.to_string();
    let approved = field("approved", "approve").and_then(Value::as_bool) == Some(true);
    let feedback = value.get("feedback").and_then(Value::as_str);
    let mode = field("permissionMode", "permission_mode")
        .and_then(Value::as_str)
        .and_then(|m| m.parse::<PermissionMode>().ok())
        .map(|m| match m {
            PermissionMode::Plan => PermissionMode::Default,
            other => other,
        });
    let verdict = Verdict {
        approved,
        feedback: feedback.map(str::to_string),
        permission_mode: mode.filter(|_| approved),
    };
    Some((id, verdict))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn the_leads_send_message_becomes_claude_codes_response() {
        let refused = response(
            &object(
                json!({"type": "plan_approval_response", "request_id": "plan_approval-1@a@t",
                "approve": false, "feedback": "add tests"}),
            ),
            "2026-02-07T15:20:49.498Z",
            Some("acceptEdits"),
        );
        assert_eq!(
            refused.as_deref(),
            Some(
                r#"{"type":"plan_approval_response","requestId":"plan_approval-1@a@t","approved":false,"feedback":"add tests","timestamp":"2026-02-07T15:20:49.498Z"}"#
            )
        );
        let approved = response(
            &object(json!({"request_id": "r", "approve": true, "permission_mode": "acceptEdits"})),
            "t",
            Some("bypassPermissions"),
        );
        assert_eq!(
            approved.as_deref(),
            Some(
                r#"{"type":"plan_approval_response","requestId":"r","approved":true,"timestamp":"t","permissionMode":"acceptEdits"}"#
            )
        );
        assert_eq!(response(&object(json!({"approve": true})), "t", None), None);
        // Without a mode named, the lead's own goes (plan read as default).
        let leads = |mode| {
            response(
                &object(json!({"request_id": "r", "approve": true})),
                "t",
                mode,
            )
        };
        assert_eq!(
            leads(Some("acceptEdits")).as_deref(),
            Some(
                r#"{"type":"plan_approval_response","requestId":"r","approved":true,"timestamp":"t","permissionMode":"acceptEdits"}"#
            )
        );
        assert_eq!(
            leads(Some("plan")).as_deref(),
            Some(
                r#"{"type":"plan_approval_response","requestId":"r","approved":true,"timestamp":"t","permissionMode":"default"}"#
            )
        );
        assert_eq!(
            leads(None).as_deref(),
            Some(
                r#"{"type":"plan_approval_response","requestId":"r","approved":true,"timestamp":"t"}"#
            )
        );
    }

    #[test]
    fn only_the_leads_answer_to_an_open_request_settles_it() {
        let approvals = PlanApprovals::default();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        approvals
            .pending()
            .insert("r".into(), Box::new(move |v| drop(tx.send(v))));
        let answer = object(json!({"type": "plan_approval_response", "requestId": "r",
            "approved": true, "timestamp": "t", "permissionMode": "plan"}));
        assert!(!approvals.answered("mallory", &answer));
        assert!(!approvals.answered(TEAM_LEAD, &object(json!({"requestId": "other"}))));
        assert!(rx.try_recv().is_err());
        assert!(approvals.answered(TEAM_LEAD, &answer));
        assert_eq!(
            rx.try_recv().ok(),
            Some(Verdict {
                approved: true,
                feedback: None,
                permission_mode: Some(PermissionMode::Default),
            })
        );
        // Settled once: a second answer finds nothing open.
        assert!(!approvals.answered(TEAM_LEAD, &answer));
    }
}
