//! Sub-agents through the `tack` binary: stream-json shows a sub-agent's
//! records with `parent_tool_use_id`, `--agents` defines one, and its
//! sidechain transcript is written beside the session's.

use crate::common;

use common::{Env, kinds, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_shows_the_subagents_records_with_parent_tool_use_id() {
    let script = Script::new([
        Reply::tool_use(
            "toolu_agent",
            "Task",
            json!({"description": "count files", "prompt": "How many files?", "subagent_type": "counter"}),
        ),
        Reply::message()
            .tool_use("toolu_glob", "Glob", json!({"pattern": "*.txt"}))
            .into(),
        Reply::text("There is 1 file."),
        Reply::text("The agent says 1."),
    ]);
    let env = Env::new(script).await;
    std::fs::write(env.cwd().join("a.txt"), "x").unwrap();
    let agents = r#"{"counter": {"description": "Counts files", "prompt": "You count files.", "tools": ["Glob"]}}"#;
    let out = env
        .tack()
        .args([
            "-p",
            "count",
            "--output-format",
            "stream-json",
            "--verbose",
            "--agents",
            agents,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = lines(&out.stdout);
    let parents: Vec<Value> = records
        .iter()
        .map(|r| r["parent_tool_use_id"].clone())
        .collect();
    assert_eq!(
        kinds(&records),
        [
            "system/init",
            // The Agent call starts when its block is complete, before the
            // message's record (printed at the message's end).
            "system/task_started",
            "assistant",
            "assistant",
            "user",
            "system/task_updated",
            "system/task_notification",
            "user",
            "assistant",
            "result/success"
        ]
    );
    // The sub-agent's calls, not its text (no forwardSubagentText).
    let sub = json!("toolu_agent");
    assert_eq!(
        parents,
        [
            Value::Null,
            Value::Null,
            Value::Null,
            sub.clone(),
            sub,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null
        ]
    );
    assert_eq!(
        records[0]["agents"],
        json!(["Explore", "Plan", "counter", "general-purpose"])
    );
    // The sub-agent's Glob result, then its answer as the Task call's result.
    assert_eq!(
        records[4]["message"]["content"][0]["tool_use_id"],
        "toolu_glob"
    );
    let answer = records[7]["message"]["content"][0]["content"].to_string();
    assert!(answer.contains("There is 1 file."), "{answer}");
    assert_eq!(records[9]["result"], "The agent says 1.");
    // The sub-agent's request: its prompt, only its tool.
    let bodies = env.request_bodies();
    assert!(bodies[1]["system"].to_string().contains("You count files."));
    assert_eq!(bodies[1]["tools"].as_array().unwrap().len(), 1);
    // Its transcript is a sidechain beside the session's.
    let transcript = env.transcripts().remove(0);
    let subagents = transcript.with_extension("").join("subagents");
    let mut files: Vec<_> = std::fs::read_dir(&subagents)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let loaded = tack_store::load_sidechain(&files[0]).unwrap();
    assert_eq!(loaded.messages.len(), 4);
    // With Claude Code's sidecar, which names the call that started it.
    assert_eq!(files[1], files[0].with_extension("meta.json"));
    let meta: Value = serde_json::from_slice(&std::fs::read(&files[1]).unwrap()).unwrap();
    assert_eq!(
        meta,
        json!({"agentType": "counter", "toolUseId": "toolu_agent"})
    );
}

/// The parent starts the `worker` agent in the background and, in the same
/// message, a one-second Bash call, so the agent's request is the server's
/// second (its reply: `agent_reply`) and the parent's next one the third
/// ("DONE"). A woken turn, if any, gets "FINISHED".
async fn background_agent(agent_reply: Reply) -> Env {
    let agent = json!({"subagent_type": "worker", "description": "work",
                       "prompt": "Work.", "run_in_background": true});
    let first = Reply::message()
        .tool_use("toolu_a1", "Agent", agent)
        .tool_use("toolu_s1", "Bash", json!({"command": "sleep 1"}))
        .into();
    let script = Script::new([first, agent_reply, Reply::text("DONE")]);
    let env = Env::new(script).await;
    env.server.push(Reply::text("FINISHED"));
    env
}

const WORKER: &str =
    r#"{"worker": {"description": "Works", "prompt": "You work.", "tools": ["Bash"]}}"#;

fn print_background(env: &Env, format: &str, ceiling_ms: Option<&str>) -> std::process::Output {
    let mut tack = env.tack();
    tack.args([
        "-p",
        "start the worker",
        "--output-format",
        format,
        "--verbose",
    ])
    .args(["--agents", WORKER, "--allowedTools", "Bash"]);
    if let Some(ms) = ceiling_ms {
        tack.env("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", ms);
    }
    tack.output().unwrap()
}

/// Like `claude -p`, print mode waits for a background agent: its end wakes
/// a turn, whose answer is the one printed (text), or both turns' results
/// come out in order (stream-json).
#[tokio::test(flavor = "multi_thread")]
async fn print_mode_waits_for_a_background_agent_and_its_woken_turn() {
    let env = background_agent(Reply::text("WORKED")).await;
    let out = print_background(&env, "text", None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout)),
        (Some(0), "FINISHED\n".into()),
        "{stderr}"
    );
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 4);
    let woken = bodies[3]["messages"].as_array().unwrap().last().unwrap();
    let text = woken["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("<result>WORKED</result>"), "{text}");

    let env = background_agent(Reply::text("WORKED")).await;
    let out = print_background(&env, "stream-json", None);
    let results: Vec<Value> = lines(&out.stdout)
        .into_iter()
        .filter(|r| r["type"] == "result")
        .map(|r| json!([r["result"], r["is_error"]]))
        .collect();
    assert_eq!(
        results,
        [json!(["DONE", false]), json!(["FINISHED", false])],
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` caps the wait: an agent still
/// running then is stopped (its Bash call with it), the last result is
/// printed, and tack exits with it and a warning.
#[tokio::test(flavor = "multi_thread")]
async fn print_mode_stops_waiting_for_background_agents_at_the_ceiling() {
    let sleep = Reply::tool_use("toolu_w1", "Bash", json!({"command": "sleep 30.25"}));
    let env = background_agent(sleep).await;
    let started = std::time::Instant::now();
    let out = print_background(&env, "text", Some("300"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout)),
        (Some(0), "DONE\n".into()),
        "{stderr}"
    );
    assert!(
        stderr.contains("stopped waiting for 1 background agent(s) after 0 s"),
        "{stderr}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(env.request_bodies().len(), 3);
    assert_eq!(
        processes_running("sleep\x0030.25"),
        0,
        "the agent's Bash call outlived tack"
    );
}

/// Processes whose command line (NUL-separated) contains `needle`.
pub(crate) fn processes_running(needle: &str) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(needle))
        .count()
}
