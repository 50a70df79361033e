//! TodoWrite: the session's todo list, replaced whole on each call and shown by
//! the UI through [`TodoList`].

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};
use tokio::sync::watch;

use crate::tool_input;

pub use tack_protocol::todo::{TodoItem, TodoStatus};

/// The session's todo list: a cheap, cloneable handle. TodoWrite replaces the
/// list; a UI reads it with [`TodoList::items`] or follows it with
/// [`TodoList::subscribe`].
#[derive(Debug, Clone)]
pub struct TodoList {
    tx: Arc<watch::Sender<Vec<TodoItem>>>,
}

impl Default for TodoList {
    fn default() -> Self {
        TodoList {
            tx: Arc::new(watch::channel(Vec::new()).0),
        }
    }
}

impl TodoList {
    /// The current list.
    pub fn items(&self) -> Vec<TodoItem> {
        self.tx.borrow().clone()
    }

    /// A receiver that sees every replacement of the list.
    pub fn subscribe(&self) -> watch::Receiver<Vec<TodoItem>> {
        self.tx.subscribe()
    }

    /// Replaces the list (TodoWrite; also for restoring a resumed session).
    pub fn set(&self, items: Vec<TodoItem>) {
        self.tx.send_replace(items);
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct TodoWriteInput {
    /// The whole updated todo list.
    todos: Vec<TodoItem>,
}

#[derive(Debug)]
pub(crate) struct TodoWriteTool {
    todos: TodoList,
}

impl TodoWriteTool {
    pub(crate) fn new(todos: TodoList) -> Self {
        TodoWriteTool { todos }
    }
}

const DESCRIPTION: &str = "Keeps a structured todo list for the current task, shown to the user.

- Use it for work with three or more steps, or when the user gives several tasks; skip it for trivial one-step requests.
- Each call replaces the whole list. Items have `content` (imperative: \"Fix the parser\"), `activeForm` (continuous: \"Fixing the parser\") and `status`: pending, in_progress or completed.
- Keep exactly one item in_progress while working. Mark an item completed as soon as it is done, and only when it is fully done (tests pass, nothing left half-finished); add new items as you discover them.";

impl Tool for TodoWriteTool {
    fn name(&self) -> &str {
        "TodoWrite"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/todo_write.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: TodoWriteInput = tool_input::parse(self.name(), input)?;
        check(&input.todos)
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: TodoWriteInput = tool_input::parse(self.name(), &input)?;
            check(&input.todos)?;
            let old = self.todos.items();
            let count = |s: TodoStatus| input.todos.iter().filter(|t| t.status == s).count();
            let text = format!(
                "Todo list updated: {} completed, {} in progress, {} pending. Keep it current as you work, and carry on with the tasks in progress.",
                count(TodoStatus::Completed),
                count(TodoStatus::InProgress),
                count(TodoStatus::Pending)
            );
            let structured = json!({"oldTodos": old, "newTodos": input.todos});
            self.todos.set(input.todos);
            Ok(ToolOutput::text(text).with_structured(structured))
        }
        .boxed()
    }
}

fn check(todos: &[TodoItem]) -> Result<(), ToolError> {
    for (i, t) in todos.iter().enumerate() {
        if t.content.trim().is_empty() {
            return Err(ToolError::new(format!(
                "todos[{i}].content is empty: describe the task."
            )));
        }
        if t.active_form.trim().is_empty() {
            return Err(ToolError::new(format!(
                "todos[{i}].activeForm is empty: give the task in present continuous form (e.g. \"Running the tests\")."
            )));
        }
    }
    Ok(())
}
