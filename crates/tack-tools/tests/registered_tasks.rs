//! Tasks run by their owner (background sub-agents) in the registry that
//! background shells use: read with TaskOutput, stopped with TaskStop.

use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_tool::{ToolContext, ToolEnv};
use tack_tools::{BackgroundTasks, BuiltinOptions, TaskEnd, builtin_tools_with, find_tool};

struct Fixture {
    _tmp: tempfile::TempDir,
    env: Arc<ToolEnv>,
    tasks: BackgroundTasks,
    tools: Vec<Arc<dyn tack_tool::Tool>>,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let env = Arc::new(ToolEnv::new(
        tmp.path().to_path_buf(),
        tmp.path().join("session"),
    ));
    let tasks = BackgroundTasks::new(Duration::from_millis(100));
    let options = BuiltinOptions {
        tasks: Some(tasks.clone()),
        ..BuiltinOptions::default()
    };
    let tools = builtin_tools_with(&env, options);
    Fixture {
        _tmp: tmp,
        env,
        tasks,
        tools,
    }
}

impl Fixture {
    async fn call(&self, name: &str, input: serde_json::Value) -> Result<String, String> {
        let tool = find_tool(&self.tools, name).unwrap();
        let ctx = ToolContext::standalone("toolu_1", self.env.clone());
        tool.validate(&input, &ctx).map_err(|e| e.message)?;
        tool.call(input, &ctx)
            .await
            .map(|o| o.content.to_text())
            .map_err(|e| e.message)
    }
}

#[tokio::test]
async fn task_output_reads_what_the_owner_writes_and_waits_for_its_end() {
    let fx = fixture();
    let mut task = fx
        .tasks
        .register('a', "review the parser", fx.env.session_dir())
        .unwrap();
    let id = task.id().to_owned();
    assert!(id.starts_with('a') && id.len() == 9, "{id}");
    assert!(
        task.output_path()
            .starts_with(fx.env.session_dir().join("tasks"))
    );
    task.write("half way\n").unwrap();
    assert_eq!(
        fx.call("TaskOutput", json!({"task_id": id, "block": false}))
            .await
            .unwrap(),
        format!(
            "<task_id>{id}</task_id>\n\n<status>running</status>\n\n<output>\nhalf way\n</output>"
        )
    );
    // A blocking read returns when the owner finishes.
    let owner = tokio::spawn(async move {
        task.write("the answer\n").unwrap();
        task.finish(TaskEnd::Completed);
    });
    let out = fx
        .call("TaskOutput", json!({"task_id": id, "timeout": 10_000}))
        .await
        .unwrap();
    owner.await.unwrap();
    assert_eq!(
        out,
        format!(
            "<task_id>{id}</task_id>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\nthe answer\n</output>"
        )
    );
}

#[tokio::test]
async fn task_stop_asks_the_owner_to_stop_and_returns_once_it_has() {
    let fx = fixture();
    let task = fx
        .tasks
        .register('a', "long job", fx.env.session_dir())
        .unwrap();
    let id = task.id().to_owned();
    let stop = task.stop_requested();
    let owner = tokio::spawn(async move {
        stop.cancelled().await;
        task.finish(TaskEnd::Killed);
    });
    assert_eq!(
        fx.call("TaskStop", json!({"task_id": id})).await.unwrap(),
        format!("Successfully stopped task: {id} (long job)")
    );
    owner.await.unwrap();
    assert!(
        fx.call("TaskOutput", json!({"task_id": id}))
            .await
            .unwrap()
            .contains("<status>killed</status>")
    );
}

#[tokio::test]
async fn dropping_the_registry_tells_running_tasks_to_stop_and_an_abandoned_task_fails() {
    let fx = fixture();
    let task = fx.tasks.register('a', "x", fx.env.session_dir()).unwrap();
    let stop = task.stop_requested();
    let other = fx.tasks.register('a', "y", fx.env.session_dir()).unwrap();
    let other_id = other.id().to_owned();
    drop(other);
    assert!(
        fx.call("TaskOutput", json!({"task_id": other_id}))
            .await
            .unwrap()
            .contains("<status>failed</status>")
    );
    let Fixture { tasks, tools, .. } = fx;
    drop(tasks);
    drop(tools);
    assert!(stop.is_cancelled());
    drop(task);
}
