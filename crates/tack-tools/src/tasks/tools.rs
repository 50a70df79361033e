//! TaskCreate, TaskGet and TaskList: Claude Code's names, input schemas and
//! result texts (`docs/tasks.md`), over the list [`TaskScope`] names.

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::tasks::scope::{TaskHookEvent, TaskHookInput, TaskHooks, TaskScope};
use crate::tasks::store::{TaskError, TaskList};
use crate::tasks::task::{NewTask, Task, TaskStatus};
use crate::tool_input;

/// What the four Task tools share: the list they work on and the hooks.
pub(crate) struct TaskShared {
    pub scope: TaskScope,
    pub hooks: Arc<dyn TaskHooks>,
}

impl TaskShared {
    pub(crate) fn open(&self) -> Result<TaskList, ToolError> {
        self.scope.open().map_err(store_error)
    }

    /// The hook input for `task`, naming the teammate and team if any.
    pub(crate) fn hook_input(&self, task: &Task) -> TaskHookInput {
        TaskHookInput {
            task_id: task.id.clone(),
            task_subject: task.subject.clone(),
            task_description: task.description.clone(),
            teammate_name: self.scope.agent_name(),
            team_name: self.scope.team_name(),
        }
    }
}

/// A store failure, for the model (it names the file).
pub(crate) fn store_error(e: TaskError) -> ToolError {
    ToolError::new(tack_sys::error_text::chain(&e))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskCreateInput {
    /// A short title for the task, in the imperative ("Fix the login bug").
    subject: String,
    /// What needs to be done, in enough detail for whoever picks it up.
    description: String,
    /// Present continuous form shown in the spinner while the task is in progress (e.g. "Fixing the login bug").
    active_form: Option<String>,
    /// Arbitrary metadata to attach to the task.
    metadata: Option<Map<String, Value>>,
}

pub(crate) struct TaskCreateTool(pub Arc<TaskShared>);

const CREATE_DESCRIPTION: &str = "Adds a task to the shared task list (other agents on the same list see it at once).

- Use it to plan work with several steps, or work to hand to teammates; skip it for a single trivial step.
- `subject` is a short imperative title, `description` says what done means, `activeForm` is the spinner text while it runs (\"Running the tests\").
- New tasks are pending and unowned. Set dependencies, owners and status with TaskUpdate; see the list with TaskList.";

impl Tool for TaskCreateTool {
    fn name(&self) -> &str {
        "TaskCreate"
    }

    fn description(&self) -> String {
        CREATE_DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../../schemas/task_create.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        tool_input::parse::<TaskCreateInput>(self.name(), input).map(drop)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: TaskCreateInput = tool_input::parse(self.name(), &input)?;
            let list = self.0.open()?;
            let task = list
                .create(NewTask {
                    subject: input.subject,
                    description: input.description,
                    active_form: input.active_form,
                    metadata: input.metadata,
                })
                .map_err(store_error)?;
            let verdict = (self.0.hooks)
                .run(TaskHookEvent::TaskCreated, self.0.hook_input(&task), ctx)
                .await;
            if let Some(why) = verdict.blocked.or(verdict.stopped) {
                list.delete(&task.id).map_err(store_error)?;
                return Err(ToolError::new(format!("TaskCreated hook feedback:\n{why}")));
            }
            let text = format!("Task #{} created successfully: {}", task.id, task.subject);
            Ok(ToolOutput::text(text)
                .with_structured(json!({"task": {"id": task.id, "subject": task.subject}})))
        }
        .boxed()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskGetInput {
    /// The id of the task to read.
    task_id: String,
}

pub(crate) struct TaskGetTool(pub Arc<TaskShared>);

impl Tool for TaskGetTool {
    fn name(&self) -> &str {
        "TaskGet"
    }

    fn description(&self) -> String {
        "Reads one task of the shared task list by id: its subject, status, full description, and the tasks it blocks and is blocked by. Read a task before starting on it.".into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../../schemas/task_get.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        tool_input::parse::<TaskGetInput>(self.name(), input).map(drop)
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: TaskGetInput = tool_input::parse(self.name(), &input)?;
            let task = match self.0.open()?.get(&input.task_id) {
                Ok(task) => task,
                Err(TaskError::TaskId { .. }) => None,
                Err(e) => return Err(store_error(e)),
            };
            let Some(task) = task else {
                return Ok(
                    ToolOutput::text("Task not found").with_structured(json!({"task": null}))
                );
            };
            let mut lines = vec![
                format!("Task #{}: {}", task.id, task.subject),
                format!("Status: {}", task.status.as_str()),
                format!("Description: {}", task.description),
            ];
            if !task.blocked_by.is_empty() {
                lines.push(format!("Blocked by: {}", hashed(&task.blocked_by)));
            }
            if !task.blocks.is_empty() {
                lines.push(format!("Blocks: {}", hashed(&task.blocks)));
            }
            let structured = json!({"task": {"id": task.id, "subject": task.subject,
                "description": task.description, "status": task.status,
                "blocks": task.blocks, "blockedBy": task.blocked_by}});
            Ok(ToolOutput::text(lines.join("\n")).with_structured(structured))
        }
        .boxed()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TaskListInput {}

pub(crate) struct TaskListTool(pub Arc<TaskShared>);

impl Tool for TaskListTool {
    fn name(&self) -> &str {
        "TaskList"
    }

    fn description(&self) -> String {
        "Lists the shared task list: each task's id, status, subject, owner, and the unfinished tasks it still waits for. Use it to find the next task to claim (pending, unowned, not blocked; lowest id first) and to see what teammates are doing.".into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../../schemas/task_list.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        tool_input::parse::<TaskListInput>(self.name(), input).map(drop)
    }

    fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let all = self.0.open()?.list().map_err(store_error)?;
            let tasks: Vec<&Task> = all.iter().filter(|t| !t.is_internal()).collect();
            let done = |id: &String| {
                tasks
                    .iter()
                    .any(|t| &t.id == id && t.status == TaskStatus::Completed)
            };
            let rows: Vec<(&Task, Vec<String>)> = tasks
                .iter()
                .map(|t| {
                    (
                        *t,
                        t.blocked_by.iter().filter(|b| !done(b)).cloned().collect(),
                    )
                })
                .collect();
            let structured = json!({"tasks": rows.iter().map(|(t, waiting)| {
                let mut row = json!({"id": t.id, "subject": t.subject, "status": t.status,
                                     "blockedBy": waiting});
                if let Some(owner) = &t.owner {
                    row["owner"] = json!(owner);
                }
                row
            }).collect::<Vec<_>>()});
            if rows.is_empty() {
                return Ok(ToolOutput::text("No tasks found").with_structured(structured));
            }
            let lines: Vec<String> = rows
                .iter()
                .map(|(t, waiting)| {
                    let owner = t
                        .owner
                        .as_ref()
                        .map(|o| format!(" ({o})"))
                        .unwrap_or_default();
                    let blocked = match waiting.is_empty() {
                        true => String::new(),
                        false => format!(" [blocked by {}]", hashed(waiting)),
                    };
                    format!(
                        "#{} [{}] {}{owner}{blocked}",
                        t.id,
                        t.status.as_str(),
                        t.subject
                    )
                })
                .collect();
            Ok(ToolOutput::text(lines.join("\n")).with_structured(structured))
        }
        .boxed()
    }
}

/// `#1, #2`.
pub(crate) fn hashed(ids: &[String]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}
