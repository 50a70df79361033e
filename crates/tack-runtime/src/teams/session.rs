//! One session's part in teams and messages between sessions: who it is
//! (its team and agent name, when it is in a team), its registry entry and
//! messaging socket (so other sessions on the machine find and reach it),
//! and the watch on its inbox. Whatever arrives is handed to `deliver` as
//! the text the model reads ([`super::wrap`]). Everything it registered is
//! removed when it drops.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::task::JoinHandle;

use super::files::TeamFileError;
use super::files::config::TEAM_LEAD;
use super::files::inbox::InboxMessage;
use super::files::place::TeamDir;
use super::files::sessions::{self, SessionEntry};
use super::files::structured::{self, Body};
use super::idle_notice::Notifier;
use super::peer::{self, Incoming};
use super::relay::{OnRequest, TeammateRelay};
use super::watch::{self, OnMessages};
use super::wrap;
use crate::event::{TeammateEvent, TeammateState};

/// Where a wrapped message goes (the session's arrivals).
pub type DeliverText = Arc<dyn Fn(String) + Send + Sync>;

/// The session's place in a team.
#[derive(Debug, Clone)]
pub struct Member {
    pub team: TeamDir,
    /// Its agent name (`team-lead` for the lead).
    pub agent: String,
    pub color: Option<String>,
}

/// What a session needs to take part.
pub struct MessagingOptions {
    /// Claude Code's config dir (`$CLAUDE_CONFIG_DIR`, `~/.claude`).
    pub claude_dir: PathBuf,
    pub session_id: String,
    pub cwd: PathBuf,
    /// The session's name (`--name`), shown to other sessions.
    pub name: Option<String>,
    /// `print` or `interactive`.
    pub kind: &'static str,
    /// Its team, when it joined one.
    pub member: Option<Member>,
    /// How long a teammate waits for its lead's answer to a permission
    /// question.
    pub permission_timeout: std::time::Duration,
    /// The session's arrivals, which say when it goes idle
    /// (`notify_when_idle`).
    pub arrivals: tack_tool::Arrivals,
}

/// A session's messaging, live until dropped.
pub struct Messaging {
    claude_dir: PathBuf,
    session_id: String,
    member: Option<Member>,
    socket: Option<PathBuf>,
    registered: Vec<PathBuf>,
    tasks: Vec<JoinHandle<()>>,
    /// Each teammate this session leads, by name, as last seen.
    states: std::sync::Mutex<std::collections::BTreeMap<String, TeammateEvent>>,
    /// Told each change of `states`.
    on_teammate: std::sync::OnceLock<OnTeammate>,
    /// Where protocol messages that are not for the model go.
    routes: Arc<Routes>,
}

/// The inbox's protocol messages for the session itself.
#[derive(Default)]
struct Routes {
    /// A teammate's questions to its lead, settled by `permission_response`.
    relay: Option<TeammateRelay>,
    /// A lead's answerer of its teammates' `permission_request`s.
    on_request: std::sync::OnceLock<OnRequest>,
    /// A teammate process's answer to its lead's `shutdown_request`.
    on_shutdown: std::sync::OnceLock<OnRequest>,
}

/// Where the lead's teammates' states go (the session's event stream).
pub type OnTeammate = Arc<dyn Fn(TeammateEvent) + Send + Sync>;

impl Messaging {
    /// Registers the session, listens on its socket and watches its inbox.
    /// Must run inside the tokio runtime. A part that cannot start is left
    /// out and said in the returned warnings.
    pub fn start(options: MessagingOptions, deliver: DeliverText) -> (Messaging, Vec<String>) {
        let mut warnings = Vec::new();
        let mut messaging = Messaging {
            claude_dir: options.claude_dir.clone(),
            session_id: options.session_id.clone(),
            member: options.member.clone(),
            socket: None,
            registered: Vec::new(),
            tasks: Vec::new(),
            states: Default::default(),
            on_teammate: Default::default(),
            routes: Arc::new(Routes {
                relay: (options.member.as_ref())
                    .filter(|m| m.agent != TEAM_LEAD)
                    .map(|m| {
                        let who = (m.team.clone(), m.agent.clone(), m.color.clone());
                        let dir = options.claude_dir.clone();
                        TeammateRelay::new(dir, who, options.permission_timeout)
                    }),
                on_request: Default::default(),
                on_shutdown: Default::default(),
            }),
        };
        if let Err(e) = messaging.listen(&options, &deliver) {
            warnings.push(format!("messages from other sessions are off: {e}"));
        }
        if let Some(member) = &options.member
            && let Err(e) = messaging.watch(member, &deliver)
        {
            warnings.push(format!("the inbox of {} is not watched: {e}", member.agent));
        }
        (messaging, warnings)
    }

