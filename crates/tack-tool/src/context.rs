use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::arrivals::Arrivals;
use crate::client_files::ClientFiles;
use crate::client_terminal::ClientTerminals;
use crate::mode_source::ModeSlot;
use crate::moved_prompt::PromptPlace;

/// What a file looked like when a file tool last read or wrote it. Write and
/// Edit refuse to touch a file whose record is missing or stale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRecord {
    pub mtime: Option<SystemTime>,
    pub len: u64,
    /// Hash of the content, to tell a real change from a touched mtime.
    pub content_hash: u64,
    /// The read covered only part of the file (offset/limit): not enough to overwrite it.
    pub partial: bool,
}

/// Session-wide state shared by all tool calls of one session.
#[derive(Debug)]
pub struct ToolEnv {
    cwd: Mutex<PathBuf>,
    project_root: PathBuf,
    additional_dirs: Vec<PathBuf>,
    session_dir: PathBuf,
    read_files: Mutex<HashMap<PathBuf, ReadRecord>>,
    /// Default Bash timeout (`BASH_DEFAULT_TIMEOUT_MS`), passed in rather than read
    /// from the environment so tests stay hermetic.
    pub bash_default_timeout: Duration,
    /// The sub-agent whose tools these are (`None`: the main session).
    agent: Option<AgentIdentity>,
    /// Messages for the model from outside the conversation.
    arrivals: Arrivals,
    /// The front end's client's files (an editor's unsaved buffers).
    client_files: Option<ClientFiles>,
    /// The front end's client's terminal (an editor's), for Bash.
    client_terminal: Option<ClientTerminals>,
    /// What the system prompt says after the session moved folder.
    prompt_place: PromptPlace,
    /// The session's permission mode, read from its gate.
    mode: ModeSlot,
}

/// How long a Bash command may run when neither the call nor
/// `BASH_DEFAULT_TIMEOUT_MS` says (Claude Code's two minutes).
pub const DEFAULT_BASH_TIMEOUT: Duration = Duration::from_secs(120);

