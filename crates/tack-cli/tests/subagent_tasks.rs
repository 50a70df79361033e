//! Issue 35: two Agent calls in one message, one in the foreground and one
//! in the background, through `tack -p --output-format stream-json`. Each
//! sub-agent's records carry its own call's id as `parent_tool_use_id`, and
//! each call's life is told by Claude Code's `system` task records, in its
//! order: `task_started`, the sub-agent's records, `task_updated`,
//! `task_notification`; a background agent joins the live set
//! (`background_tasks_changed`) before its `task_started` and leaves it after
//! its `task_notification`.
//!
//! The two sub-agents run at once, so their records interleave in any order:
//! each call's records are asserted whole, in order, and the order across
//! streams only where Claude Code promises one.

use crate::common;

use common::{Env, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

const COUNTER: &str = r#"{"counter": {"description": "Counts files", "prompt": "You count files.", "tools": ["Glob"]}}"#;

/// The parent's calls: A in the foreground, B in the background; each
/// sub-agent is answered from its own route (its prompt's marker), the
/// parent from the plain replies: its calls, then its answer after A's
/// result and the turn B's end wakes.
async fn env() -> Env {
    let call = |marker: &str, background: bool| {
        json!({"description": format!("part {marker}"), "subagent_type": "counter",
               "prompt": format!("SUBTASK-{marker}: count the files."),
               "run_in_background": background})
    };
    let parent = Reply::message()
        .text("Splitting the job.")
        .tool_use("toolu_agent_a", "Agent", call("A", false))
        .tool_use("toolu_agent_b", "Agent", call("B", true))
        .into();
    let agent = |id: &str, answer: &str| {
        vec![
            Reply::message()
                .tool_use(id, "Glob", json!({"pattern": "*.txt"}))
                .usage(10, 4)
                .into(),
            Reply::message().text(answer).usage(20, 3).into(),
            // total_tokens: 10 + 4 + 20 + 3 = 37
        ]
    };
    let script = Script::routed([
        ("SUBTASK-A".to_owned(), agent("toolu_glob_a", "A: 1 file")),
        ("SUBTASK-B".to_owned(), agent("toolu_glob_b", "B: 1 file")),
    ]);
    let env = Env::new(script).await;
    for reply in [
        parent,
        Reply::text("A reported."),
        Reply::text("B reported."),
    ] {
        env.server.push(reply);
    }
    env
}

/// Values that change between runs, replaced by their key; a task id by the
/// call it belongs to.
fn normalise(value: &mut Value, task_ids: &[(String, &str)]) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match key.as_str() {
                    "uuid" | "session_id" | "timestamp" | "end_time" | "duration_ms"
                    | "request_id" | "output_file" => *v = json!(format!("[{key}]")),
                    "id" if v.as_str().is_some_and(|s| s.starts_with("msg_")) => {
                        *v = json!("[message id]");
                    }
                    _ => normalise(v, task_ids),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| normalise(v, task_ids)),
        Value::String(s) => {
            if let Some((_, call)) = task_ids.iter().find(|(id, _)| id == s) {
                *s = format!("[task {call}]");
            }
        }
        _ => {}
    }
}

fn is_task_record(r: &Value) -> bool {
    r["type"] == "system"
        && r["subtype"]
            .as_str()
            .is_some_and(|s| s.starts_with("task_") || s == "background_tasks_changed")
}

