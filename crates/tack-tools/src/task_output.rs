//! TaskOutput (legacy name BashOutput): new output of a background task since the
//! last read, and its status.

use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::bg_tasks::{BackgroundTasks, TaskStatus};
use crate::tool_input;

const DEFAULT_WAIT_MS: u64 = 30_000;
const MAX_WAIT_MS: u64 = 600_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TaskOutputInput {
    /// The id of the background task (returned when it was started).
    #[serde(alias = "bash_id")]
    task_id: Option<String>,
    /// Wait for the task to finish before returning (default: true; false when called by the legacy `bash_id`).
    block: Option<bool>,
    /// How long to wait when blocking, in milliseconds (default 30000).
    timeout: Option<u64>,
    /// Regular expression: only output lines matching it are returned (the others are consumed too).
    filter: Option<String>,
}

impl TaskOutputInput {
    fn id(&self) -> Result<&str, ToolError> {
        self.task_id
            .as_deref()
            .ok_or_else(|| ToolError::new("`task_id` is required: the id of the background task."))
    }
}

#[derive(Debug)]
pub(crate) struct TaskOutputTool {
    tasks: BackgroundTasks,
}

impl TaskOutputTool {
    pub(crate) fn new(tasks: BackgroundTasks) -> Self {
        TaskOutputTool { tasks }
    }
}

const DESCRIPTION: &str = "Returns the output a background task (started by Bash with `run_in_background`) has written since the last call, with its status (running, completed, failed, killed) and exit code once done.

- By default waits up to `timeout` ms (30 s) for the task to finish; set `block` to false to just poll.
- `filter` keeps only lines matching a regular expression; the other lines are consumed too.
- The full output is also in the file named when the task started; Read it to see everything.";

impl Tool for TaskOutputTool {
    fn name(&self) -> &str {
        "TaskOutput"
    }

    fn aliases(&self) -> &[&str] {
        &["BashOutput"]
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        let mut schema = tool_input::stored_schema(include_str!("../schemas/task_output.json"));
        // `task_id` is optional in the type only so that `bash_id` (legacy) can stand in for it.
        schema["required"] = json!(["task_id"]);
        schema
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: TaskOutputInput = tool_input::parse(self.name(), input)?;
        input.id()?;
        if let Some(filter) = &input.filter {
            Regex::new(filter).map_err(|e| ToolError::new(format!("Invalid filter regex: {e}")))?;
        }
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let legacy = input.get("bash_id").is_some() && input.get("task_id").is_none();
            let input: TaskOutputInput = tool_input::parse(self.name(), &input)?;
            let id = input.id()?;
            let filter = match &input.filter {
                Some(f) => Some(
                    Regex::new(f)
                        .map_err(|e| ToolError::new(format!("Invalid filter regex: {e}")))?,
                ),
                None => None,
            };
            let task = self
                .tasks
                .get(id)
                .ok_or_else(|| ToolError::new(format!("No task found with ID: {id}")))?;
            if input.block.unwrap_or(!legacy) && task.status() == TaskStatus::Running {
                let wait = Duration::from_millis(
                    input.timeout.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS),
                );
                tokio::select! {
                    _ = task.finished() => {}
                    () = tokio::time::sleep(wait) => {}
                    () = ctx.cancel.cancelled() => {}
                }
            }
            let status = task.status();
            let new = task
                .read_new()
                .map_err(|e| ToolError::new(format!("Cannot read the task's output: {e}")))?;
            let mut output = match &filter {
                Some(re) => new
                    .text
                    .lines()
                    .filter(|l| re.is_match(l))
                    .collect::<Vec<_>>()
                    .join("\n"),
                None => new.text.trim_end_matches('\n').to_string(),
            };
            if new.skipped > 0 {
                output = format!(
                    "[{} earlier bytes not shown; the full output is in {}]\n{output}",
                    new.skipped,
                    task.output_path.display()
                );
            }
            let mut text = format!(
                "<task_id>{}</task_id>\n\n<status>{}</status>\n",
                task.id,
                status.label()
            );
            if let Some(code) = status.exit_code() {
                text.push_str(&format!("\n<exit_code>{code}</exit_code>\n"));
            }
            if output.is_empty() {
                text.push_str("\n(no new output)");
            } else {
                text.push_str(&format!("\n<output>\n{output}\n</output>"));
            }
            Ok(ToolOutput::text(text).with_structured(json!({
                "task_id": task.id,
                "command": task.command,
                "status": status.label(),
                "exitCode": status.exit_code(),
                "outputFile": task.output_path,
            })))
        }
        .boxed()
    }
}
