//! One task of a shared task list, in Claude Code's shape: the `<n>.json`
//! file of `~/.claude/tasks/<list id>/` (see `docs/tasks.md`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a task stands. Deletion is not a status: a deleted task's file is
/// removed (`TaskUpdate` with `status: "deleted"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    InProgress,
    Completed,
}

impl TaskStatus {
    /// The name in files and tool results (`in_progress`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Completed => "completed",
        }
    }
}

/// A task as stored. Keys tack does not know (a newer Claude Code's, or
/// `createdAt` / `updatedAt` some versions write) are kept in `other` and
/// written back unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The decimal id, the file's name without `.json`.
    pub id: String,
    pub subject: String,
    pub description: String,
    /// What the spinner says while the task is in progress ("Running tests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_form: Option<String>,
    pub status: TaskStatus,
    /// The agent that claimed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Tasks that cannot start until this one is completed.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// Tasks that must be completed before this one can start.
    #[serde(default)]
    pub blocked_by: Vec<String>,
    /// Free-form; `{"_internal": true}` marks a teammate's own tracking task,
    /// which TaskList leaves out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// What a new task starts with; it is `pending`, unowned and unblocked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewTask {
    pub subject: String,
    pub description: String,
    pub active_form: Option<String>,
    pub metadata: Option<Map<String, Value>>,
}

impl Task {
    /// A new task with id `id`.
    pub(crate) fn new(id: String, new: NewTask) -> Task {
        Task {
            id,
            subject: new.subject,
            description: new.description,
            active_form: new.active_form,
            status: TaskStatus::Pending,
            owner: None,
            blocks: Vec::new(),
            blocked_by: Vec::new(),
            metadata: new.metadata,
            other: Map::new(),
        }
    }

    /// A teammate's own tracking task (`metadata._internal`), hidden from
    /// TaskList.
    pub fn is_internal(&self) -> bool {
        self.metadata
            .as_ref()
            .and_then(|m| m.get("_internal"))
            .is_some_and(|v| v.as_bool() == Some(true))
    }

    /// Merges `changes` into the metadata: a `null` value removes its key
    /// (TaskUpdate's rule).
    pub fn merge_metadata(&mut self, changes: &Map<String, Value>) {
        let merged = self.metadata.get_or_insert_with(Map::new);
        for (key, value) in changes {
            match value {
                Value::Null => merged.remove(key),
                v => merged.insert(key.clone(), v.clone()),
            };
        }
    }
}
