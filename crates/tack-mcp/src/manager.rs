//! The servers of a session: started together, each with its status, its
//! tools, and its process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use serde::Serialize;
use tack_protocol::stream_json::McpServerStatus;
use tack_tool::Tool;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::{ConfigIssue, ConfigScope, McpConfig, NotStarted, ServerConfig, ServerEntry};
use crate::connection::{self, Connected, Connection, SHUTDOWN_GRACE, StartFailure};
use crate::names::normalize_name;
use crate::tool::{McpTool, Target, humanize};
use crate::tool_checks;
use crate::transport::sdk::SdkBridge;
use crate::transport::stdio::ExitWatch;

/// Claude Code's default `MCP_TIMEOUT`: how long a server may take to start.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a tool call may wait for its server unless `MCP_TOOL_TIMEOUT`
/// says otherwise. Claude Code's default (100,000,000 ms, about 28 hours) let
/// a server that dropped a reply hold a turn for a day; minutes are enough
/// for real tools and end a lost call in reasonable time.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// How servers are started and called. Everything is passed in; nothing is
/// read from the process environment.
#[derive(Debug, Clone, PartialEq)]
pub struct McpOptions {
    /// `MCP_TIMEOUT`: a server not connected by then is `failed`.
    pub startup_timeout: Duration,
    /// `MCP_TOOL_TIMEOUT`: a tool call not answered by then fails (and the
    /// server is sent `notifications/cancelled`).
    pub tool_timeout: Duration,
    /// The working directory of stdio servers.
    pub cwd: PathBuf,
    /// stdio servers' stderr goes to `<log_dir>/<server>.log` (truncated at start).
    pub log_dir: PathBuf,
    /// Added to stdio servers' environment before their own `env` (settings `env`).
    pub env: Vec<(String, String)>,
    /// MCP tool results longer than this go through the tool-result budget
    /// (`Tool::max_result_chars`); `None` leaves them out of it.
    pub max_result_chars: Option<usize>,
    /// How `{"type": "sdk"}` servers are reached: the Agent SDK session's
    /// control channel. `None` (no SDK drives the session): they fail with a
    /// message naming them.
    pub sdk: Option<SdkBridge>,
}

impl McpOptions {
    /// Claude Code's defaults.
    pub fn new(cwd: impl Into<PathBuf>, log_dir: impl Into<PathBuf>) -> McpOptions {
        McpOptions {
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            tool_timeout: DEFAULT_TOOL_TIMEOUT,
            cwd: cwd.into(),
            log_dir: log_dir.into(),
            env: Vec::new(),
            max_result_chars: Some(tack_tool::budget::DEFAULT_MAX_RESULT_CHARS),
            sdk: None,
        }
    }

    /// Reads `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT` (milliseconds) through
    /// `lookup`; unset, empty, zero or unparsable values keep the default.
    pub fn with_env_timeouts(mut self, lookup: impl Fn(&str) -> Option<String>) -> McpOptions {
        let ms = |key: &str| {
            lookup(key)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|&v| v > 0)
                .map(Duration::from_millis)
        };
        if let Some(d) = ms("MCP_TIMEOUT") {
            self.startup_timeout = d;
        }
        if let Some(d) = ms("MCP_TOOL_TIMEOUT") {
            self.tool_timeout = d;
        }
        self
    }
}

/// A server's state, with Claude Code's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Still starting.
    Pending,
    Connected,
    /// Did not start, timed out, or died; see [`ServerStatus::error`].
    Failed,
    /// HTTP 401 (OAuth is not supported yet).
    NeedsAuth,
    /// A project server not approved, or disabled in settings: not started.
    Disabled,
}

impl Status {
    /// `pending`, `connected`, `failed`, `needs-auth` or `disabled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Connected => "connected",
            Status::Failed => "failed",
            Status::NeedsAuth => "needs-auth",
            Status::Disabled => "disabled",
        }
    }
}

