//! TaskUpdate: changes one task's fields, status, owner, metadata and
//! dependencies, or deletes it. Completing a task runs the TaskCompleted
//! hooks first; a block keeps it open and the model reads why.
//!
//! What changes is decided against the task as read, then written under the
//! list's lock onto the task as it is then (only the changed fields), so a
//! concurrent update of other fields by another agent is kept.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::tasks::scope::{TaskAssignment, TaskHookEvent};
use crate::tasks::store::{TaskError, TaskList};
use crate::tasks::task::{Task, TaskStatus};
use crate::tasks::tools::{TaskShared, store_error};
use crate::tool_input;

/// A status TaskUpdate sets; `deleted` removes the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum UpdateStatus {
    Pending,
    InProgress,
    Completed,
    Deleted,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskUpdateInput {
    /// The id of the task to update.
    task_id: String,
    /// A new subject for the task.
    subject: Option<String>,
    /// A new description for the task.
    description: Option<String>,
    /// Present continuous form shown in the spinner while the task is in progress (e.g. "Running tests").
    active_form: Option<String>,
    /// The new status; `deleted` removes the task.
    status: Option<UpdateStatus>,
    /// Ids of tasks that cannot start until this one is completed.
    add_blocks: Option<Vec<String>>,
    /// Ids of tasks that must be completed before this one can start.
    add_blocked_by: Option<Vec<String>>,
    /// The new owner (an agent's name).
    owner: Option<String>,
    /// Metadata keys to merge into the task; a key set to null is removed.
    metadata: Option<Map<String, Value>>,
}

pub(crate) struct TaskUpdateTool(pub Arc<TaskShared>);

const DESCRIPTION: &str = "Changes a task of the shared task list: status, subject, description, activeForm, owner, metadata, or dependencies.

- Claim a task by setting `owner` to your name and `status` to in_progress before working on it; mark it completed only when it is fully done (a TaskCompleted hook may refuse, saying why).
- `addBlocks` / `addBlockedBy` record dependencies on both tasks; a task is free to start once every task it is blocked by is completed.
- `status: \"deleted\"` removes a task that is no longer needed. `metadata` keys are merged; a key set to null is removed.";

/// The fields an update changes, decided against the task as read.
#[derive(Debug, Default)]
struct Changes {
    subject: Option<String>,
    description: Option<String>,
    active_form: Option<String>,
    owner: Option<String>,
    metadata: Option<Map<String, Value>>,
    status: Option<TaskStatus>,
    /// Names of the changed fields, in Claude Code's order.
    fields: Vec<&'static str>,
}

impl Changes {
    fn apply(self, task: &mut Task) {
        let Changes {
            subject,
            description,
            active_form,
            owner,
            metadata,
            status,
            fields: _,
        } = self;
        if let Some(v) = subject {
            task.subject = v;
        }
        if let Some(v) = description {
            task.description = v;
        }
        if let Some(v) = active_form {
            task.active_form = Some(v);
        }
        if let Some(v) = owner {
            task.owner = Some(v);
        }
        if let Some(m) = metadata {
            task.merge_metadata(&m);
        }
        if let Some(s) = status {
            task.status = s;
        }
    }
}

/// What the model reads when the update did not happen.
fn refused(task_id: &str, error: &str) -> ToolOutput {
    ToolOutput::text(error).with_structured(
        json!({"success": false, "taskId": task_id, "updatedFields": [], "error": error}),
    )
}

impl TaskUpdateTool {
    /// The changes `input` makes to `existing`, without its status.
    fn changes(&self, input: &mut TaskUpdateInput, existing: &Task) -> Changes {
        let mut c = Changes::default();
        let owner_given = input.owner.is_some();
        if let Some(v) = input.subject.take().filter(|v| *v != existing.subject) {
            c.subject = Some(v);
            c.fields.push("subject");
        }
        if let Some(v) = input
            .description
            .take()
            .filter(|v| *v != existing.description)
        {
            c.description = Some(v);
            c.fields.push("description");
        }
        if let Some(v) =
            (input.active_form.take()).filter(|v| Some(v) != existing.active_form.as_ref())
        {
            c.active_form = Some(v);
            c.fields.push("activeForm");
        }
        if let Some(v) = input
            .owner
            .take()
            .filter(|v| Some(v) != existing.owner.as_ref())
        {
            c.owner = Some(v);
            c.fields.push("owner");
        }
        // A teammate starting an unowned task takes it.
        let starts = input.status == Some(UpdateStatus::InProgress);
        let teammate = (self.0.scope.agent_name()).filter(|_| self.0.scope.team_name().is_some());
        if starts
            && !owner_given
            && existing.owner.is_none()
            && let Some(me) = teammate
        {
            c.owner = Some(me);
            c.fields.push("owner");
        }
        if let Some(m) = input.metadata.take() {
            c.metadata = Some(m);
            c.fields.push("metadata");
        }
        c
    }

