//! The shared task list in a session: which list its Task tools use
//! (`CLAUDE_CODE_TASK_LIST_ID`, else the session's; a team moves it through
//! [`TaskScope::join_team`]), whether they are offered instead of TodoWrite
//! (`CLAUDE_CODE_ENABLE_TASKS`), and the TaskCreated / TaskCompleted hooks
//! they fire through the session's settings hooks.
//!
//! The tools and the store live in `tack-tools` (`tasks/`), which knows no
//! hooks; this file is the [`TaskHooks`] they call, so a hook runs with the
//! session's runner (its `session_id`, `cwd`, permission mode, and a
//! sub-agent's `agent_id`) like every other event.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use tack_hooks::{HookEvent, TaskHookFields};
use tack_tool::{Tool, ToolContext};
use tack_tools::tasks::{
    TaskAssignment, TaskHookEvent, TaskHookInput, TaskHookVerdict, TaskHooks, TaskScope,
    task_tools, tasks_enabled,
};

use crate::hooks::SessionHooks;
use crate::place::{Env, Place};

/// What a session's Task tools are made from: its list's scope (what a team
/// moves to its list: [`TaskScope::join_team`]), the hooks they fire, and
/// whether they are on.
#[derive(Clone)]
pub(crate) struct SessionTasks {
    scope: TaskScope,
    hooks: Option<Weak<SessionHooks>>,
    enabled: bool,
    /// Claude Code's config dir, where teams' mailboxes are.
    claude_dir: std::path::PathBuf,
    /// How a task's new owner is told (teams on).
    tell: Option<TellOwner>,
}

/// Tells a task's new owner in a team (`teams::assignment`), given Claude
/// Code's config dir.
pub(crate) type TellOwner = fn(&std::path::Path, &TaskAssignment) -> Result<(), String>;

/// A teammate's Task tools, and the switch a TaskCompleted or TaskCreated
/// hook answering `continue: false` turns on: the teammate stops at its
/// turn's end instead of waiting for messages.
pub(crate) struct TeammateTasks {
    pub tools: Vec<Arc<dyn Tool>>,
    pub stop: Arc<AtomicBool>,
}

impl SessionTasks {
    pub(crate) fn scope(&self) -> &TaskScope {
        &self.scope
    }

    /// The Task tools of teammate `agent` of `team` running in this
    /// process: the team's list, acting as that teammate (empty when the
    /// tools are off).
    pub(crate) fn for_teammate(&self, team: &str, agent: &str) -> TeammateTasks {
        let stop = Arc::new(AtomicBool::new(false));
        let hooks = Arc::new(SettingsTaskHooks {
            hooks: self.hooks.clone(),
            stop: Some(stop.clone()),
            claude_dir: self.claude_dir.clone(),
            tell: self.tell,
        });
        let tools = match self.enabled {
            true => task_tools(self.scope.for_teammate(team, agent), hooks),
            false => Vec::new(),
        };
        TeammateTasks { tools, stop }
    }
}

/// The session's tasks, and its Task tools when they are on (empty:
/// TodoWrite stays): `CLAUDE_CODE_ENABLE_TASKS`, or agent teams unless that
/// says no (a team shares its work through the list). The lists are under
/// Claude Code's config dir as [`Place`] finds it (`CLAUDE_CONFIG_DIR`,
/// else `~/.claude`).
pub(crate) fn session_task_tools(
    env: &Env,
    session_id: &str,
    hooks: Option<&Arc<SessionHooks>>,
    tell: Option<TellOwner>,
) -> (SessionTasks, Vec<Arc<dyn Tool>>) {
    let teams_on = tell.is_some();
    // `start` made its Place from this env, so this does not fail.
    let claude_dir = (Place::new(std::path::PathBuf::new(), env.clone()))
        .map(|place| place.claude_dir)
        .unwrap_or_default();
    let scope = TaskScope::new(
        claude_dir.clone(),
        env.get("CLAUDE_CODE_TASK_LIST_ID"),
        session_id,
    );
    let setting = env.get("CLAUDE_CODE_ENABLE_TASKS");
    let enabled = match setting.as_deref() {
        Some(value) => tasks_enabled(Some(value)),
        None => teams_on,
    };
    let tasks = SessionTasks {
        scope,
        hooks: hooks.map(Arc::downgrade),
        enabled,
        claude_dir: claude_dir.clone(),
        tell,
    };
    let own = Arc::new(SettingsTaskHooks {
        hooks: tasks.hooks.clone(),
        stop: None,
        claude_dir,
        tell,
    });
    let tools = match enabled {
        true => task_tools(tasks.scope.clone(), own),
        false => Vec::new(),
    };
    (tasks, tools)
}

/// The Task tools' hooks: the session's TaskCreated and TaskCompleted
/// settings hooks (weakly held: the hooks' services hold tools).
struct SettingsTaskHooks {
    hooks: Option<Weak<SessionHooks>>,
    /// A teammate's: set when a hook says `continue: false`.
    stop: Option<Arc<AtomicBool>>,
    /// Where the team's mailboxes are (task assignments).
    claude_dir: std::path::PathBuf,
    tell: Option<TellOwner>,
}

impl TaskHooks for SettingsTaskHooks {
    fn assigned(&self, assignment: &TaskAssignment) -> Result<(), String> {
        match self.tell {
            Some(tell) => tell(&self.claude_dir, assignment),
            None => Ok(()),
        }
    }

    fn run<'a>(
        &'a self,
        event: TaskHookEvent,
        input: TaskHookInput,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, TaskHookVerdict> {
        Box::pin(async move {
            let Some(hooks) = self.hooks.as_ref().and_then(Weak::upgrade) else {
                return TaskHookVerdict::default();
            };
            if !hooks.has(event.name()) {
                return TaskHookVerdict::default();
            }
            let fields = TaskHookFields {
                task_id: input.task_id,
                task_subject: input.task_subject,
                task_description: input.task_description,
                teammate_name: input.teammate_name,
                team_name: input.team_name,
            };
            let event = match event {
                TaskHookEvent::TaskCreated => HookEvent::TaskCreated(fields),
                TaskHookEvent::TaskCompleted => HookEvent::TaskCompleted(fields),
            };
            let outcome = hooks
                .run_for(&event, ctx.env.agent(), None, &ctx.cancel)
                .await;
            let stopped = (!outcome.should_continue()).then(|| {
                (outcome.stop_reason())
                    .unwrap_or("a hook stopped it (continue: false)")
                    .to_owned()
            });
            if let (Some(_), Some(stop)) = (&stopped, &self.stop) {
                stop.store(true, Ordering::SeqCst);
            }
            TaskHookVerdict {
                blocked: outcome.blocked(),
                stopped,
            }
        })
    }
}
