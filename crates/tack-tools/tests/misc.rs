//! Tool names, aliases, flags and schemas; TodoWrite; the result budget.

use crate::common;

use std::path::PathBuf;

use common::Session;
use insta::assert_json_snapshot;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, ImageSource, ToolResultContent};
use tack_tool::budget::{DEFAULT_MAX_MESSAGE_CHARS, DEFAULT_MAX_RESULT_CHARS};
use tack_tool::{ToolOutput, apply_message_budget, apply_result_budget};
use tack_tools::{TodoItem, TodoStatus, find_tool};

#[test]
fn names_aliases_and_concurrency() {
    let s = Session::new();
    let summary: Vec<Value> = s
        .tools
        .iter()
        .map(|t| {
            let input = json!({});
            json!({
                "name": t.name(),
                "aliases": t.aliases(),
                "concurrency_safe": t.is_concurrency_safe(&input),
                "read_only": t.is_read_only(&input),
                "budgeted": t.max_result_chars().is_some(),
            })
        })
        .collect();
    assert_json_snapshot!("tools", summary);
    for alias in ["BashOutput", "KillShell", "KillBash"] {
        assert!(find_tool(&s.tools, alias).is_some(), "{alias}");
    }
    assert_eq!(
        find_tool(&s.tools, "BashOutput").map(|t| t.name()),
        Some("TaskOutput")
    );
    assert!(find_tool(&s.tools, "Nope").is_none());
}

/// One snapshot per tool; the field names are the spec's (builtin-tools.md).
#[test]
fn input_schemas_match_the_spec() {
    let s = Session::new();
    let expected_fields: &[(&str, &[&str], &[&str])] = &[
        ("Read", &["file_path", "limit", "offset"], &["file_path"]),
        (
            "Write",
            &["content", "file_path"],
            &["content", "file_path"],
        ),
        (
            "Edit",
            &["file_path", "new_string", "old_string", "replace_all"],
            &["file_path", "new_string", "old_string"],
        ),
        (
            "MultiEdit",
            &["edits", "file_path"],
            &["edits", "file_path"],
        ),
        (
            "NotebookEdit",
            &[
                "cell_id",
                "cell_type",
                "edit_mode",
                "new_source",
                "notebook_path",
            ],
            &["new_source", "notebook_path"],
        ),
        (
            "Bash",
            &[
                "command",
                "dangerouslyDisableSandbox",
                "description",
                "run_in_background",
                "timeout",
            ],
            &["command"],
        ),
        (
            "TaskOutput",
            &["block", "filter", "task_id", "timeout"],
            &["task_id"],
        ),
        ("TaskStop", &["shell_id", "task_id"], &[]),
        ("Glob", &["path", "pattern"], &["pattern"]),
        (
            "Grep",
            &[
                "-A",
                "-B",
                "-C",
                "-i",
                "-n",
                "glob",
                "head_limit",
                "multiline",
                "offset",
                "output_mode",
                "path",
                "pattern",
                "type",
            ],
            &["pattern"],
        ),
        ("LS", &["ignore", "path"], &["path"]),
        ("TodoWrite", &["todos"], &["todos"]),
    ];
    for (name, fields, required) in expected_fields {
        let schema = s.tool(name).input_schema();
        let mut props: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        props.sort();
        assert_eq!(&props, fields, "{name}");
        let mut req: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        req.sort();
        assert_eq!(&req, required, "{name}");
        assert_eq!(schema["type"], "object", "{name}");
        assert_eq!(schema["additionalProperties"], false, "{name}");
        assert_json_snapshot!(format!("schema_{name}"), schema);
    }
}

#[tokio::test]
async fn todo_write_replaces_the_list() {
    let s = Session::new();
    let updates = s.options.todos.subscribe();
    let todos = json!([
        {"content": "Add retry classifier", "status": "completed", "activeForm": "Adding retry classifier"},
        {"content": "Wire backoff", "status": "in_progress", "activeForm": "Wiring backoff"},
        {"content": "Write tests", "status": "pending", "activeForm": "Writing tests"}
    ]);
    assert_eq!(
        s.ok("TodoWrite", json!({"todos": todos})).await,
        "Todo list updated: 1 completed, 1 in progress, 1 pending. Keep it current as you work, and carry on with the tasks in progress."
    );
    assert!(updates.has_changed().unwrap());
    let item = |c: &str, st, a: &str| TodoItem {
        content: c.into(),
        status: st,
        active_form: a.into(),
    };
    assert_eq!(
        s.options.todos.items(),
        vec![
            item(
                "Add retry classifier",
                TodoStatus::Completed,
                "Adding retry classifier"
            ),
            item("Wire backoff", TodoStatus::InProgress, "Wiring backoff"),
            item("Write tests", TodoStatus::Pending, "Writing tests"),
        ]
    );
    assert_eq!(
        s.err(
            "TodoWrite",
            json!({"todos": [{"content": "x", "status": "done", "activeForm": "y"}]})
        )
        .await,
        "InputValidationError: TodoWrite failed: unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at `todos[0].status`. Expected input: {todos: [{content: string, status: \"pending\" | \"in_progress\" | \"completed\", activeForm: string}, ...]}"
    );
    assert_eq!(
        s.err(
            "TodoWrite",
            json!({"todos": [{"content": "x", "status": "pending", "activeForm": " "}]})
        )
        .await,
        "todos[0].activeForm is empty: give the task in present continuous form (e.g. \"Running the tests\")."
    );
}

