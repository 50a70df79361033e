//! A teammate's permission questions, asked through its lead (Claude
//! Code's `permission_request` / `permission_response` inbox messages;
//! their fields are **unconfirmed**, see docs/teams.md):
//!
//! - the teammate (a session told its team and name, not the lead) writes
//!   `{"type":"permission_request","request_id","agent_id","tool_name",
//!   "tool_use_id","description","input","permission_suggestions"}` to
//!   the lead's inbox and waits, without polling, for the answer in its own
//!   inbox: `{"type":"permission_response","request_id","subtype":"success",
//!   "response":{"updated_input","permission_updates"}}` allows (applying
//!   the rule updates, the lead's "always allow", as the teammate's own
//!   front end's would be), `{…,"subtype":"error","error"}` refuses. Both
//!   lists hold the SDKs' `PermissionUpdate` objects. A lead whose session is not live, or no answer within the
//!   timeout, refuses. Only a response from `team-lead` to a request this
//!   teammate made counts.
//! - the lead turns a request into its own front end's ask
//!   ([`crate::gate::Gate::ask_for_teammate`]) and writes the answer back
//!   (`super::events::lead_answers`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tack_protocol::control::PermissionUpdate;
use tokio::sync::oneshot;

use super::files::config::{self, TEAM_LEAD};
use super::files::inbox::{self, InboxMessage};
use super::files::place::TeamDir;
use super::files::sessions;
use super::plan_approval::{PlanApprovals, PlanLead};
use crate::gate::relay::{AskRelay, PlanApprover, RelayedAsk};
use crate::protocol::ask::PermissionAnswer;

/// How long a teammate waits for its lead by default (as long as the SDKs'
/// permission callback may take); `TACK_TEAMMATE_PERMISSION_TIMEOUT_MS`
/// changes it.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// A lead's handler of its teammates' requests: who asks, and the request.
pub type OnRequest = Arc<dyn Fn(String, Map<String, Value>) + Send + Sync>;

/// A teammate's side: its open requests.
#[derive(Clone)]
pub struct TeammateRelay(Arc<Inner>);

struct Inner {
    claude_dir: PathBuf,
    /// The teammate's team, name and colour.
    team: TeamDir,
    agent: String,
    color: Option<String>,
    timeout: Duration,
    pending: Mutex<HashMap<String, oneshot::Sender<PermissionAnswer>>>,
    /// Its open plan approval requests.
    plans: PlanApprovals,
}

pub(crate) fn refuse(message: String) -> PermissionAnswer {
    PermissionAnswer::Deny {
        message,
        interrupt: false,
    }
}

impl TeammateRelay {
    pub fn new(
        claude_dir: PathBuf,
        (team, agent, color): (TeamDir, String, Option<String>),
        timeout: Duration,
    ) -> TeammateRelay {
        TeammateRelay(Arc::new(Inner {
            claude_dir,
            team,
            agent,
            color,
            timeout,
            pending: Mutex::default(),
            plans: PlanApprovals::default(),
        }))
    }

    /// Settles the request a `permission_response` from `from` answers;
    /// anything else is ignored.
    pub fn answered(&self, from: &str, value: &Map<String, Value>) {
        let id = value.get("request_id").and_then(Value::as_str);
        let Some(id) = id.filter(|_| from == TEAM_LEAD) else {
            return;
        };
        let waiting = (self.0.pending.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        if let Some(tx) = waiting {
            let _ = tx.send(answer_of(value));
        }
    }

    /// Settles the plan approval request a `plan_approval_response`
    /// answers; whether it did.
    pub fn plan_answered(&self, from: &str, value: &Map<String, Value>) -> bool {
        self.0.plans.answered(from, value)
    }

    /// Whether the lead's session answers on its socket.
    fn lead_live(&self) -> bool {
        let Ok(Some(team)) = config::read(&self.0.team) else {
            return false;
        };
        let (entries, _) = sessions::list(&self.0.claude_dir);
        entries
            .iter()
            .filter(|e| !team.lead_session_id.is_empty() && e.session_id == team.lead_session_id)
            .filter_map(|e| e.messaging_socket_path.as_ref())
            .any(|s| std::os::unix::net::UnixStream::connect(s).is_ok())
    }

    async fn ask_lead(self, ask: RelayedAsk) -> PermissionAnswer {
        if !self.lead_live() {
            return refuse(format!(
                "{} cannot ask its lead: the lead's session is not running",
                self.0.agent
            ));
        }
        let id = format!(
            "perm-{}-{}",
            config::now_ms(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let (tx, rx) = oneshot::channel();
        (self.0.pending.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), tx);
        let sent = self.send(&id, &ask);
        let answer = match sent {
            Err(e) => refuse(format!("The lead could not be asked: {e}")),
            Ok(()) => match tokio::time::timeout(self.0.timeout, rx).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(_)) | Err(_) => refuse(format!(
                    "The lead did not answer within {} s",
                    self.0.timeout.as_secs()
                )),
            },
        };
        (self.0.pending.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        answer
    }

    fn send(&self, id: &str, ask: &RelayedAsk) -> Result<(), String> {
        let me = &self.0;
        let text = json!({
            "type": "permission_request", "request_id": id, "agent_id": me.agent,
            "tool_name": ask.tool_name, "tool_use_id": ask.tool_use_id,
            "description": ask.reason, "input": ask.input,
            "permission_suggestions": (ask.suggestions.iter())
                .map(|rule| PermissionUpdate::allow_rule(rule))
                .collect::<Vec<_>>(),
        });
        let path = me.team.inbox(TEAM_LEAD).map_err(|e| e.to_string())?;
        let mut message = InboxMessage::new(&me.agent, text.to_string(), None);
        message.color = me.color.clone();
        inbox::append(&path, message).map_err(|e| e.to_string())
    }
}

impl AskRelay for TeammateRelay {
    fn ask(&self, ask: RelayedAsk) -> BoxFuture<'static, PermissionAnswer> {
        Box::pin(self.clone().ask_lead(ask))
    }

