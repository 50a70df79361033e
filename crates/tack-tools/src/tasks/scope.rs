//! Which task list a session's Task tools work on, who they act as, and the
//! seam through which they fire the TaskCreated and TaskCompleted hooks (the
//! hooks live in the runtime, which implements [`TaskHooks`]).
//!
//! The list id is Claude Code's: `CLAUDE_CODE_TASK_LIST_ID` when set, else
//! the team's name once the session leads or joins one, else the session id.
//! Its folder is `<claude config dir>/tasks/<id>`, the id's characters other
//! than ASCII letters, digits, `_` and `-` made `-` as Claude Code does; an id
//! with a `/`, `..` or NUL in it is refused outright.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use futures::future::BoxFuture;
use tack_tool::ToolContext;

use crate::tasks::store::{TaskError, TaskList};

/// Longest list id taken (a folder name must fit in 255 bytes).
const MAX_LIST_ID: usize = 200;

/// `CLAUDE_CODE_ENABLE_TASKS`: a true value (`1`, `true`, `yes`, `on`) offers
/// TaskCreate, TaskGet, TaskUpdate and TaskList instead of TodoWrite;
/// anything else, or unset, keeps TodoWrite (see `docs/tasks.md`).
pub fn tasks_enabled(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// The folder of list `id` under Claude Code's config dir.
pub fn list_dir(claude_dir: &Path, id: &str) -> Result<PathBuf, TaskError> {
    let refuse = |reason| {
        Err(TaskError::ListId {
            id: id.to_owned(),
            reason,
        })
    };
    if id.trim().is_empty() {
        return refuse("it is empty");
    }
    if id.len() > MAX_LIST_ID {
        return refuse("it is longer than 200 bytes");
    }
    if id.contains('/') || id.contains('\\') || id.contains("..") || id.contains('\0') {
        return refuse("a list id names one folder: no `/`, `\\`, `..` or NUL");
    }
    let name: String = id
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '-',
        })
        .collect();
    Ok(claude_dir.join("tasks").join(name))
}

#[derive(Debug, Clone)]
struct ScopeState {
    claude_dir: PathBuf,
    /// `CLAUDE_CODE_TASK_LIST_ID`: wins over a team.
    pinned: Option<String>,
    session_id: String,
    team_name: Option<String>,
    agent_name: Option<String>,
}

/// Which list the Task tools use and who they act as; shared (cheap clones
/// see one state) so a team joined later moves every tool to its list.
#[derive(Debug, Clone)]
pub struct TaskScope {
    state: Arc<RwLock<ScopeState>>,
}

impl TaskScope {
    /// A session's scope: list `pinned` (`CLAUDE_CODE_TASK_LIST_ID`) when
    /// set, else `session_id`'s, under `claude_dir`.
    pub fn new(claude_dir: PathBuf, pinned: Option<String>, session_id: &str) -> TaskScope {
        TaskScope {
            state: Arc::new(RwLock::new(ScopeState {
                claude_dir,
                pinned: pinned.filter(|p| !p.is_empty()),
                session_id: session_id.to_owned(),
                team_name: None,
                agent_name: None,
            })),
        }
    }

    /// The session leads or joins `team` as `agent_name`: its list is the
    /// team's (unless pinned), and hooks name the teammate and the team.
    pub fn join_team(&self, team: &str, agent_name: Option<&str>) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        state.team_name = Some(team.to_owned());
        state.agent_name = agent_name.map(str::to_owned);
    }

    /// A scope of its own for a teammate running in this process: the same
    /// list, acting as `agent_name` of `team`.
    pub fn for_teammate(&self, team: &str, agent_name: &str) -> TaskScope {
        let mut state = self.state().clone();
        state.team_name = Some(team.to_owned());
        state.agent_name = Some(agent_name.to_owned());
        TaskScope {
            state: Arc::new(RwLock::new(state)),
        }
    }

    /// The list id in use now.
    pub fn list_id(&self) -> String {
        let state = self.state();
        (state.pinned.clone())
            .or_else(|| state.team_name.clone())
            .unwrap_or_else(|| state.session_id.clone())
    }

    /// The list in use now, its folder created when missing.
    pub fn open(&self) -> Result<TaskList, TaskError> {
        let dir = list_dir(&self.state().claude_dir, &self.list_id())?;
        TaskList::open(dir)
    }

    /// The teammate these tools act as (`None`: not in a team, or its lead
    /// without a name).
    pub fn agent_name(&self) -> Option<String> {
        self.state().agent_name.clone()
    }

    /// The team the session is in.
    pub fn team_name(&self) -> Option<String> {
        self.state().team_name.clone()
    }

    fn state(&self) -> std::sync::RwLockReadGuard<'_, ScopeState> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The task hook events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskHookEvent {
    /// A task was created (before the model is told; a block deletes it).
    TaskCreated,
    /// A task is about to be marked completed (a block keeps it open).
    TaskCompleted,
}

impl TaskHookEvent {
    /// The event's name in settings and in `hook_event_name`.
    pub fn name(self) -> &'static str {
        match self {
            TaskHookEvent::TaskCreated => "TaskCreated",
            TaskHookEvent::TaskCompleted => "TaskCompleted",
        }
    }
}

/// What a task hook is told (Claude Code's fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskHookInput {
    pub task_id: String,
    pub task_subject: String,
    pub task_description: String,
    pub teammate_name: Option<String>,
    pub team_name: Option<String>,
}

/// What the hooks decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskHookVerdict {
    /// Exit code 2 or `decision: "block"`: the reason, for the model; the
    /// creation is undone, the completion refused.
    pub blocked: Option<String>,
    /// `continue: false`: the reason (`stopReason`); the change is refused
    /// like a block, and a teammate stops.
    pub stopped: Option<String>,
}

/// A task given to a new owner by an agent of a team (what Claude Code's
/// `task_assignment` mailbox message says).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskAssignment {
    pub task_id: String,
    pub subject: String,
    pub description: String,
    /// The new owner (an agent's name).
    pub owner: String,
    /// Who set it: the teammate these tools act as, else `team-lead`.
    pub assigned_by: String,
    pub team_name: String,
}

/// The session's hooks, as the Task tools reach them.
pub trait TaskHooks: Send + Sync {
    /// Runs `event`'s hooks with `input` for the call `ctx`.
    fn run<'a>(
        &'a self,
        event: TaskHookEvent,
        input: TaskHookInput,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, TaskHookVerdict>;

    /// TaskUpdate gave a task a new owner in a team: the session tells the
    /// owner (Claude Code writes a `task_assignment` to its mailbox). An
    /// error is said to the model after the update's result. Nothing by
    /// default.
    fn assigned(&self, _assignment: &TaskAssignment) -> Result<(), String> {
        Ok(())
    }
}

/// No hooks: every change goes through (tests, sessions without settings).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTaskHooks;

impl TaskHooks for NoTaskHooks {
    fn run<'a>(
        &'a self,
        _event: TaskHookEvent,
        _input: TaskHookInput,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, TaskHookVerdict> {
        Box::pin(async { TaskHookVerdict::default() })
    }
}