    /// A teammate's messaging inside the lead's process: its identity in
    /// the team, no socket or registry entry of its own.
    pub fn teammate(claude_dir: PathBuf, session_id: String, member: Member) -> Messaging {
        Messaging {
            claude_dir,
            session_id,
            member: Some(member),
            socket: None,
            registered: Vec::new(),
            tasks: Vec::new(),
            states: Default::default(),
            on_teammate: Default::default(),
            routes: Default::default(),
        }
    }

    fn listen(&mut self, options: &MessagingOptions, deliver: &DeliverText) -> Result<(), String> {
        let pid = std::process::id();
        let socket = socket_path(&options.claude_dir, pid);
        let token = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let deliver = Arc::clone(deliver);
        let notifier = Notifier {
            claude_dir: options.claude_dir.clone(),
            address: peer::address(&socket),
            name: options
                .name
                .clone()
                .unwrap_or_else(|| options.session_id.clone()),
        };
        let arrivals = options.arrivals.clone();
        let on_peer = Arc::new(move |m: Incoming| {
            // Taken before the message can wake the session: the notice
            // follows the turn that reads it.
            let watch = m.notify_when_idle.then(|| arrivals.idle_watch());
            deliver(wrap::cross_session_message(&m.from, &m.text));
            if let Some(watch) = watch {
                notifier.notify_when_idle(watch, &m.from);
            }
        });
        let task = peer::listen(&socket, token.clone(), on_peer).map_err(|e| e.to_string())?;
        self.tasks.push(task);
        self.registered.push(socket.clone());
        let entry = SessionEntry {
            pid,
            session_id: options.session_id.clone(),
            cwd: options.cwd.display().to_string(),
            started_at: super::files::config::now_ms(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            peer_protocol: Some(1),
            kind: Some(options.kind.to_string()),
            entrypoint: Some("cli".to_string()),
            messaging_socket_path: Some(socket.clone()),
            name: options.name.clone(),
            status: None,
            extra: Default::default(),
        };
        let key_name = uuid::Uuid::new_v4().simple().to_string();
        let (entry_path, key_path) =
            sessions::register(&options.claude_dir, &entry, &key_name, &token)
                .map_err(|e| e.to_string())?;
        self.registered.extend([entry_path, key_path]);
        self.socket = Some(socket);
        Ok(())
    }

    fn watch(&mut self, member: &Member, deliver: &DeliverText) -> Result<(), TeamFileError> {
        let path = member.team.inbox(&member.agent)?;
        let deliver = Arc::clone(deliver);
        let routes = Arc::clone(&self.routes);
        let on_messages: OnMessages = Arc::new(move |taken| match taken {
            Ok(messages) => messages
                .iter()
                .filter(|m| !routes.took(m))
                .for_each(|m| deliver(teammate_text(m))),
            Err(e) => deliver(wrap::teammate_message(
                "tack",
                None,
                Some("an unreadable inbox"),
                &format!("Messages could not be read: {e}"),
            )),
        });
        let task =
            watch::watch_inbox(path.clone(), on_messages).map_err(TeamFileError::io(&path))?;
        self.tasks.push(task);
        Ok(())
    }

    pub fn claude_dir(&self) -> &Path {
        &self.claude_dir
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    pub fn member(&self) -> Option<&Member> {
        self.member.as_ref()
    }

    /// The name this session signs messages with: its agent name in a
    /// team, else its address.
    pub fn sender(&self) -> String {
        match (&self.member, &self.socket) {
            (Some(m), _) => m.agent.clone(),
            (None, Some(socket)) => peer::address(socket),
            (None, None) => TEAM_LEAD.to_string(),
        }
    }

    /// Sends every change of a teammate's state to `on` (set once: the
    /// session's event stream).
    pub fn on_teammate(&self, on: OnTeammate) {
        let _ = self.on_teammate.set(on);
    }

    /// Records a teammate that just joined (its state `joined`).
    pub fn joined(&self, teammate: TeammateEvent) {
        self.change(&teammate.name.clone(), |t| *t = Some(teammate));
    }

    /// Records what the teammate `name` is doing; a change is told.
    pub fn set_state(&self, name: &str, state: TeammateState) {
        self.change(name, |t| {
            if let Some(t) = t {
                t.state = state;
            }
        });
    }

    fn change(&self, name: &str, f: impl FnOnce(&mut Option<TeammateEvent>)) {
        let mut states = self
            .states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let before = states.get(name).cloned();
        let mut now = before.clone();
        f(&mut now);
        let Some(now) = now.filter(|n| Some(n) != before.as_ref()) else {
            return;
        };
        states.insert(name.to_string(), now.clone());
        // Told under the lock, so the stream has the changes in order.
        if let Some(on) = self.on_teammate.get() {
            on(now);
        }
    }

    /// What the teammate `name` is doing (`None`: not one of this
    /// session's).
    pub fn state(&self, name: &str) -> Option<TeammateState> {
        let states = self
            .states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        states.get(name).map(|t| t.state)
    }

    /// A teammate's relay of its permission questions to its lead.
    pub fn relay(&self) -> Option<TeammateRelay> {
        self.routes.relay.clone()
    }

    /// Sends the teammates' `permission_request`s to `on` (set once: the
    /// lead's gate).
    pub fn on_permission_request(&self, on: OnRequest) {
        let _ = self.routes.on_request.set(on);
    }

    /// Sends the lead's `shutdown_request`s to `on` (set once: a teammate
    /// in a process of its own, `super::member_process`).
    pub fn on_shutdown_request(&self, on: OnRequest) {
        let _ = self.routes.on_shutdown.set(on);
    }

    /// The address other sessions reach this one at.
    pub fn address(&self) -> Option<String> {
        self.socket.as_deref().map(peer::address)
    }
}

impl Drop for Messaging {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        for path in &self.registered {
            let _ = std::fs::remove_file(path);
        }
        // A lead whose team never had a teammate leaves no folder behind
        // (only empty folders go; a team with a config.json stays).
        if let Some(member) = self.member.as_ref().filter(|_| !self.registered.is_empty())
            && !member.team.config().exists()
        {
            let _ = std::fs::remove_dir(member.team.inboxes());
            let _ = std::fs::remove_dir(member.team.dir());
        }
    }
}

impl Routes {
    /// Whether `m` was for the session itself (a permission request or
    /// answer), not for the model.
    fn took(&self, m: &InboxMessage) -> bool {
        let Body::Structured { kind, value } = structured::body(&m.text) else {
            return false;
        };
        match (kind.as_str(), &self.relay, self.on_request.get()) {
            ("permission_response", Some(relay), _) => {
                relay.answered(&m.from, &value);
                true
            }
            ("plan_approval_response", Some(relay), _) => {
                // Its mode changes now; the message is the model's too.
                relay.plan_answered(&m.from, &value);
                false
            }
            ("permission_request", None, Some(on)) => {
                on(m.from.clone(), value);
                true
            }
            ("shutdown_request", Some(_), _) => match self.on_shutdown.get() {
                Some(on) => {
                    on(m.from.clone(), value);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }
}

/// A teammate's inbox message as the model reads it.
fn teammate_text(m: &InboxMessage) -> String {
    wrap::teammate_message(&m.from, m.color.as_deref(), m.summary.as_deref(), &m.text)
}

/// `<claude_dir>/sessions/<pid>.sock`, or under the temporary folder when
/// that path is too long for a socket.
fn socket_path(claude_dir: &Path, pid: u32) -> PathBuf {
    let beside = sessions::dir(claude_dir).join(format!("{pid}.sock"));
    if beside.as_os_str().len() < 100 {
        return beside;
    }
    std::env::temp_dir()
        .join("tack-socks")
        .join(format!("{pid}.sock"))
}