/// One server's state, for the init record, `/mcp` and `tack mcp list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: String,
    pub scope: ConfigScope,
    /// `stdio`, `http`, `sse` or `sdk`.
    pub transport: &'static str,
    pub status: Status,
    /// Why it failed, needs auth, or is disabled.
    pub error: Option<String>,
    /// The stdio server's stderr log.
    pub log: Option<PathBuf>,
    /// Tools it offers now (connected servers).
    pub tool_count: usize,
}

/// An entry of the init record's `mcp_server_errors`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerConfigError {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub message: String,
}

pub(crate) enum SlotState {
    Pending,
    Connected(Live),
    Failed(String),
    NeedsAuth(String),
    /// Turned off (`mcp_toggle`): not connected until turned on.
    Disabled,
}

pub(crate) struct Live {
    connection: Arc<Connection>,
    tools: Vec<Arc<McpTool>>,
    /// Tools of the server's list left out, and why.
    left_out: Vec<String>,
}

/// One configured server.
pub(crate) struct Slot {
    pub(crate) entry: ServerEntry,
    log: Option<PathBuf>,
    pub(crate) state: Mutex<SlotState>,
    /// The configuration with its `${VAR}`s expanded (what a start or a
    /// reconnect uses); `None` when a variable was missing.
    pub(crate) expanded: Option<ServerConfig>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) struct Shared {
    pub(crate) options: McpOptions,
    /// Servers come and go while the session runs (`mcp_set_servers`).
    slots: Mutex<Vec<Arc<Slot>>>,
    /// The servers the last `mcp_set_servers` named: a later call that
    /// leaves one out removes it.
    pub(crate) named_by_set: Mutex<std::collections::BTreeSet<String>>,
    not_started: Vec<NotStarted>,
    issues: Vec<ConfigIssue>,
    generation: Arc<watch::Sender<u64>>,
    shutdown: CancellationToken,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Stops starts still in progress; connections (and their process
        // groups) go with the slots.
        self.shutdown.cancel();
    }
}

/// The MCP servers of one session.
///
/// # The model
/// [`McpManager::start`] starts every configured server at once, each in its
/// own task, and returns immediately; every server is `pending` until it
/// connects (`connected`), fails or runs out of `MCP_TIMEOUT` (`failed`), so
/// a slow or broken server never holds up the others or the session beyond
/// that timeout. [`McpManager::wait_until_settled`] waits for all of them.
///
/// The tools of connected servers are a snapshot ([`McpManager::tools`]);
/// whenever it changes (a server connects, sends `tools/list_changed`, or dies)
/// the generation ([`McpManager::generation`], [`McpManager::subscribe`]) goes
/// up, so the runtime can rebuild its tool list between turns.
///
/// Clones share the servers. When the last clone is dropped every stdio server's
/// process group is killed at once; [`McpManager::shutdown`] gives them a
/// moment to exit first. Tools handed out keep working only while the manager
/// lives (afterwards they report the server as closed).
#[derive(Clone)]
pub struct McpManager {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.statuses()).finish()
    }
}