#[test]
fn paths_touched() {
    let s = Session::new();
    let ctx = s.ctx();
    let touched = |name: &str, input: Value| s.tool(name).paths_touched(&input, &ctx);
    assert_eq!(
        touched("Write", json!({"file_path": "a/../b.txt", "content": ""})),
        vec![s.path("b.txt")]
    );
    assert_eq!(
        touched("MultiEdit", json!({"file_path": "/etc/hosts", "edits": []})),
        vec![PathBuf::from("/etc/hosts")]
    );
    assert_eq!(
        touched("Grep", json!({"pattern": "x"})),
        vec![s.root.clone()]
    );
    assert_eq!(
        touched("Glob", json!({"pattern": "x", "path": "/tmp"})),
        vec![PathBuf::from("/tmp")]
    );
    assert_eq!(touched("LS", json!({"path": "sub"})), vec![s.path("sub")]);
    assert_eq!(
        touched("Bash", json!({"command": "cat /etc/passwd"})),
        Vec::<PathBuf>::new()
    );
}

// ---------------------------------------------------------------- budget

#[test]
fn budget_constants() {
    assert_eq!(
        (DEFAULT_MAX_RESULT_CHARS, DEFAULT_MAX_MESSAGE_CHARS),
        (50_000, 200_000)
    );
}

#[test]
fn a_small_result_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = ToolOutput::text("small");
    assert_eq!(
        apply_result_budget("toolu_1", out.clone(), dir.path(), 100),
        out
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_large_result_is_stored_with_a_preview() {
    let dir = tempfile::tempdir().unwrap();
    let big: String = (0..2000).map(|i| format!("line {i:05}\n")).collect(); // 22,000 chars
    let out = apply_result_budget(
        "toolu_big",
        ToolOutput::text(big.clone()).with_error(true),
        dir.path(),
        10_000,
    );
    let path = dir.path().join("toolu_big.txt");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), big);
    let preview: String = (0..181)
        .map(|i| format!("line {i:05}\n"))
        .collect::<String>();
    let preview = preview.trim_end_matches('\n');
    assert_eq!(
        out,
        ToolOutput::text(format!(
            "<persisted-output>\nThis result was too large to show in full (21.5 KB, 22000 characters). The full output is saved in: {}\nRead it with offset/limit, or Grep it, to see the rest.\n\nPreview (first {} characters):\n{preview}\n</persisted-output>",
            path.display(),
            preview.chars().count()
        ))
        .with_error(true)
    );
}

#[test]
fn image_results_are_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let image = ToolOutput::blocks(vec![ContentBlock::Image {
        source: ImageSource::Base64 {
            media_type: "image/png".into(),
            data: "A".repeat(100_000),
        },
        cache_control: None,
    }]);
    assert_eq!(
        apply_result_budget("toolu_img", image.clone(), dir.path(), 10),
        image
    );
}

#[test]
fn the_message_budget_stores_the_largest_results_first() {
    let dir = tempfile::tempdir().unwrap();
    let text = |n: usize| ToolOutput::text("x".repeat(n));
    let mut results = vec![
        ("toolu_a".to_string(), text(30_000)),
        ("toolu_b".to_string(), text(90_000)),
        ("toolu_c".to_string(), text(5_000)),
        ("toolu_d".to_string(), text(60_000)),
    ];
    apply_message_budget(&mut results, dir.path(), 100_000);
    let stored: Vec<bool> = results
        .iter()
        .map(|(_, o)| matches!(&o.content, ToolResultContent::Text(t) if t.starts_with("<persisted-output>")))
        .collect();
    // 185,000 chars: storing b (90k) leaves ~97k, which fits.
    assert_eq!(stored, vec![false, true, false, false]);
    assert!(dir.path().join("toolu_b.txt").exists());
    assert_eq!(results[0].1, text(30_000));

    apply_message_budget(&mut results, dir.path(), 10_000);
    let stored: Vec<bool> = results
        .iter()
        .map(|(_, o)| matches!(&o.content, ToolResultContent::Text(t) if t.starts_with("<persisted-output>")))
        .collect();
    assert_eq!(stored, vec![true, true, true, true]);
}