/// A sub-agent, as hooks and permission prompts name it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AgentIdentity {
    pub id: String,
    /// Its definition's name (`subagent_type`).
    pub agent_type: String,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in another tool while holding the lock must not wedge the session;
    // the data (a path, a map of records) is still consistent.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ToolEnv {
    /// `session_dir` is a private directory for this session's tool output files
    /// (large results, background task logs); the caller creates it.
    pub fn new(project_root: PathBuf, session_dir: PathBuf) -> Self {
        ToolEnv {
            cwd: Mutex::new(project_root.clone()),
            project_root,
            additional_dirs: Vec::new(),
            session_dir,
            read_files: Mutex::new(HashMap::new()),
            bash_default_timeout: DEFAULT_BASH_TIMEOUT,
            agent: None,
            arrivals: Arrivals::default(),
            client_files: None,
            client_terminal: None,
            prompt_place: PromptPlace::default(),
            mode: ModeSlot::default(),
        }
    }

    /// Text files are read through the client first.
    pub fn with_client_files(mut self, files: Option<ClientFiles>) -> Self {
        self.client_files = files;
        self
    }

    /// The client's files, when the front end reads through its client.
    pub fn client_files(&self) -> Option<&ClientFiles> {
        self.client_files.as_ref()
    }

    /// Foreground Bash commands run in the client's terminal first.
    pub fn with_client_terminal(mut self, terminal: Option<ClientTerminals>) -> Self {
        self.client_terminal = terminal;
        self
    }

    /// The client's terminal, when the front end's client offers one.
    pub fn client_terminal(&self) -> Option<&ClientTerminals> {
        self.client_terminal.as_ref()
    }

    /// Whose arrivals these tools push to and the loop delivers (a new
    /// queue by default, which only this env's loop reads).
    pub fn with_arrivals(mut self, arrivals: Arrivals) -> Self {
        self.arrivals = arrivals;
        self
    }

    /// The session's queue of messages from outside the conversation.
    pub fn arrivals(&self) -> &Arrivals {
        &self.arrivals
    }

    /// The cwd-dependent prompt parts after the session moved (EnterWorktree
    /// sets them; the loop sends them from its next request).
    pub fn prompt_place(&self) -> &PromptPlace {
        &self.prompt_place
    }

    /// Where the session's permission mode is read (a sub-agent's tools
    /// share their session's).
    pub fn with_mode_slot(mut self, slot: ModeSlot) -> Self {
        self.mode = slot;
        self
    }

    /// The slot the session fills with its gate's mode.
    pub fn mode_slot(&self) -> &ModeSlot {
        &self.mode
    }

    /// The session's permission mode now (Claude Code's name), `None`
    /// before the session set where to read it.
    pub fn permission_mode(&self) -> Option<String> {
        self.mode.read()
    }

    /// The environment of a sub-agent's tools.
    pub fn with_agent(mut self, agent: AgentIdentity) -> Self {
        self.agent = Some(agent);
        self
    }

    /// The sub-agent these tools belong to, if any.
    pub fn agent(&self) -> Option<&AgentIdentity> {
        self.agent.as_ref()
    }

    pub fn with_additional_dirs(mut self, dirs: Vec<PathBuf>) -> Self {
        self.additional_dirs = dirs;
        self
    }

    pub fn with_bash_default_timeout(mut self, timeout: Duration) -> Self {
        self.bash_default_timeout = timeout;
        self
    }

    /// The session's working directory; `cd` in Bash moves it.
    pub fn cwd(&self) -> PathBuf {
        lock(&self.cwd).clone()
    }

    pub fn set_cwd(&self, dir: PathBuf) {
        *lock(&self.cwd) = dir;
    }

    pub fn project_root(&self) -> &Path {
        &self.project_root
    }

    pub fn additional_dirs(&self) -> &[PathBuf] {
        &self.additional_dirs
    }

    pub fn session_dir(&self) -> &Path {
        &self.session_dir
    }

    /// Resolves a path from the model against the session cwd.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd().join(p)
        }
    }

    pub fn read_record(&self, path: &Path) -> Option<ReadRecord> {
        lock(&self.read_files).get(path).cloned()
    }

    pub fn record_read(&self, path: PathBuf, record: ReadRecord) {
        lock(&self.read_files).insert(path, record);
    }

    pub fn forget_read(&self, path: &Path) {
        lock(&self.read_files).remove(path);
    }
}

/// Progress a running tool reports (streamed to the UI / SDK, never to the model).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolProgress {
    pub tool_use_id: String,
    pub data: Value,
}

/// Where a tool sends progress. Sending never blocks; a closed receiver is ignored.
#[derive(Debug, Clone)]
pub struct ProgressSink {
    tool_use_id: String,
    tx: Option<mpsc::UnboundedSender<ToolProgress>>,
}

impl ProgressSink {
    pub fn new(tool_use_id: String, tx: mpsc::UnboundedSender<ToolProgress>) -> Self {
        ProgressSink {
            tool_use_id,
            tx: Some(tx),
        }
    }

    /// A sink that drops everything (tests, tools called outside the loop).
    pub fn discard(tool_use_id: String) -> Self {
        ProgressSink {
            tool_use_id,
            tx: None,
        }
    }

    pub fn send(&self, data: Value) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(ToolProgress {
                tool_use_id: self.tool_use_id.clone(),
                data,
            });
        }
    }
}

/// Everything one tool call is given.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub tool_use_id: String,
    pub env: Arc<ToolEnv>,
    /// Fires on user abort (or when the loop drops the call): stop promptly.
    pub cancel: CancellationToken,
    pub progress: ProgressSink,
}

impl ToolContext {
    /// A context for calling a tool directly (tests, benchmarks).
    pub fn standalone(tool_use_id: impl Into<String>, env: Arc<ToolEnv>) -> Self {
        let tool_use_id = tool_use_id.into();
        ToolContext {
            progress: ProgressSink::discard(tool_use_id.clone()),
            tool_use_id,
            env,
            cancel: CancellationToken::new(),
        }
    }
}