impl McpManager {
    /// Starts every server of `config`; returns at once. Call it within a
    /// tokio runtime (without one every server fails). `lookup` expands
    /// `${VAR}`s; a server needing an unset variable fails with a message
    /// naming it.
    pub fn start(
        config: &McpConfig,
        options: McpOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> McpManager {
        let (generation, _) = watch::channel(0u64);
        let mut slots = Vec::new();
        let mut taken: BTreeMap<String, String> = BTreeMap::new();
        for entry in &config.servers {
            slots.push(new_slot(entry, &options, lookup, &mut taken));
        }
        let shared = Arc::new(Shared {
            options,
            slots: Mutex::new(slots.clone()),
            named_by_set: Mutex::default(),
            not_started: config.not_started.clone(),
            issues: config.issues.clone(),
            generation: Arc::new(generation),
            shutdown: CancellationToken::new(),
        });
        let manager = McpManager { shared };
        for slot in slots {
            manager.spawn_start(slot);
        }
        manager
    }

    /// Starts `slot` if it is pending (in its own task; without a tokio
    /// runtime it fails).
    pub(crate) fn spawn_start(&self, slot: Arc<Slot>) {
        if !matches!(*lock(&slot.state), SlotState::Pending) {
            return;
        }
        let Some(expanded) = slot.expanded.clone() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(start_one(self.downgrade(), slot, expanded));
            }
            Err(_) => {
                *lock(&slot.state) = SlotState::Failed("not started: no tokio runtime".into());
            }
        }
    }

    /// The servers now (a snapshot).
    pub(crate) fn slots(&self) -> Vec<Arc<Slot>> {
        lock(&self.shared.slots).clone()
    }

    /// Replaces the server list (what `mcp_set_servers` decided).
    pub(crate) fn set_slots(&self, slots: Vec<Arc<Slot>>) {
        *lock(&self.shared.slots) = slots;
        bump(&self.shared.generation);
    }

    pub(crate) fn options(&self) -> &McpOptions {
        &self.shared.options
    }

    pub(crate) fn bump(&self) {
        bump(&self.shared.generation);
    }

    /// [`McpManager::start`], then [`McpManager::wait_until_settled`].
    pub async fn connect(
        config: &McpConfig,
        options: McpOptions,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> McpManager {
        let manager = McpManager::start(config, options, lookup);
        manager.wait_until_settled().await;
        manager
    }

    /// Returns once no server is `pending` (at most the start-up timeout after
    /// [`McpManager::start`]).
    pub async fn wait_until_settled(&self) {
        let mut rx = self.subscribe();
        loop {
            let pending = self
                .slots()
                .iter()
                .any(|s| matches!(*lock(&s.state), SlotState::Pending));
            if !pending || rx.changed().await.is_err() {
                return;
            }
        }
    }

    /// Every configured server (started or not), sorted by name.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        let mut out: Vec<ServerStatus> = self
            .slots()
            .iter()
            .map(|slot| {
                let (status, error, tool_count) = match &*lock(&slot.state) {
                    SlotState::Pending => (Status::Pending, None, 0),
                    SlotState::Connected(live) => (Status::Connected, None, live.tools.len()),
                    SlotState::Failed(e) => (Status::Failed, Some(e.clone()), 0),
                    SlotState::NeedsAuth(e) => (Status::NeedsAuth, Some(e.clone()), 0),
                    SlotState::Disabled => (Status::Disabled, None, 0),
                };
                ServerStatus {
                    name: slot.entry.name.clone(),
                    scope: slot.entry.scope,
                    transport: slot.entry.config.transport(),
                    status,
                    error,
                    log: slot.log.clone(),
                    tool_count,
                }
            })
            .collect();
        out.extend(self.shared.not_started.iter().map(|n| ServerStatus {
            name: n.name.clone(),
            scope: ConfigScope::Project,
            transport: n.transport,
            status: Status::Disabled,
            error: Some(n.message()),
            log: None,
            tool_count: 0,
        }));
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The init record's `mcp_servers`.
    pub fn init_statuses(&self) -> Vec<McpServerStatus> {
        self.statuses()
            .into_iter()
            .map(|s| McpServerStatus {
                name: s.name,
                status: s.status.as_str().to_string(),
            })
            .collect()
    }

    /// The init record's `mcp_server_errors`: entries that could not be read.
    pub fn config_errors(&self) -> Vec<ServerConfigError> {
        self.shared
            .issues
            .iter()
            .map(|i| ServerConfigError {
                name: i.server.clone(),
                kind: i.kind.as_str(),
                message: format!("{}: {}", i.origin, i.message),
            })
            .collect()
    }

    /// What text mode prints on stderr: one line per server that is not
    /// connected (or still pending) and per unreadable entry.
    pub fn report_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.shared.issues.iter().map(ToString::to_string).collect();
        lines.extend(self.checked_tools().1);
        for s in self.statuses() {
            let name = &s.name;
            match s.status {
                Status::Connected => {}
                Status::Pending => lines.push(format!("MCP server \"{name}\" is still starting")),
                Status::Failed | Status::NeedsAuth | Status::Disabled => lines.push(format!(
                    "MCP server \"{name}\" {}: {}",
                    match s.status {
                        Status::NeedsAuth => "needs authentication",
                        Status::Disabled => "was not started",
                        Status::Failed | Status::Pending | Status::Connected => "failed",
                    },
                    s.error.unwrap_or_default()
                )),
            }
        }
        lines
    }

    /// The tools of every connected server, by server name then in the
    /// server's order.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.mcp_tools()
            .into_iter()
            .map(|t| t as Arc<dyn Tool>)
            .collect()
    }

    /// Every connected server's tools; of two with one name (`s` + `x__echo`
    /// and `s__x` + `echo`) only the first.
    pub(crate) fn mcp_tools(&self) -> Vec<Arc<McpTool>> {
        self.checked_tools().0
    }

    /// [`McpManager::mcp_tools`], and a warning for every tool left out.
    fn checked_tools(&self) -> (Vec<Arc<McpTool>>, Vec<String>) {
        let mut left_out = Vec::new();
        let all: Vec<Arc<McpTool>> = self
            .slots()
            .iter()
            .flat_map(|slot| match &*lock(&slot.state) {
                SlotState::Connected(live) => {
                    left_out.extend(live.left_out.iter().cloned());
                    live.tools.clone()
                }
                SlotState::Pending
                | SlotState::Failed(_)
                | SlotState::NeedsAuth(_)
                | SlotState::Disabled => Vec::new(),
            })
            .collect();
        let (kept, clashes) = tool_checks::distinct(all);
        left_out.extend(clashes);
        (kept, left_out)
    }

    /// Returns once no connected server's tool list is being fetched again
    /// after a `tools/list_changed`, or after `limit`: a tool a server
    /// announced before a turn is offered in that turn.
    pub async fn tool_lists_current(&self, limit: Duration) {
        let mut rx = self.subscribe();
        let current = async {
            loop {
                let stale = self
                    .connections()
                    .iter()
                    .any(|(_, c)| c.target.events.list_stale());
                if !stale || rx.changed().await.is_err() {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(limit, current).await;
    }

    /// Goes up whenever [`McpManager::tools`] or a status changes.
    pub fn generation(&self) -> u64 {
        *self.shared.generation.borrow()
    }

    /// A receiver that sees every change of [`McpManager::generation`].
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.shared.generation.subscribe()
    }

    /// Server instructions (`instructions` of the initialize result) of
    /// connected servers, for the system prompt.
    pub fn instructions(&self) -> Vec<(String, String)> {
        self.slots()
            .iter()
            .filter_map(|slot| match &*lock(&slot.state) {
                SlotState::Connected(live) => live
                    .connection
                    .instructions
                    .clone()
                    .map(|i| (slot.entry.name.clone(), i)),
                SlotState::Pending
                | SlotState::Failed(_)
                | SlotState::NeedsAuth(_)
                | SlotState::Disabled => None,
            })
            .collect()
    }

    /// The pid (and process group) of a connected stdio server.
    pub fn server_pid(&self, server: &str) -> Option<i32> {
        self.live_connection(server)
            .and_then(|c| c.child.as_ref().map(|g| g.pid()))
    }

    /// Stops every server: pending starts are abandoned, stdio servers get
    /// SIGTERM and up to 2 s before SIGKILL. Statuses become `failed` ("shut down").
    pub async fn shutdown(&self) {
        self.shared.shutdown.cancel();
        let mut children = Vec::new();
        for slot in &self.slots() {
            let old = std::mem::replace(
                &mut *lock(&slot.state),
                SlotState::Failed("shut down".into()),
            );
            if let SlotState::Connected(live) = old {
                children.push(live.connection);
            }
        }
        let waits = children
            .iter()
            .filter_map(|c| c.child.as_ref())
            .map(|g| g.terminate(SHUTDOWN_GRACE));
        futures::future::join_all(waits).await;
        drop(children);
        bump(&self.shared.generation);
    }

    pub(crate) fn live_connection(&self, server: &str) -> Option<Arc<Connection>> {
        self.slots().iter().find_map(|slot| {
            if slot.entry.name != server {
                return None;
            }
            match &*lock(&slot.state) {
                SlotState::Connected(live) => Some(Arc::clone(&live.connection)),
                SlotState::Pending
                | SlotState::Failed(_)
                | SlotState::NeedsAuth(_)
                | SlotState::Disabled => None,
            }
        })
    }

    /// The request target of `server`, or why there is none.
    pub(crate) fn target(&self, server: &str) -> Result<Arc<Target>, crate::McpError> {
        if let Some(c) = self.live_connection(server) {
            return Ok(Arc::clone(&c.target));
        }
        match self.statuses().into_iter().find(|s| s.name == server) {
            Some(s) => Err(crate::McpError::NotConnected {
                server: server.to_string(),
                status: s.status.as_str(),
                detail: s.error.unwrap_or_default(),
            }),
            None => Err(crate::McpError::UnknownServer {
                server: server.to_string(),
                available: self.connected_names().join(", "),
            }),
        }
    }

    /// Names of connected servers, sorted.
    pub fn connected_names(&self) -> Vec<String> {
        self.slots()
            .iter()
            .filter(|s| matches!(*lock(&s.state), SlotState::Connected(_)))
            .map(|s| s.entry.name.clone())
            .collect()
    }

    /// Connected servers whose capabilities include `which`.
    pub(crate) fn connections(&self) -> Vec<(String, Arc<Connection>)> {
        self.slots()
            .iter()
            .filter_map(|slot| match &*lock(&slot.state) {
                SlotState::Connected(live) => {
                    Some((slot.entry.name.clone(), Arc::clone(&live.connection)))
                }
                SlotState::Pending
                | SlotState::Failed(_)
                | SlotState::NeedsAuth(_)
                | SlotState::Disabled => None,
            })
            .collect()
    }

    pub(crate) fn downgrade(&self) -> Weak<Shared> {
        Arc::downgrade(&self.shared)
    }

    pub(crate) fn upgrade(weak: &Weak<Shared>) -> Option<McpManager> {
        weak.upgrade().map(|shared| McpManager { shared })
    }

    /// A handle that does not keep the servers running.
    pub fn weak(&self) -> WeakMcpManager {
        WeakMcpManager(self.downgrade())
    }
}

/// An [`McpManager`] that does not keep its servers alive: for what may outlive
/// the session's own handle (a sub-agent's tools).
#[derive(Clone)]
pub struct WeakMcpManager(Weak<Shared>);

impl WeakMcpManager {
    /// The manager, unless it has shut down.
    pub fn upgrade(&self) -> Option<McpManager> {
        McpManager::upgrade(&self.0)
    }
}

fn bump(generation: &watch::Sender<u64>) {
    generation.send_modify(|g| *g += 1);
}

/// A server's slot: pending with its expanded configuration, or failed
/// (a missing variable, a name whose tool names clash with one in `taken`).
pub(crate) fn new_slot(
    entry: &ServerEntry,
    options: &McpOptions,
    lookup: &dyn Fn(&str) -> Option<String>,
    taken: &mut BTreeMap<String, String>,
) -> Arc<Slot> {
    let log = matches!(entry.config, ServerConfig::Stdio(_)).then(|| {
        options
            .log_dir
            .join(format!("{}.log", normalize_name(&entry.name)))
    });
    let normalized = normalize_name(&entry.name);
    let (state, expanded) = if let Some(other) = taken.get(&normalized) {
        let clash = format!(
            "its tool names (mcp__{normalized}__*) would clash with server \"{other}\"; rename one of them"
        );
        (SlotState::Failed(clash), None)
    } else {
        taken.insert(normalized, entry.name.clone());
        match entry.config.expand(lookup) {
            Ok(expanded) => (SlotState::Pending, Some(expanded)),
            Err(missing) => (SlotState::Failed(missing_message(&missing, entry)), None),
        }
    };
    Arc::new(Slot {
        entry: entry.clone(),
        log,
        state: Mutex::new(state),
        expanded,
    })
}

fn missing_message(missing: &[crate::config::MissingVar], entry: &ServerEntry) -> String {
    missing
        .iter()
        .map(|m| {
            format!(
                "environment variable {} is not set (used in {} in {}); set it or write ${{{}:-default}}",
                m.var, m.field, entry.origin, m.var
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Starts `slot`'s server within the start-up timeout, then watches it.
async fn start_one(weak: Weak<Shared>, slot: Arc<Slot>, config: ServerConfig) {
    let Some(shared) = weak.upgrade() else { return };
    let options = shared.options.clone();
    let generation = Arc::clone(&shared.generation);
    let shutdown = shared.shutdown.clone();
    // Holding `shared` during the start would keep a dropped manager's
    // servers alive until the timeout.
    drop(shared);
    let name = slot.entry.name.clone();
    let attempt = connection::connect(
        &name,
        &config,
        slot.entry.tool_timeout,
        &options.cwd,
        &options.env,
        slot.log.as_deref(),
        options.sdk.as_ref(),
    );
    let outcome = tokio::select! {
        () = shutdown.cancelled() => return,
        outcome = tokio::time::timeout(options.startup_timeout, attempt) => outcome,
    };
    let state = match outcome {
        Err(_) => SlotState::Failed(timeout_message(
            &name,
            options.startup_timeout,
            slot.log.as_deref(),
        )),
        Ok(Err(StartFailure::Failed(e))) => SlotState::Failed(e),
        Ok(Err(StartFailure::NeedsAuth(e))) => SlotState::NeedsAuth(e),
        Ok(Ok(connected)) => {
            let Connected {
                connection,
                service,
                tools,
                exit,
            } = connected;
            let connection = Arc::new(connection);
            let (tools, left_out) = make_tools(&connection.target, tools, &options);
            let stopped = CancellationToken::new();
            tokio::spawn(watch_service(
                Arc::downgrade(&slot),
                Arc::downgrade(&connection),
                service,
                exit,
                Arc::clone(&generation),
                stopped.clone(),
            ));
            tokio::spawn(refresh_tools(
                Arc::downgrade(&slot),
                Arc::clone(&connection.target),
                options.clone(),
                Arc::clone(&generation),
                stopped,
            ));
            SlotState::Connected(Live {
                connection,
                tools,
                left_out,
            })
        }
    };
    // Checked under the lock that `shutdown` takes after cancelling, so a
    // connection made while shutting down is dropped (and killed) here.
    let mut current = lock(&slot.state);
    if shutdown.is_cancelled() {
        return;
    }
    *current = state;
    drop(current);
    bump(&generation);
}

fn timeout_message(name: &str, timeout: Duration, log: Option<&Path>) -> String {
    let message = format!(
        "connection to MCP server \"{name}\" timed out after {} (MCP_TIMEOUT)",
        humanize(timeout)
    );
    match log {
        Some(log) => connection::with_log(message, log),
        None => message,
    }
}

/// The server's tools, and a warning for each one whose input schema the
/// API would reject (left out). Names that clash are sorted out across all
/// servers ([`McpManager::mcp_tools`]).
fn make_tools(
    target: &Arc<Target>,
    defs: Vec<rmcp::model::Tool>,
    options: &McpOptions,
) -> (Vec<Arc<McpTool>>, Vec<String>) {
    let mut tools = Vec::new();
    let mut left_out = Vec::new();
    for def in defs {
        if let Some(problem) = tool_checks::schema_problem(&def.input_schema) {
            left_out.push(format!(
                "MCP tool \"{}\" of server \"{}\" is left out: its inputSchema is not a JSON Schema object ({problem})",
                def.name, target.server
            ));
            continue;
        }
        tools.push(Arc::new(McpTool::new(
            Arc::clone(target),
            def,
            target.tool_timeout.unwrap_or(options.tool_timeout),
            options.max_result_chars,
        )));
    }
    (tools, left_out)
}

/// Runs until the server's session ends or its process exits; if that was not
/// our doing, the server is marked failed and its tools withdrawn.
async fn watch_service(
    slot: Weak<Slot>,
    connection: Weak<Connection>,
    service: rmcp::service::RunningService<rmcp::RoleClient, crate::handler::Handler>,
    exit: Option<ExitWatch>,
    generation: Arc<watch::Sender<u64>>,
    stopped: CancellationToken,
) {
    let exited = async {
        match &exit {
            Some(exit) => exit.exited().await,
            None => std::future::pending().await,
        }
    };
    // The process can exit while a grandchild keeps its stdout open: then the
    // session never sees the end of the stream, so the exit itself counts.
    let quit = tokio::select! {
        quit = service.waiting() => quit,
        () = exited => Ok(rmcp::service::QuitReason::Closed),
    };
    stopped.cancel();
    let Some(slot) = slot.upgrade() else { return };
    let mut state = lock(&slot.state);
    let ours = matches!(&*state, SlotState::Connected(live)
        if Weak::ptr_eq(&Arc::downgrade(&live.connection), &connection));
    if !ours {
        return;
    }
    let reason = match quit {
        Ok(rmcp::service::QuitReason::Closed) => {
            "the server closed the connection (it may have crashed)".to_string()
        }
        Ok(other) => format!("the connection ended ({other:?})"),
        Err(e) => format!("the connection task failed: {e}"),
    };
    let message = match &slot.log {
        Some(log) => connection::with_log(reason, log),
        None => reason,
    };
    // Dropping the connection now kills what is left of the server's process
    // group (grandchildren) while its id cannot have been reused yet.
    let old = std::mem::replace(&mut *state, SlotState::Failed(message));
    drop(state);
    drop(old);
    bump(&generation);
}

/// Fetches the tool list again on every `tools/list_changed`.
async fn refresh_tools(
    slot: Weak<Slot>,
    target: Arc<Target>,
    options: McpOptions,
    generation: Arc<watch::Sender<u64>>,
    stopped: CancellationToken,
) {
    loop {
        tokio::select! {
            () = stopped.cancelled() => return,
            () = target.events.tools_changed.notified() => {}
        }
        let changes = target.events.list_changes();
        // On an error the old list stays; the next notification tries again.
        if let Ok(defs) = connection::list_tools(&target).await {
            let Some(slot) = slot.upgrade() else { return };
            let (tools, left_out) = make_tools(&target, defs, &options);
            if let SlotState::Connected(live) = &mut *lock(&slot.state) {
                live.tools = tools;
                live.left_out = left_out;
            }
        }
        target.events.list_applied(changes);
        bump(&generation);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_tool_call_waits_minutes_by_default_and_mcp_tool_timeout_overrides_it() {
        let timeouts = |env: &[(&str, &str)]| {
            let o = McpOptions::new(Path::new("/p"), Path::new("/l")).with_env_timeouts(|k| {
                env.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            });
            o.tool_timeout
        };
        assert_eq!(
            [timeouts(&[]), timeouts(&[("MCP_TOOL_TIMEOUT", "1500")])],
            [Duration::from_secs(600), Duration::from_millis(1500)]
        );
    }
}
