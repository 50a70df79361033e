//! A teammate in a process of its own (a session told
//! `CLAUDE_CODE_TEAM_NAME` and `CLAUDE_CODE_AGENT_NAME`, as the lead starts
//! its background teammates), doing what an in-process teammate's
//! idleness does (`super::teammate`): each time the session goes idle it
//! tells the lead (`idle_notification` in the lead's inbox) and runs the
//! `TeammateIdle` hooks (exit 2 or a block: the reason starts its next
//! turn; `continue: false`: it ends). A `shutdown_request` from the lead
//! lets a running turn end (at most [`SHUTDOWN_TURN_WAIT`]), is answered
//! with Claude Code's `shutdown_approved`, then the process ends as `tack
//! stop` ends it (SIGTERM to itself: a background session's `state.json`
//! ends `stopped`/`ended`). No polling: the session's own idle
//! signal ([`Arrivals::idle_watch`]) and the inbox watch drive it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tack_hooks::HookEvent;
use tack_tool::{Arrival, Arrivals};
use tokio_util::sync::CancellationToken;

use super::files::config::{self, TEAM_LEAD};
use super::files::inbox::{self, InboxMessage};
use super::files::structured::{self, IdleReason, ShutdownAnswer};
use super::session::{Member, Messaging};
use crate::hooks::SessionHooks;

/// Starts the member's side when `messaging` is a teammate's (not the
/// lead's): its idle notices and hooks, its answer to a shutdown.
pub(crate) fn start(messaging: &Messaging, arrivals: Arrivals, hooks: Option<Arc<SessionHooks>>) {
    let Some(member) = messaging.member().filter(|m| m.agent != TEAM_LEAD).cloned() else {
        return;
    };
    let lead = Arc::new(Lead(member.clone()));
    let turns = arrivals.clone();
    messaging.on_shutdown_request(Arc::new(move |from: String, value: Map<String, Value>| {
        if from != TEAM_LEAD {
            return;
        }
        let id = value.get("requestId").and_then(Value::as_str);
        let id = id.unwrap_or("").to_string();
        tokio::spawn(shut_down(Arc::clone(&lead), turns.clone(), id));
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

/// How long a shutdown waits for the running turn to end before it ends
/// the process anyway.
pub(crate) const SHUTDOWN_TURN_WAIT: Duration = Duration::from_secs(30);

/// Lets the running turn end (at most [`SHUTDOWN_TURN_WAIT`]), answers
/// the lead with Claude Code's `shutdown_approved`, then ends the process
/// as `tack stop` does.
async fn shut_down(lead: Arc<Lead>, arrivals: Arrivals, request_id: String) {
    // Taken before looking: a turn that ends in between still wakes it.
    let idle = arrivals.idle_watch();
    if arrivals.is_busy() {
        let _ = tokio::time::timeout(SHUTDOWN_TURN_WAIT, idle.next_idle()).await;
    }
    let pane = (config::read(&lead.0.team).ok().flatten())
        .and_then(|c| Some(c.member(&lead.0.agent)?.tmux_pane_id.clone()));
    let approved = ShutdownAnswer::Approved {
        pane_id: pane.as_deref(),
        backend_type: Some(super::process_teammate::BACKEND_TYPE),
    };
    let ts = inbox::now_iso();
    lead.tell(structured::shutdown_answer(
        &request_id,
        &lead.0.agent,
        &ts,
        approved,
    ));
    tack_sys::terminate_self();
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