/// The sub-agent's records expected for call `call` (its Glob call and
/// result, finding `file`; its final text is not forwarded without
/// `forwardSubagentText`).
fn subagent_records(call: &str, glob: &str, file: &str) -> Vec<Value> {
    let parent = format!("toolu_agent_{call}");
    let usage = json!({"input_tokens": 10, "output_tokens": 4, "cache_creation_input_tokens": 0,
                       "cache_read_input_tokens": 0, "service_tier": "standard",
                       "cache_creation": {"ephemeral_1h_input_tokens": 0,
                                          "ephemeral_5m_input_tokens": 0}});
    vec![
        json!({"type": "assistant", "parent_tool_use_id": parent,
               "session_id": "[session_id]", "uuid": "[uuid]", "timestamp": "[timestamp]",
               "request_id": "[request_id]",
               "message": {"id": "[message id]", "type": "message", "role": "assistant",
                           "model": tack_runtime::DEFAULT_MODEL, "stop_reason": null,
                           "stop_sequence": null, "usage": usage, "context_management": null,
                           "content": [{"type": "tool_use", "id": glob, "name": "Glob",
                                        "input": {"pattern": "*.txt"}}]}}),
        json!({"type": "user", "parent_tool_use_id": parent,
               "session_id": "[session_id]", "uuid": "[uuid]", "timestamp": "[timestamp]",
               "message": {"role": "user", "content": [{"type": "tool_result",
                           "tool_use_id": glob, "content": file}]},
               "tool_use_result": {"filenames": [file], "numFiles": 1, "truncated": false}}),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_agent_calls_carry_their_call_ids_and_tell_their_lives_as_tasks() {
    let env = env().await;
    std::fs::write(env.cwd().join("a.txt"), "x").unwrap();
    let out = env
        .tack()
        .args(["-p", "split the job", "--output-format", "stream-json"])
        .args(["--verbose", "--agents", COUNTER])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let records = lines(&out.stdout);
    let started = |call: &str| {
        let id = format!("toolu_agent_{call}");
        records
            .iter()
            .find(|r| r["subtype"] == "task_started" && r["tool_use_id"] == id.as_str())
            .and_then(|r| r["task_id"].as_str())
            .unwrap_or_else(|| panic!("no task_started for {id}: {records:#?}"))
            .to_owned()
    };
    let task_ids = [(started("a"), "a"), (started("b"), "b")];
    let mut normal = records.clone();
    normal.iter_mut().for_each(|r| normalise(r, &task_ids));

    // Every record of a sub-agent carries its own call's id, and only its
    // own: call `x`'s records name its Glob call `toolu_glob_x`.
    let of_call = |call: &str| -> Vec<Value> {
        let parent = format!("toolu_agent_{call}");
        normal
            .iter()
            .filter(|r| r["parent_tool_use_id"] == parent.as_str())
            .cloned()
            .collect()
    };
    let file = env.cwd().join("a.txt").to_string_lossy().into_owned();
    assert_eq!(of_call("a"), subagent_records("a", "toolu_glob_a", &file));
    assert_eq!(of_call("b"), subagent_records("b", "toolu_glob_b", &file));

    // Each call's task records, whole.
    let tasks_of = |call: &str| -> Vec<Value> {
        let task = json!(format!("[task {call}]"));
        normal
            .iter()
            .filter(|r| is_task_record(r))
            .filter(|r| {
                r["task_id"] == task || (r["subtype"] == "background_tasks_changed" && call == "b")
            })
            .cloned()
            .collect()
    };
    let system = |fields: Value| {
        let mut record = json!({"type": "system", "session_id": "[session_id]", "uuid": "[uuid]"});
        record
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        record
    };
    let started = |call: &str, background: bool| {
        system(
            json!({"subtype": "task_started", "task_id": format!("[task {call}]"),
                      "tool_use_id": format!("toolu_agent_{call}"),
                      "description": format!("part {}", call.to_uppercase()),
                      "subagent_type": "counter", "is_backgrounded": background,
                      "task_type": "local_agent",
                      "prompt": format!("SUBTASK-{}: count the files.", call.to_uppercase())}),
        )
    };
    let ended = |call: &str| {
        let upper = call.to_uppercase();
        [
            system(
                json!({"subtype": "task_updated", "task_id": format!("[task {call}]"),
                          "patch": {"status": "completed", "end_time": "[end_time]"}}),
            ),
            system(
                json!({"subtype": "task_notification", "task_id": format!("[task {call}]"),
                          "tool_use_id": format!("toolu_agent_{call}"), "status": "completed",
                          "output_file": "[output_file]",
                          "summary": format!("Agent \"part {upper}\" completed"),
                          "usage": {"total_tokens": 37, "tool_uses": 1,
                                    "duration_ms": "[duration_ms]"}}),
            ),
        ]
    };
    let (a, b) = (tasks_of("a"), tasks_of("b"));
    let [a_updated, a_notified] = ended("a");
    assert_eq!(a, [started("a", false), a_updated, a_notified]);
    let live_b = json!([{"task_id": "[task b]", "task_type": "local_agent",
                         "subagent_type": "counter", "description": "part B"}]);
    let [b_updated, b_notified] = ended("b");
    assert_eq!(
        b,
        [
            system(json!({"subtype": "background_tasks_changed", "tasks": live_b})),
            started("b", true),
            b_updated,
            b_notified,
            system(json!({"subtype": "background_tasks_changed", "tasks": []})),
        ]
    );

    // The order across streams: a call's task_started before its
    // sub-agent's records, task_updated and task_notification after them,
    // and the foreground call's result after its notification.
    let at = |pred: &dyn Fn(&Value) -> bool| -> Vec<usize> {
        normal
            .iter()
            .enumerate()
            .filter(|(_, r)| pred(r))
            .map(|(i, _)| i)
            .collect()
    };
    for call in ["a", "b"] {
        let task = json!(format!("[task {call}]"));
        let parent = format!("toolu_agent_{call}");
        let kinds = ["task_started", "task_updated", "task_notification"];
        let marks: Vec<usize> = kinds
            .iter()
            .map(|k| at(&|r| r["subtype"] == *k && r["task_id"] == task)[0])
            .collect();
        let own = at(&|r| r["parent_tool_use_id"] == parent.as_str());
        assert!(
            marks[0] < own[0] && own[own.len() - 1] < marks[1] && marks[1] < marks[2],
            "{call}: {marks:?} {own:?}\n{normal:#?}"
        );
    }
    let notified_a = at(&|r| r["subtype"] == "task_notification" && r["task_id"] == "[task a]")[0];
    let result_a = at(&|r| {
        r["type"] == "user" && r["message"]["content"][0]["tool_use_id"] == "toolu_agent_a"
    })[0];
    assert!(notified_a < result_a, "{normal:#?}");

    // B's output file is its task's; A's is its transcript.
    let output = |call: &str| {
        let id = format!("toolu_agent_{call}");
        let r = records
            .iter()
            .find(|r| r["subtype"] == "task_notification" && r["tool_use_id"] == id.as_str())
            .unwrap();
        std::path::PathBuf::from(r["output_file"].as_str().unwrap())
    };
    let (out_a, out_b) = (output("a"), output("b"));
    assert_eq!(
        (
            out_a.file_name().unwrap().to_string_lossy().into_owned(),
            out_b.file_name().unwrap().to_string_lossy().into_owned(),
            std::fs::read_to_string(&out_b).unwrap(),
        ),
        (
            format!("agent-{}.jsonl", task_ids[0].0),
            format!("{}.output", task_ids[1].0),
            "B: 1 file\n".to_owned(),
        )
    );
    assert!(out_a.is_file(), "{}", out_a.display());
}
