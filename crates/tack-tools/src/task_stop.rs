//! TaskStop (legacy names KillShell, KillBash): stops a background task and
//! everything it started.

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::bg_tasks::BackgroundTasks;
use crate::tool_input;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TaskStopInput {
    /// The id of the background task to stop.
    task_id: Option<String>,
    /// Deprecated: use `task_id`.
    shell_id: Option<String>,
}

impl TaskStopInput {
    fn id(&self) -> Result<&str, ToolError> {
        self.task_id
            .as_deref()
            .or(self.shell_id.as_deref())
            .ok_or_else(|| {
                ToolError::new("`task_id` is required: the id of the background task to stop.")
            })
    }
}

#[derive(Debug)]
pub(crate) struct TaskStopTool {
    tasks: BackgroundTasks,
}

impl TaskStopTool {
    pub(crate) fn new(tasks: BackgroundTasks) -> Self {
        TaskStopTool { tasks }
    }
}

impl Tool for TaskStopTool {
    fn name(&self) -> &str {
        "TaskStop"
    }

    fn aliases(&self) -> &[&str] {
        &["KillShell", "KillBash"]
    }

    fn description(&self) -> String {
        "Stops a running background task by id: the task and every process it started get SIGTERM, then SIGKILL if they do not exit.".into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/task_stop.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: TaskStopInput = tool_input::parse(self.name(), input)?;
        input.id().map(|_| ())
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: TaskStopInput = tool_input::parse(self.name(), &input)?;
            let id = input.id()?;
            let command = self
                .tasks
                .stop_by_id(id)
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            Ok(
                ToolOutput::text(format!("Successfully stopped task: {id} ({})", command))
                    .with_structured(json!({"task_id": id, "command": command})),
            )
        }
        .boxed()
    }
}
