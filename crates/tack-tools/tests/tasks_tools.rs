//! TaskCreate, TaskGet, TaskUpdate and TaskList called as the loop calls
//! them: Claude Code's result texts, the files they leave, and the hooks'
//! say over creating and completing a task.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolEnv};
use tack_tools::tasks::{
    TaskHookEvent, TaskHookInput, TaskHookVerdict, TaskHooks, TaskScope, task_tools,
};

/// Records each hook call; blocks the events listed in `block`.
#[derive(Default)]
struct Hooks {
    calls: Mutex<Vec<(TaskHookEvent, TaskHookInput)>>,
    block: Mutex<Vec<(TaskHookEvent, String)>>,
}

impl TaskHooks for Hooks {
    fn run<'a>(
        &'a self,
        event: TaskHookEvent,
        input: TaskHookInput,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, TaskHookVerdict> {
        self.calls.lock().unwrap().push((event, input));
        let blocked = (self.block.lock().unwrap().iter())
            .find(|(e, _)| *e == event)
            .map(|(_, why)| why.clone());
        Box::pin(async move {
            TaskHookVerdict {
                blocked,
                stopped: None,
            }
        })
    }
}

struct Fixture {
    _tmp: tempfile::TempDir,
    claude: std::path::PathBuf,
    tools: Vec<Arc<dyn Tool>>,
    hooks: Arc<Hooks>,
    ctx: ToolContext,
    scope: TaskScope,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let claude = tmp.path().join("claude");
    let scope = TaskScope::new(claude.clone(), None, "sess-1");
    let hooks = Arc::new(Hooks::default());
    let tools = task_tools(scope.clone(), hooks.clone());
    let env = Arc::new(ToolEnv::new(tmp.path().into(), tmp.path().into()));
    Fixture {
        ctx: ToolContext::standalone("toolu_1", env),
        _tmp: tmp,
        claude,
        tools,
        hooks,
        scope,
    }
}

impl Fixture {
    /// The call's text (errors as the model sees them) and structured result.
    async fn call(&self, name: &str, input: Value) -> (String, Option<Value>) {
        let tool = self.tools.iter().find(|t| t.name() == name).unwrap();
        tool.validate(&input, &self.ctx).unwrap();
        match tool.call(input, &self.ctx).await {
            Ok(out) => {
                let text = match out.content {
                    tack_protocol::ToolResultContent::Text(t) => t,
                    other => panic!("{other:?}"),
                };
                (text, out.structured)
            }
            Err(e) => (e.to_tool_result_text(), None),
        }
    }

    async fn text(&self, name: &str, input: Value) -> String {
        self.call(name, input).await.0
    }

