//! Claude Code's shared task lists: the store other code calls
//! ([`TaskList`]: `open`, `create`, `get`, `update`, `claim`, `list`, …,
//! every write atomic and under the list's lock) and the four tools over it,
//! TaskCreate, TaskGet, TaskUpdate and TaskList, which a session offers
//! instead of TodoWrite when `CLAUDE_CODE_ENABLE_TASKS` is on.
//!
//! - a task as stored (`<n>.json`, unknown keys kept): `task.rs`
//! - the folder, its lock and `.highwatermark`: `store.rs`
//! - which list (`CLAUDE_CODE_TASK_LIST_ID`, team, session), the hooks seam: `scope.rs`
//! - the tools: `tools.rs` (TaskCreate, TaskGet, TaskList), `update.rs`
//!
//! What Claude Code does and what tack chose: `docs/tasks.md`.

mod scope;
mod store;
mod task;
mod tools;
mod update;

use std::sync::Arc;

use tack_tool::Tool;

pub use scope::{
    NoTaskHooks, TaskAssignment, TaskHookEvent, TaskHookInput, TaskHookVerdict, TaskHooks,
    TaskScope, list_dir, tasks_enabled,
};
pub use store::{ClaimRefused, MAX_TASK_BYTES, TaskError, TaskList, open_blockers};
pub use task::{NewTask, Task, TaskStatus};

#[cfg(test)]
pub(crate) use tools::{TaskCreateInput, TaskGetInput, TaskListInput};
#[cfg(test)]
pub(crate) use update::TaskUpdateInput;

/// The names of the Task tools.
pub const TASK_TOOL_NAMES: [&str; 4] = ["TaskCreate", "TaskGet", "TaskUpdate", "TaskList"];

/// TaskCreate, TaskGet, TaskUpdate and TaskList over `scope`'s list, firing
/// `hooks`.
pub fn task_tools(scope: TaskScope, hooks: Arc<dyn TaskHooks>) -> Vec<Arc<dyn Tool>> {
    let shared = Arc::new(tools::TaskShared { scope, hooks });
    vec![
        Arc::new(tools::TaskCreateTool(shared.clone())),
        Arc::new(tools::TaskGetTool(shared.clone())),
        Arc::new(update::TaskUpdateTool(shared.clone())),
        Arc::new(tools::TaskListTool(shared)),
    ]
}
