//! In-process teammates: the Agent tool's `name` (with agent teams on)
//! makes the sub-agent a member of the session's team. It joins the team's
//! `config.json` (colour, `tmuxPaneId: "in-process"`, `backendType:
//! "in-process"`), gets `SendMessage` and `ListAgents` signed with its own
//! name, and runs as a background agent whose turns do not end it: after
//! each one it tells the lead it is idle (an `idle_notification` in the
//! lead's inbox), runs the `TeammateIdle` hooks (exit 2 or a block: keep
//! working on the reason; `continue: false`: stop), then waits, without
//! polling, for its inbox; a message starts its next turn, a
//! `shutdown_request` ends it (answered with Claude Code's
//! `shutdown_approved`).
//!
//! A message that comes while it works reaches it mid-turn, as the lead's
//! own arrivals do: the teammate has an [`Arrivals`] queue of its own (its
//! tool env's), and its loop appends what is there to its next tool results
//! ([`tack_tool::Delivery::Soon`]). What is left when the turn ends starts
//! the next one. A `shutdown_request` always waits for its idleness.

use std::sync::Arc;

use futures::future::BoxFuture;
use tack_hooks::HookEvent;
use tack_tool::{Arrival, Arrivals, Tool};
use tokio::sync::{Mutex, mpsc};
use tokio_util::sync::CancellationToken;

pub(crate) use super::enlist::Joining;
use super::enlist::{Backing, Enlisted, enlist};
use super::files::config::{self, TEAM_LEAD};
use super::files::inbox::{self, InboxMessage};
use super::files::structured::{self, Body, IdleReason, ShutdownAnswer};
use super::list_agents::ListAgentsTool;
use super::plan_approval::{PlanApprovals, PlanLead};
use super::send_message::SendMessageTool;
use super::session::{Member, Messaging};
use super::watch;
use super::wrap;
use crate::event::{TeammateEvent, TeammateState};
use crate::hooks::SessionHooks;

/// What a turn's end gives the agent next: `Some(prompt)` runs another
/// turn, `None` ends it.
pub(crate) type FollowUp = Arc<dyn Fn() -> BoxFuture<'static, Option<String>> + Send + Sync>;

/// A teammate ready to run as a sub-agent.
pub(crate) struct Teammate {
    /// `<name>@<team>`.
    pub agent_id: String,
    /// Its `SendMessage`, `ListAgents` and Task tools, in place of the lead's.
    pub tools: Vec<Arc<dyn Tool>>,
    pub follow_up: FollowUp,
    /// Its own arrivals: messages that come while it works.
    pub arrivals: Arrivals,
    /// Its lead, when it starts in plan mode of its own and the lead
    /// approves its plan (its ExitPlanMode is added by the Agent tool).
    pub plan: Option<PlanLead>,
    /// Its plan file then.
    pub plan_file: Option<std::path::PathBuf>,
}