    /// Records `ids` as blocked by (`forward`) or blocking `task_id`; true
    /// when any edge was new and both tasks exist.
    fn link(
        list: &TaskList,
        task_id: &str,
        ids: &[String],
        known: &[String],
        forward: bool,
    ) -> Result<bool, TaskError> {
        let mut any = false;
        for other in ids
            .iter()
            .filter(|id| !known.contains(id) && *id != task_id)
        {
            let linked = match forward {
                true => list.block(task_id, other),
                false => list.block(other, task_id),
            };
            any |= match linked {
                Ok(linked) => linked,
                Err(TaskError::TaskId { .. }) => false,
                Err(e) => return Err(e),
            };
        }
        Ok(any)
    }

    /// In a team, tells the task's new `owner` (not the agent itself) it
    /// was given the task; what went wrong, if anything, for the model.
    fn tell_owner(&self, task: &Task, owner: String) -> Option<String> {
        let team_name = self.0.scope.team_name()?;
        let assigned_by = (self.0.scope.agent_name()).unwrap_or_else(|| "team-lead".to_owned());
        if owner == assigned_by {
            return None;
        }
        let assignment = TaskAssignment {
            task_id: task.id.clone(),
            subject: task.subject.clone(),
            description: task.description.clone(),
            owner,
            assigned_by,
            team_name,
        };
        let told = self.0.hooks.assigned(&assignment);
        told.err()
            .map(|e| format!("{} was not told of the task: {e}", assignment.owner))
    }

    async fn update(&self, mut input: TaskUpdateInput, ctx: &ToolContext) -> ToolResult {
        let list = self.0.open()?;
        let id = input.task_id.clone();
        let existing = match list.get(&id) {
            Ok(Some(task)) => task,
            Ok(None) | Err(TaskError::TaskId { .. }) => return Ok(refused(&id, "Task not found")),
            Err(e) => return Err(store_error(e)),
        };
        let mut changes = self.changes(&mut input, &existing);
        let status = match input.status {
            None => None,
            Some(UpdateStatus::Deleted) => {
                return match list.delete(&id).map_err(store_error)? {
                    true => Ok(ToolOutput::text(format!("Updated task #{id} deleted"))
                        .with_structured(json!({"success": true, "taskId": id,
                            "updatedFields": ["deleted"],
                            "statusChange": {"from": existing.status, "to": "deleted"}}))),
                    false => Ok(refused(&id, "Failed to delete task")),
                };
            }
            Some(UpdateStatus::Pending) => Some(TaskStatus::Pending),
            Some(UpdateStatus::InProgress) => Some(TaskStatus::InProgress),
            Some(UpdateStatus::Completed) => Some(TaskStatus::Completed),
        };
        if let Some(status) = status.filter(|s| *s != existing.status) {
            if status == TaskStatus::Completed {
                let verdict = (self.0.hooks)
                    .run(
                        TaskHookEvent::TaskCompleted,
                        self.0.hook_input(&existing),
                        ctx,
                    )
                    .await;
                if let Some(why) = verdict.blocked.or(verdict.stopped) {
                    return Ok(refused(
                        &id,
                        &format!("TaskCompleted hook feedback:\n{why}"),
                    ));
                }
            }
            changes.status = Some(status);
            changes.fields.push("status");
        }
        let status_change = changes
            .status
            .map(|to| json!({"from": existing.status, "to": to}));
        let mut fields = changes.fields.clone();
        let new_owner = changes.owner.clone();
        if !fields.is_empty()
            && list
                .update(&id, |t| changes.apply(t))
                .map_err(store_error)?
                .is_none()
        {
            return Ok(refused(&id, "Task not found"));
        }
        let blocks = input.add_blocks.unwrap_or_default();
        if Self::link(&list, &id, &blocks, &existing.blocks, true).map_err(store_error)? {
            fields.push("blocks");
        }
        let blocked_by = input.add_blocked_by.unwrap_or_default();
        if Self::link(&list, &id, &blocked_by, &existing.blocked_by, false).map_err(store_error)? {
            fields.push("blockedBy");
        }
        let mut text = format!("Updated task #{id} {}", fields.join(", "));
        let teammate = self.0.scope.agent_name().is_some() && self.0.scope.team_name().is_some();
        if teammate && status == Some(TaskStatus::Completed) {
            text.push_str("\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others.");
        }
        if let Some(problem) = new_owner.and_then(|owner| self.tell_owner(&existing, owner)) {
            text.push_str(&format!("\n\n{problem}"));
        }
        let mut structured = json!({"success": true, "taskId": id, "updatedFields": fields});
        if let Some(change) = status_change {
            structured["statusChange"] = change;
        }
        Ok(ToolOutput::text(text.trim_end()).with_structured(structured))
    }
}

impl Tool for TaskUpdateTool {
    fn name(&self) -> &str {
        "TaskUpdate"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../../schemas/task_update.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        tool_input::parse::<TaskUpdateInput>(self.name(), input).map(drop)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: TaskUpdateInput = tool_input::parse(self.name(), &input)?;
            self.update(input, ctx).await
        }
        .boxed()
    }
}
