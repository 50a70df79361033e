//! Claude Code's headless contract exactly as the evaluation harnesses call it
//! (Harbor's claude-code agent, issue 26): the instruction on stdin, its flags,
//! its environment (`IS_SANDBOX`, `CLAUDE_CONFIG_DIR` under the run's logs,
//! `ANTHROPIC_MODEL`, `CLAUDE_CODE_MAX_OUTPUT_TOKENS`, a gateway's
//! `ANTHROPIC_BASE_URL` + `ANTHROPIC_AUTH_TOKEN`), then the session file the
//! harness reads back from `$CLAUDE_CONFIG_DIR/projects/<slug>/<session>.jsonl`.

use crate::common;

use std::process::Command;

use common::{Env, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

#[tokio::test(flavor = "multi_thread")]
async fn harbors_command_line_environment_and_session_file() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "Bash", json!({"command": "echo done > out.txt"})),
        Reply::text("Finished."),
    ]))
    .await;
    let logs = tempfile::tempdir().unwrap();
    let sessions = logs.path().join("sessions");
    let mut tack = Command::new(assert_cmd::cargo::cargo_bin("tack"));
    tack.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home.path())
        .env("IS_SANDBOX", "1")
        .env("CLAUDE_CONFIG_DIR", &sessions)
        .env("ANTHROPIC_MODEL", "claude-sonnet-4-5")
        .env("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "12345")
        .env("ANTHROPIC_BASE_URL", env.server.base_url())
        .env("ANTHROPIC_AUTH_TOKEN", "gateway-token")
        .current_dir(env.cwd())
        .args(["--verbose", "--output-format=stream-json"])
        .args(["--permission-mode=bypassPermissions", "--max-turns", "5"])
        .args(["--allowedTools", "Bash", "--effort", "high", "--print"]);
    let out = assert_cmd::Command::from_std(tack)
        .write_stdin("Write done into out.txt.")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("out.txt")).unwrap(),
        "done\n"
    );
    let records = lines(&out.stdout);
    let result = records.last().unwrap();
    assert_eq!(
        (&result["subtype"], &result["num_turns"], &result["result"]),
        (&json!("success"), &json!(2), &json!("Finished."))
    );

    // What reached the gateway: its token, the model and output cap the
    // variables name, the effort flag.
    let request = &env.server.requests()[0];
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        (
            header("authorization"),
            &request.body["model"],
            &request.body["max_tokens"],
            &request.body["output_config"]["effort"],
            &request.body["messages"][0]["content"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()["text"],
        ),
        (
            Some("Bearer gateway-token".to_owned()),
            &json!("claude-sonnet-4-5"),
            &json!(12345),
            &json!("high"),
            &json!("Write done into out.txt."),
        )
    );

    // The trajectory the harness reads: the session file under the logs.
    let session = result["session_id"].as_str().unwrap();
    let cwd = env.cwd().canonicalize().unwrap();
    let slug: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let file = sessions
        .join("projects")
        .join(slug)
        .join(format!("{session}.jsonl"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let kinds: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "user" || r["type"] == "assistant")
        .map(|r| r["type"].clone())
        .collect();
    assert_eq!(kinds, ["user", "assistant", "user", "assistant"]);
}