    fn file(&self, list: &str, id: &str) -> Value {
        let path = self
            .claude
            .join("tasks")
            .join(list)
            .join(format!("{id}.json"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }
}

#[tokio::test]
async fn create_block_claim_and_complete_as_claude_code_words_it() {
    let f = fixture();
    assert_eq!(f.text("TaskList", json!({})).await, "No tasks found");
    for (s, a) in [
        ("Write the parser", "Writing"),
        ("Test it", "Testing"),
        ("Ship", "Shipping"),
    ] {
        f.call(
            "TaskCreate",
            json!({"subject": s, "description": format!("{s} well"), "activeForm": a}),
        )
        .await;
    }
    assert_eq!(
        f.call("TaskCreate", json!({"subject": "Doc", "description": "d"}))
            .await,
        (
            "Task #4 created successfully: Doc".to_owned(),
            Some(json!({"task": {"id": "4", "subject": "Doc"}}))
        )
    );
    assert_eq!(
        f.text(
            "TaskUpdate",
            json!({"taskId": "2", "addBlockedBy": ["1"], "addBlocks": ["3"]})
        )
        .await,
        "Updated task #2 blocks, blockedBy"
    );
    assert_eq!(
        f.text("TaskUpdate", json!({"taskId": "4", "status": "deleted"}))
            .await,
        "Updated task #4 deleted"
    );
    assert_eq!(
        f.text(
            "TaskUpdate",
            json!({"taskId": "1", "owner": "ann", "status": "in_progress"})
        )
        .await,
        "Updated task #1 owner, status"
    );
    assert_eq!(
        f.text("TaskList", json!({})).await,
        "#1 [in_progress] Write the parser (ann)\n#2 [pending] Test it [blocked by #1]\n#3 [pending] Ship [blocked by #2]"
    );
    assert_eq!(
        f.text("TaskGet", json!({"taskId": "2"})).await,
        "Task #2: Test it\nStatus: pending\nDescription: Test it well\nBlocked by: #1\nBlocks: #3"
    );
    assert_eq!(
        f.call(
            "TaskUpdate",
            json!({"taskId": "1", "status": "completed", "metadata": {"pr": 7}})
        )
        .await,
        (
            "Updated task #1 metadata, status".to_owned(),
            Some(
                json!({"success": true, "taskId": "1", "updatedFields": ["metadata", "status"],
                        "statusChange": {"from": "in_progress", "to": "completed"}})
            )
        )
    );
    assert_eq!(
        f.text("TaskList", json!({})).await,
        "#1 [completed] Write the parser (ann)\n#2 [pending] Test it\n#3 [pending] Ship [blocked by #2]",
        "a completed task blocks nothing"
    );
    assert_eq!(
        f.file("sess-1", "1"),
        json!({"id": "1", "subject": "Write the parser", "description": "Write the parser well",
               "activeForm": "Writing", "status": "completed", "owner": "ann",
               "blocks": ["2"], "blockedBy": [], "metadata": {"pr": 7}})
    );
    assert_eq!(
        f.text("TaskGet", json!({"taskId": "9"})).await,
        "Task not found"
    );
    assert_eq!(
        f.text("TaskGet", json!({"taskId": "../1"})).await,
        "Task not found"
    );
    assert_eq!(
        f.text("TaskUpdate", json!({"taskId": "9", "status": "completed"}))
            .await,
        "Task not found"
    );
    let calls: Vec<(TaskHookEvent, String)> = (f.hooks.calls.lock().unwrap().iter())
        .map(|(e, i)| (*e, i.task_id.clone()))
        .collect();
    assert_eq!(
        calls,
        ["1", "2", "3", "4"]
            .map(|id| (TaskHookEvent::TaskCreated, id.to_owned()))
            .into_iter()
            .chain([(TaskHookEvent::TaskCompleted, "1".to_owned())])
            .collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn hooks_can_refuse_a_creation_or_a_completion_and_the_model_reads_why() {
    let f = fixture();
    f.hooks
        .block
        .lock()
        .unwrap()
        .push((TaskHookEvent::TaskCreated, "no vague tasks".into()));
    assert_eq!(
        f.text(
            "TaskCreate",
            json!({"subject": "Stuff", "description": "d"})
        )
        .await,
        "<tool_use_error>TaskCreated hook feedback:\nno vague tasks</tool_use_error>"
    );
    assert!(
        !f.claude.join("tasks/sess-1/1.json").exists(),
        "the refused task is gone"
    );
    f.hooks.block.lock().unwrap().clear();
    assert_eq!(
        f.text("TaskCreate", json!({"subject": "Real", "description": "d"}))
            .await,
        "Task #2 created successfully: Real",
        "the refused task's id is not handed out again"
    );
    f.hooks
        .block
        .lock()
        .unwrap()
        .push((TaskHookEvent::TaskCompleted, "tests fail".into()));
    assert_eq!(
        f.call("TaskUpdate", json!({"taskId": "2", "status": "completed"}))
            .await,
        (
            "TaskCompleted hook feedback:\ntests fail".to_owned(),
            Some(json!({"success": false, "taskId": "2", "updatedFields": [],
                        "error": "TaskCompleted hook feedback:\ntests fail"}))
        )
    );
    assert_eq!(f.file("sess-1", "2")["status"], "pending");
    let last = f.hooks.calls.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        last,
        (
            TaskHookEvent::TaskCompleted,
            TaskHookInput {
                task_id: "2".into(),
                task_subject: "Real".into(),
                task_description: "d".into(),
                teammate_name: None,
                team_name: None,
            }
        )
    );
}

#[tokio::test]
async fn a_teammate_takes_the_task_it_starts_and_works_on_the_teams_list() {
    let f = fixture();
    f.scope.join_team("crew", Some("team-lead"));
    let mate = f.scope.for_teammate("crew", "writer-1");
    let mate_tools = task_tools(mate, f.hooks.clone());
    f.call("TaskCreate", json!({"subject": "A", "description": "a"}))
        .await;
    let update = mate_tools
        .iter()
        .find(|t| t.name() == "TaskUpdate")
        .unwrap();
    let out = update
        .call(json!({"taskId": "1", "status": "in_progress"}), &f.ctx)
        .await
        .unwrap();
    assert_eq!(
        out.structured.unwrap()["updatedFields"],
        json!(["owner", "status"])
    );
    assert_eq!(f.file("crew", "1")["owner"], "writer-1");
    let done = update
        .call(json!({"taskId": "1", "status": "completed"}), &f.ctx)
        .await
        .unwrap();
    assert_eq!(
        done.content,
        tack_protocol::ToolResultContent::Text("Updated task #1 status\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others.".into())
    );
    let last = f.hooks.calls.lock().unwrap().last().cloned().unwrap().1;
    assert_eq!(
        (last.teammate_name.as_deref(), last.team_name.as_deref()),
        (Some("writer-1"), Some("crew"))
    );
    let pinned = TaskScope::new(f.claude.clone(), Some("shared".into()), "sess-1");
    pinned.join_team("crew", None);
    assert_eq!(
        pinned.list_id(),
        "shared",
        "CLAUDE_CODE_TASK_LIST_ID wins over the team"
    );
}

#[tokio::test]
async fn a_hostile_list_id_is_an_error_naming_it() {
    let f = fixture();
    let scope = TaskScope::new(f.claude.clone(), Some("../../outside".into()), "s");
    let tools = task_tools(scope, f.hooks.clone());
    let create = tools.iter().find(|t| t.name() == "TaskCreate").unwrap();
    let err = create
        .call(json!({"subject": "x", "description": "y"}), &f.ctx)
        .await
        .unwrap_err();
    assert_eq!(
        err.message,
        "task list id \"../../outside\" is refused: a list id names one folder: no `/`, `\\`, `..` or NUL"
    );
    assert!(
        !f.claude.join("outside").exists() && !f.claude.parent().unwrap().join("outside").exists()
    );
}
