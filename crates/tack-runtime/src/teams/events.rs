//! A session's team part wired into the session: its teammates' states
//! become session events ([`RuntimeEvent::Teammate`]), its teammates'
//! permission questions its own asks, and (a teammate) its own questions go
//! to its lead (`super::relay`).

use std::sync::{Arc, Weak};

use serde_json::{Map, Value, json};
use tack_tool::AgentIdentity;

use super::files::config::{self, TEAM_LEAD};
use super::files::inbox::{self, InboxMessage};
use super::relay::{OnRequest, refuse, response_of, suggestions_of};
use super::session::{Messaging, OnTeammate};
use crate::emit::Emitter;
use crate::event::RuntimeEvent;
use crate::gate::Gate;
use crate::gate::relay::RelayedAsk;

/// Sends each change to the session's event stream, without keeping the
/// stream open (the session's messaging outlives no front end).
pub(crate) fn to_stream(emit: &Emitter) -> OnTeammate {
    let tx = emit.weak_sender();
    Arc::new(move |teammate| {
        if let Some(tx) = tx.upgrade() {
            let _ = tx.send(RuntimeEvent::Teammate(Box::new(teammate)));
        }
    })
}

/// The lead's side: each request becomes an ask of the lead's gate, its
/// answer a `permission_response` in the asker's inbox.
pub(crate) fn lead_answers(gate: Weak<Gate>, lead: &Messaging) -> Option<OnRequest> {
    let team = lead.member()?.team.clone();
    Some(Arc::new(move |from: String, value: Map<String, Value>| {
        let (gate, team) = (gate.clone(), team.clone());
        tokio::spawn(async move {
            let str_of = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or_default();
            let request_id = str_of("request_id").to_string();
            let ask = RelayedAsk {
                tool_name: str_of("tool_name").to_string(),
                input: value.get("input").cloned().unwrap_or_else(|| json!({})),
                tool_use_id: str_of("tool_use_id").to_string(),
                reason: str_of("description").to_string(),
                suggestions: suggestions_of(&value),
            };
            let agent_type = config::read(&team)
                .ok()
                .flatten()
                .and_then(|c| c.member(&from).map(|m| m.agent_type.clone()))
                .unwrap_or_default();
            let who = AgentIdentity {
                id: config::agent_id(&from, team.name()),
                agent_type,
            };
            let answer = match gate.upgrade() {
                Some(gate) => gate.ask_for_teammate(who, ask).await,
                None => refuse("the lead's session is ending".into()),
            };
            let Ok(path) = team.inbox(&from) else {
                return;
            };
            let text = response_of(&request_id, answer).to_string();
            let _ = inbox::append(&path, InboxMessage::new(TEAM_LEAD, text, None));
        });
    }))
}

/// Wires a session's team part into its gate and event stream: its
/// teammates' states become events, its teammates' questions its own asks,
/// and (a teammate) its own questions go to its lead.
pub(crate) fn wire(messaging: &Messaging, emit: &Emitter, gate: &Arc<Gate>) {
    messaging.on_teammate(to_stream(emit));
    if let Some(on) = lead_answers(Arc::downgrade(gate), messaging) {
        messaging.on_permission_request(on);
    }
    if let Some(relay) = messaging.relay() {
        gate.set_relay(Arc::new(relay));
    }
}
