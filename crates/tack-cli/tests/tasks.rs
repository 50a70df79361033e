//! Shared task lists end to end: the real binary with
//! `CLAUDE_CODE_ENABLE_TASKS=1`, a scripted model calling TaskCreate,
//! TaskUpdate, TaskGet and TaskList, the files left in
//! `~/.claude/tasks/<list id>/`, the TaskCreated / TaskCompleted hooks, and a
//! list Claude Code wrote read and updated.

use crate::common;

use std::path::Path;

use crate::hook_events::project;
use common::{Env, last_tool_results, stderr};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

fn create(id: &str, subject: &str) -> (String, &'static str, Value) {
    (
        id.to_owned(),
        "TaskCreate",
        json!({"subject": subject, "description": format!("{subject}, all of it"),
               "activeForm": format!("Working on {subject}")}),
    )
}

/// A model reply calling each of `calls` in order.
fn calls(calls: Vec<(String, &'static str, Value)>) -> Reply {
    let mut m = Reply::message();
    for (id, name, input) in calls {
        m = m.tool_use(&id, name, input);
    }
    m.into()
}

/// `tack -p prompt` with the Task tools on, on list `list`; it must succeed.
fn run_with_tasks(env: &Env, list: &str, prompt: &str) {
    let out = (env.tack())
        .env("CLAUDE_CODE_ENABLE_TASKS", "1")
        .env("CLAUDE_CODE_TASK_LIST_ID", list)
        .args(["-p", prompt])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The tool results each request after the first carried.
fn results(env: &Env) -> Vec<Vec<(String, String)>> {
    env.request_bodies()[1..]
        .iter()
        .map(last_tool_results)
        .collect()
}

fn names(body: &Value) -> Vec<String> {
    (body["tools"].as_array().unwrap().iter())
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_creates_three_tasks_blocks_one_claims_and_completes_them() {
    let up = |id: &str, input: Value| (id.to_owned(), "TaskUpdate", input);
    let script = Script::new([
        calls(vec![
            create("c1", "Parse"),
            create("c2", "Check"),
            create("c3", "Ship"),
        ]),
        calls(vec![
            up("u1", json!({"taskId": "3", "addBlockedBy": ["1", "2"]})),
            up(
                "u2",
                json!({"taskId": "1", "owner": "main", "status": "in_progress"}),
            ),
            ("l1".into(), "TaskList", json!({})),
        ]),
        calls(vec![
            up("u3", json!({"taskId": "1", "status": "completed"})),
            up(
                "u4",
                json!({"taskId": "2", "status": "completed", "owner": "main"}),
            ),
            ("g1".into(), "TaskGet", json!({"taskId": "3"})),
            ("l2".into(), "TaskList", json!({})),
        ]),
        Reply::text("All done."),
    ]);
    let env = Env::new(script).await;
    run_with_tasks(&env, "release", "plan the release");
    let tools = names(&env.request_bodies()[0]);
    assert!(
        ["TaskCreate", "TaskGet", "TaskUpdate", "TaskList"]
            .iter()
            .all(|t| tools.iter().any(|n| n == t))
            && !tools.iter().any(|n| n == "TodoWrite"),
        "{tools:?}"
    );
    let r = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        results(&env),
        vec![
            r(&[
                ("c1", "Task #1 created successfully: Parse"),
                ("c2", "Task #2 created successfully: Check"),
                ("c3", "Task #3 created successfully: Ship"),
            ]),
            r(&[
                ("u1", "Updated task #3 blockedBy"),
                ("u2", "Updated task #1 owner, status"),
                (
                    "l1",
                    "#1 [in_progress] Parse (main)\n#2 [pending] Check\n#3 [pending] Ship [blocked by #1, #2]"
                ),
            ]),
            r(&[
                ("u3", "Updated task #1 status"),
                ("u4", "Updated task #2 owner, status"),
                (
                    "g1",
                    "Task #3: Ship\nStatus: pending\nDescription: Ship, all of it\nBlocked by: #1, #2"
                ),
                (
                    "l2",
                    "#1 [completed] Parse (main)\n#2 [completed] Check (main)\n#3 [pending] Ship"
                ),
            ]),
        ]
    );
    let dir = env.claude_dir().join("tasks/release");
    let task = |id: &str, subject: &str, status: &str, blocks: Value, blocked_by: Value| {
        let mut t = json!({"id": id, "subject": subject,
            "description": format!("{subject}, all of it"),
            "activeForm": format!("Working on {subject}"), "status": status,
            "blocks": blocks, "blockedBy": blocked_by});
        if status == "completed" {
            t["owner"] = json!("main");
        }
        t
    };
    assert_eq!(
        ["1", "2", "3"].map(|id| read(&dir.join(format!("{id}.json")))),
        [
            task("1", "Parse", "completed", json!(["3"]), json!([])),
            task("2", "Check", "completed", json!(["3"]), json!([])),
            task("3", "Ship", "pending", json!([]), json!(["1", "2"])),
        ]
    );
    assert!(dir.join(".lock").is_file());
}

/// The model's call completing task 1.
fn complete_first() -> Reply {
    calls(vec![(
        "u1".into(),
        "TaskUpdate",
        json!({"taskId": "1", "status": "completed"}),
    )])
}

/// A hook command that appends its input (`$input`) to `<cwd>/<name>.jsonl`,
/// then runs `then`.
fn logging(name: &str, then: &str) -> Value {
    json!({"type": "command",
           "command": format!("input=$(cat); echo \"$input\" >> \"$CLAUDE_PROJECT_DIR/{name}.jsonl\"; {then}")})
}

fn logged(cwd: &Path, name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(cwd.join(format!("{name}.jsonl"))).unwrap_or_default();
    (text.lines().filter(|l| !l.trim().is_empty()))
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            for key in ["session_id", "transcript_path", "permission_mode", "cwd"] {
                v.as_object_mut().unwrap().remove(key);
            }
            v
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn task_hooks_get_claude_codes_fields_and_a_completed_hook_exiting_2_keeps_the_task_open() {
    let script = Script::new([
        calls(vec![create("c1", "Fix the bug"), create("c2", "Vague")]),
        complete_first(),
        Reply::text("The hook says the tests fail."),
    ]);
    let refuse_vague =
        r#"case "$input" in *'"task_subject":"Vague"'*) echo 'say what to do' >&2; exit 2;; esac"#;
    let env = project(
        script,
        json!({"hooks": {
            "TaskCreated": [{"hooks": [logging("created", refuse_vague)]}],
            "TaskCompleted": [{"hooks": [logging("completed", "echo 'the tests fail' >&2; exit 2")]}],
        }}),
    )
    .await;
    run_with_tasks(&env, "hooked", "fix it");
    assert_eq!(
        results(&env),
        vec![
            vec![
                (
                    "c1".to_owned(),
                    "Task #1 created successfully: Fix the bug".to_owned()
                ),
                (
                    "c2".to_owned(),
                    "<tool_use_error>TaskCreated hook feedback:\nsay what to do</tool_use_error>"
                        .to_owned()
                ),
            ],
            vec![(
                "u1".to_owned(),
                "TaskCompleted hook feedback:\nthe tests fail".to_owned()
            )],
        ]
    );
    let input = |event: &str, id: &str, subject: &str| {
        json!({"hook_event_name": event, "task_id": id, "task_subject": subject,
               "task_description": format!("{subject}, all of it")})
    };
    assert_eq!(
        logged(&env.cwd(), "created"),
        [
            input("TaskCreated", "1", "Fix the bug"),
            input("TaskCreated", "2", "Vague")
        ]
    );
    assert_eq!(
        logged(&env.cwd(), "completed"),
        [input("TaskCompleted", "1", "Fix the bug")]
    );
    let dir = env.claude_dir().join("tasks/hooked");
    assert_eq!(read(&dir.join("1.json"))["status"], "pending");
    assert!(!dir.join("2.json").exists(), "the refused task was removed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_claude_code_wrote_is_read_and_updated_keeping_its_keys() {
    let script = Script::new([
        calls(vec![
            ("l1".into(), "TaskList", json!({})),
            (
                "u1".into(),
                "TaskUpdate",
                json!({"taskId": "2", "status": "completed",
                                               "metadata": {"pr": 12}}),
            ),
            create("c1", "Announce"),
        ]),
        Reply::text("Done."),
    ]);
    let env = Env::new(script).await;
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-code-tasks-2026-02");
    let dir = env.claude_dir().join("tasks/docs-team");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["1.json", "2.json", "3.json", ".highwatermark", ".lock"] {
        std::fs::copy(fixture.join(name), dir.join(name)).unwrap();
    }
    let theirs = read(&dir.join("2.json"));
    run_with_tasks(&env, "docs-team", "finish the docs");
    assert_eq!(
        results(&env),
        vec![vec![
            (
                "l1".to_owned(),
                "#1 [completed] Create CONTRIBUTORS.md (contributors-writer)\n#2 [in_progress] Link CONTRIBUTORS.md from the README (readme-writer)".to_owned()
            ),
            ("u1".to_owned(), "Updated task #2 metadata, status".to_owned()),
            ("c1".to_owned(), "Task #5 created successfully: Announce".to_owned()),
        ]]
    );
    let mut expected = theirs;
    expected["status"] = json!("completed");
    expected["metadata"] = json!({"pr": 12});
    assert_eq!(
        read(&dir.join("2.json")),
        expected,
        "its other keys are kept"
    );
    assert_eq!(
        read(&dir.join("3.json")),
        read(&fixture.join("3.json")),
        "untouched"
    );
    assert!(!dir.join("4.json").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn todo_write_stays_unless_tasks_are_turned_on() {
    let script = Script::new([Reply::text("a"), Reply::text("b")]);
    let env = Env::new(script).await;
    for value in [None, Some("0")] {
        let mut cmd = env.tack();
        if let Some(v) = value {
            cmd.env("CLAUDE_CODE_ENABLE_TASKS", v);
        }
        let out = cmd.args(["-p", "hi"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    for body in env.request_bodies() {
        let tools = names(&body);
        assert!(tools.iter().any(|n| n == "TodoWrite"), "{tools:?}");
        assert!(
            !tools.iter().any(|n| n.starts_with("TaskCreate")),
            "{tools:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_completed_hook_saying_continue_false_keeps_the_task_open_with_its_stop_reason() {
    let script = Script::new([
        calls(vec![create("c1", "Deploy")]),
        complete_first(),
        Reply::text("Stopped."),
    ]);
    let stop = r#"echo '{"continue": false, "stopReason": "the release is frozen"}'"#;
    let env = project(
        script,
        json!({"hooks": {"TaskCompleted": [{"hooks": [logging("completed", stop)]}]}}),
    )
    .await;
    run_with_tasks(&env, "frozen", "deploy");
    assert_eq!(
        results(&env)[1],
        [(
            "u1".to_owned(),
            "TaskCompleted hook feedback:\nthe release is frozen".to_owned()
        )]
    );
    let task = read(&env.claude_dir().join("tasks/frozen/1.json"));
    assert_eq!(task["status"], "pending");
}
