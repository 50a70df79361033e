//! A teammate in a process of its own (a session told
//! `CLAUDE_CODE_TEAM_NAME` and `CLAUDE_CODE_AGENT_NAME`, as the lead starts
//! its background teammates), doing what an in-process teammate's
//! idleness does (`super::teammate`): each time the session goes idle it
//! tells the lead (`idle_notification` in the lead's inbox) and runs the
//! `TeammateIdle` hooks (exit 2 or a block: the reason starts its next
//! turn; `continue: false`: it ends). A `shutdown_request` from the lead
//! is answered with an approving `shutdown_response`, then the process
//! ends as `tack stop` ends it (SIGTERM to itself: a background session's
//! `state.json` ends `stopped`/`ended`). No polling: the session's own idle
//! signal ([`Arrivals::idle_watch`]) and the inbox watch drive it.

use std::sync::Arc;

use serde_json::{Map, Value};
use tack_hooks::HookEvent;
use tack_tool::{Arrival, Arrivals};
use tokio_util::sync::CancellationToken;

use super::files::config::TEAM_LEAD;
use super::files::inbox::{self, InboxMessage};
use super::files::structured::{self, IdleReason};
use super::session::{Member, Messaging};
use crate::hooks::SessionHooks;

/// Starts the member's side when `messaging` is a teammate's (not the
/// lead's): its idle notices and hooks, its answer to a shutdown.
pub(crate) fn start(messaging: &Messaging, arrivals: Arrivals, hooks: Option<Arc<SessionHooks>>) {
    let Some(member) = messaging.member().filter(|m| m.agent != TEAM_LEAD).cloned() else {
        return;
    };
    let lead = Lead(member.clone());
    messaging.on_shutdown_request(Arc::new(move |from: String, value: Map<String, Value>| {
        if from != TEAM_LEAD {
            return;
        }
        let id = value.get("requestId").and_then(Value::as_str);
        lead.tell(structured::shutdown_response(id.unwrap_or(""), true, None));
        tack_sys::terminate_self();
    }));
    let mut watch = arrivals.idle_watch();
    tokio::spawn(async move {
        let lead = Lead(member);
        loop {
            if !watch.next_idle().await {
                return;
            }
            // Taken before anything here can start a turn.
            watch = arrivals.idle_watch();
            let notice = structured::idle_notification(
                &lead.0.agent,
                &inbox::now_iso(),
                IdleReason::Available,
            );
            lead.tell(notice);
            let Some(hooks) = hooks.as_ref().filter(|h| h.has("TeammateIdle")) else {
                continue;
            };
            let event = HookEvent::TeammateIdle {
                teammate_name: lead.0.agent.clone(),
                team_name: lead.0.team.name().to_string(),
            };
            let outcome = hooks.run(&event, &CancellationToken::new()).await;
            if !outcome.should_continue() {
                tack_sys::terminate_self();
                return;
            }
            if let Some(reason) = outcome.blocked() {
                arrivals.push(Arrival::soon(reason));
            }
        }
    });
}

/// The member's way to its lead's inbox.
struct Lead(Member);

impl Lead {
    /// Appends a protocol message (best effort, as an in-process
    /// teammate's).
    fn tell(&self, text: String) {
        let Ok(path) = self.0.team.inbox(TEAM_LEAD) else {
            return;
        };
        let mut message = InboxMessage::new(&self.0.agent, text, None);
        message.color = self.0.color.clone();
        let _ = inbox::append(&path, message);
    }
}