    fn plan_lead(&self) -> Option<Arc<dyn PlanApprover>> {
        let me = &self.0;
        let team = config::read(&me.team).ok().flatten()?;
        let required = team.member(&me.agent)?.plan_mode_required == Some(true);
        let lead = PlanLead {
            team: me.team.clone(),
            agent: me.agent.clone(),
            color: me.color.clone(),
            approvals: me.plans.clone(),
        };
        required.then(|| Arc::new(lead) as Arc<dyn PlanApprover>)
    }
}

/// What a `permission_response` says: allow only on `subtype: "success"`.
fn answer_of(value: &Map<String, Value>) -> PermissionAnswer {
    match value.get("subtype").and_then(Value::as_str) {
        Some("success") => PermissionAnswer::Allow {
            updated_input: value
                .get("response")
                .and_then(|r| r.get("updated_input"))
                .filter(|v| v.is_object())
                .cloned(),
            updates: updates_in(value.get("response"), "permission_updates"),
        },
        _ => refuse(
            value
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("The lead refused")
                .to_string(),
        ),
    }
}

/// The `PermissionUpdate`s (the SDKs' shape) in `value[key]`; one that is
/// not is skipped: a lead's answer grants nothing it does not spell out.
fn updates_in(value: Option<&Value>, key: &str) -> Vec<PermissionUpdate> {
    let listed = value.and_then(|v| v.get(key)).and_then(Value::as_array);
    (listed.into_iter().flatten())
        .filter_map(|u| serde_json::from_value(u.clone()).ok())
        .collect()
}

/// The rules a `permission_request`'s `permission_suggestions` would add
/// (`Bash(npm test:*)`), for the lead's front end to offer.
pub(crate) fn suggestions_of(request: &Map<String, Value>) -> Vec<String> {
    let rules = |u: PermissionUpdate| match u {
        PermissionUpdate::AddRules(r) => r.rules,
        _ => Vec::new(),
    };
    let request = Value::Object(request.clone());
    (updates_in(Some(&request), "permission_suggestions").into_iter())
        .flat_map(rules)
        .map(|r| match r.rule_content {
            Some(content) => format!("{}({content})", r.tool_name),
            None => r.tool_name,
        })
        .collect()
}

/// The `permission_response` for `answer`.
pub(crate) fn response_of(request_id: &str, answer: PermissionAnswer) -> Value {
    match answer {
        PermissionAnswer::Allow {
            updated_input,
            updates,
        } => json!({
            "type": "permission_response", "request_id": request_id, "subtype": "success",
            "response": {"updated_input": updated_input, "permission_updates": updates},
        }),
        PermissionAnswer::Deny { message, .. } => json!({
            "type": "permission_response", "request_id": request_id, "subtype": "error",
            "error": message,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_success_response_allows() {
        let value = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(
            answer_of(&value(
                json!({"type": "permission_response", "request_id": "p",
                "subtype": "success", "response": {"updated_input": {"command": "ls"}}})
            )),
            PermissionAnswer::Allow {
                updated_input: Some(json!({"command": "ls"})),
                updates: Vec::new()
            }
        );
        assert_eq!(
            answer_of(&value(
                json!({"type": "permission_response", "request_id": "p",
                "subtype": "error", "error": "no"})
            )),
            refuse("no".into())
        );
        assert_eq!(
            answer_of(&value(
                json!({"type": "permission_response", "approve": true})
            )),
            refuse("The lead refused".into())
        );
        assert_eq!(
            response_of("p", refuse("no".into())),
            json!({"type": "permission_response", "request_id": "p", "subtype": "error", "error": "no"})
        );
    }

    #[test]
    fn rule_updates_go_back_with_an_allow_and_suggestions_with_a_request() {
        let always = PermissionUpdate::allow_rule("Bash(touch one)");
        let allow = PermissionAnswer::Allow {
            updated_input: Some(json!({"command": "touch one"})),
            updates: vec![always.clone()],
        };
        let response = response_of("p", allow.clone());
        assert_eq!(
            response,
            json!({"type": "permission_response", "request_id": "p", "subtype": "success",
                "response": {"updated_input": {"command": "touch one"},
                    "permission_updates": [{"type": "addRules",
                        "rules": [{"toolName": "Bash", "ruleContent": "touch one"}],
                        "behavior": "allow", "destination": "localSettings"}]}})
        );
        assert_eq!(answer_of(response.as_object().unwrap()), allow);
        // An update that is no PermissionUpdate grants nothing.
        let odd = json!({"subtype": "success", "response": {"permission_updates": [
            {"type": "grantEverything"}, always]}});
        assert_eq!(
            answer_of(odd.as_object().unwrap()),
            PermissionAnswer::Allow {
                updated_input: None,
                updates: vec![PermissionUpdate::allow_rule("Bash(touch one)")]
            }
        );
        let request = json!({"type": "permission_request", "permission_suggestions": [
            PermissionUpdate::allow_rule("Bash(npm test:*)"), PermissionUpdate::allow_rule("Read")]});
        assert_eq!(
            suggestions_of(request.as_object().unwrap()),
            ["Bash(npm test:*)", "Read"]
        );
    }
}