/// Adds the teammate to the lead's team (made on the first one) and builds
/// what it runs with.
pub(crate) fn join(
    lead: &Arc<Messaging>,
    joining: Joining<'_>,
    hooks: Option<Arc<SessionHooks>>,
) -> Result<Teammate, String> {
    let backing = Backing {
        backend_type: "in-process",
        tmux_pane_id: "in-process",
    };
    let Enlisted { team, name, color } = enlist(lead, &joining, backing)?;
    let name = name.as_str();
    let own_inbox = team.inbox(name).map_err(|e| e.to_string())?;
    let member = Member {
        team: team.clone(),
        agent: name.to_string(),
        color: Some(color),
    };
    let messaging = Arc::new(Messaging::teammate(
        lead.claude_dir().to_path_buf(),
        lead.session_id().to_string(),
        member.clone(),
    ));
    let mut tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(SendMessageTool::new(Arc::clone(&messaging))),
        Arc::new(ListAgentsTool::new(messaging)),
    ];
    let (task_tools, task_stop) = match joining.tasks {
        Some(t) => (t.tools, t.stop),
        None => (Vec::new(), Arc::default()),
    };
    tools.extend(task_tools);
    let plans = PlanApprovals::default();
    let plan = joining.plan_mode_required.then(|| PlanLead {
        team: team.clone(),
        agent: name.to_string(),
        color: member.color.clone(),
        approvals: plans.clone(),
    });
    let (tx, rx) = mpsc::unbounded_channel();
    let arrivals = Arrivals::default();
    let working = Arc::new(std::sync::Mutex::new(true));
    let route = Route {
        working: Arc::clone(&working),
        arrivals: arrivals.clone(),
        idle: tx,
        plans,
    };
    let watch = watch::watch_inbox(
        own_inbox,
        Arc::new(move |taken| route.hand_on(taken.unwrap_or_default())),
    )
    .map_err(|e| e.to_string())?;
    lead.joined(TeammateEvent {
        team_name: team.name().to_string(),
        name: name.to_string(),
        state: TeammateState::Joined,
        color: member.color.clone(),
        agent_type: joining.agent_type.to_string(),
        backend_type: "in-process".into(),
    });
    lead.set_state(name, TeammateState::Working);
    let idle = Arc::new(Idle {
        lead: Arc::clone(lead),
        member,
        hooks,
        task_stop,
        inbox: Mutex::new(rx),
        working,
        arrivals: arrivals.clone(),
        deferred: std::sync::Mutex::default(),
        _watch: AbortOnDrop(watch),
    });
    let follow_up: FollowUp = Arc::new(move || {
        let idle = Arc::clone(&idle);
        Box::pin(async move { idle.next().await })
    });
    Ok(Teammate {
        agent_id: config::agent_id(name, team.name()),
        tools,
        follow_up,
        arrivals,
        plan,
        plan_file: None,
    })
}

/// Where the inbox watch hands a teammate's messages: its arrivals while it
/// works (a `shutdown_request` aside), else the channel its idleness waits on.
struct Route {
    /// Held while handing on, so a turn's end sees every message either in
    /// the arrivals or in the channel.
    working: Arc<std::sync::Mutex<bool>>,
    arrivals: Arrivals,
    idle: mpsc::UnboundedSender<Vec<InboxMessage>>,
    /// Its open plan approval requests, which the lead's answers settle.
    plans: PlanApprovals,
}

impl Route {
    fn hand_on(&self, messages: Vec<InboxMessage>) {
        // An approval changes its mode before its model reads the message.
        for m in &messages {
            self.settles_a_plan(m);
        }
        if messages.is_empty() {
            return;
        }
        let working = self
            .working
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !*working {
            let _ = self.idle.send(messages);
            return;
        }
        let (later, now): (Vec<_>, Vec<_>) = messages.into_iter().partition(is_shutdown);
        for m in &now {
            self.arrivals.push(Arrival::soon(teammate_text(m)));
        }
        if !later.is_empty() {
            let _ = self.idle.send(later);
        }
    }
}

impl Route {
    /// Carries out `m` when it is the lead's answer to a plan the teammate
    /// sent; whether it was.
    fn settles_a_plan(&self, m: &InboxMessage) -> bool {
        match structured::body(&m.text) {
            Body::Structured { kind, value } if kind == "plan_approval_response" => {
                self.plans.answered(&m.from, &value)
            }
            _ => false,
        }
    }
}

fn is_shutdown(m: &InboxMessage) -> bool {
    matches!(structured::body(&m.text), Body::Structured { kind, .. } if kind == "shutdown_request")
}

