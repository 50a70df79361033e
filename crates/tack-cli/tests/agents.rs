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
            "assistant",
            "assistant",
            "user",
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
            sub.clone(),
            sub,
            Value::Null,
            Value::Null,
            Value::Null
        ]
    );
    assert_eq!(
        records[0]["agents"],
        json!(["Explore", "counter", "general-purpose"])
    );
    // The sub-agent's Glob result, then its answer as the Task call's result.
    assert_eq!(
        records[3]["message"]["content"][0]["tool_use_id"],
        "toolu_glob"
    );
    let answer = records[4]["message"]["content"][0]["content"].to_string();
    assert!(answer.contains("There is 1 file."), "{answer}");
    assert_eq!(records[6]["result"], "The agent says 1.");
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