fn teammate_text(m: &InboxMessage) -> String {
    wrap::teammate_message(&m.from, m.color.as_deref(), m.summary.as_deref(), &m.text)
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A teammate between turns.
struct Idle {
    /// The lead's messaging, which shows this teammate's state.
    lead: Arc<Messaging>,
    member: Member,
    hooks: Option<Arc<SessionHooks>>,
    /// A Task hook said `continue: false`: stop rather than wait.
    task_stop: Arc<std::sync::atomic::AtomicBool>,
    inbox: Mutex<mpsc::UnboundedReceiver<Vec<InboxMessage>>>,
    /// Whether it is in a turn (see [`Route`]).
    working: Arc<std::sync::Mutex<bool>>,
    arrivals: Arrivals,
    /// A `shutdown_request` that came in one batch after other messages:
    /// those are answered first, and it is carried out at the next idleness.
    deferred: std::sync::Mutex<Vec<InboxMessage>>,
    _watch: AbortOnDrop,
}

impl Idle {
    /// Its next prompt, or `None` when it stops.
    async fn next(&self) -> Option<String> {
        let name = &self.member.agent;
        self.lead.set_state(name, TeammateState::Idle);
        let next = self.wait().await;
        if next.is_some() {
            *self.working() = true;
        }
        let state = match next {
            Some(_) => TeammateState::Working,
            None => TeammateState::Stopped,
        };
        self.lead.set_state(name, state);
        next
    }

    async fn wait(&self) -> Option<String> {
        if self.task_stop.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        self.tell_lead(structured::idle_notification(
            &self.member.agent,
            &inbox::now_iso(),
            IdleReason::Available,
        ));
        if let Some(hooks) = self.hooks.as_ref().filter(|h| h.has("TeammateIdle")) {
            let event = HookEvent::TeammateIdle {
                teammate_name: self.member.agent.clone(),
                team_name: self.member.team.name().to_string(),
            };
            let outcome = hooks.run(&event, &CancellationToken::new()).await;
            if !outcome.should_continue() {
                return None;
            }
            if let Some(reason) = outcome.blocked() {
                return Some(reason);
            }
        }
        // What came too late for the turn's last request starts the next.
        let left = self.stop_working();
        if !left.is_empty() {
            return Some(left.join("\n\n"));
        }
        let deferred = std::mem::take(
            &mut *self
                .deferred
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        let messages = match deferred.is_empty() {
            true => self.inbox.lock().await.recv().await?,
            false => deferred,
        };
        let mut texts = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            if let Body::Structured { kind, value } = structured::body(&m.text)
                && kind == "shutdown_request"
            {
                if !texts.is_empty() {
                    // What came before the request is answered first.
                    *self
                        .deferred
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) =
                        messages[i..].to_vec();
                    return Some(texts.join("\n\n"));
                }
                let id = value
                    .get("requestId")
                    .and_then(|v| v.as_str())
                    .unwrap_or("");
                let approved = ShutdownAnswer::Approved {
                    pane_id: Some("in-process"),
                    backend_type: Some("in-process"),
                };
                let from = &self.member.agent;
                let ts = inbox::now_iso();
                self.tell_lead(structured::shutdown_answer(id, from, &ts, approved));
                return None;
            }
            texts.push(teammate_text(m));
        }
        Some(texts.join("\n\n"))
    }

    fn working(&self) -> std::sync::MutexGuard<'_, bool> {
        self.working
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks it idle (messages now go to the channel); what its arrivals
    /// still held, taken.
    fn stop_working(&self) -> Vec<String> {
        let mut working = self.working();
        *working = false;
        let left = self.arrivals.take_all();
        left.into_iter().map(|a| a.text).collect()
    }

    /// Appends a protocol message to the lead's inbox (best effort: a lead
    /// that cannot be told still gets the teammate's messages).
    fn tell_lead(&self, text: String) {
        let Ok(path) = self.member.team.inbox(TEAM_LEAD) else {
            return;
        };
        let mut message = InboxMessage::new(&self.member.agent, text, None);
        message.color = self.member.color.clone();
        let _ = inbox::append(&path, message);
    }
}

/// The Agent tool's answer for a teammate started in the background.
pub(crate) fn spawned(agent_id: &str, started: tack_tool::ToolOutput) -> tack_tool::ToolOutput {
    spawned_with(agent_id, started, "")
}

/// [`spawned`], `more` ending its text.
pub(crate) fn spawned_with(
    agent_id: &str,
    started: tack_tool::ToolOutput,
    more: &str,
) -> tack_tool::ToolOutput {
    let (name, team) = agent_id.split_once('@').unwrap_or((agent_id, ""));
    let mut structured = started.structured.clone().unwrap_or_default();
    structured["status"] = serde_json::json!("teammate_spawned");
    structured["teammate_id"] = serde_json::json!(agent_id);
    structured["name"] = serde_json::json!(name);
    structured["team_name"] = serde_json::json!(team);
    tack_tool::ToolOutput::text(format!(
        "Spawned successfully.\nagent_id: {agent_id}\nname: {name}\nteam_name: {team}\nThe agent is now running and will receive instructions via mailbox: message it with SendMessage (to: \"{name}\"). Its messages and idle notifications reach you on their own.{more}"
    ))
    .with_structured(structured)
}
