//! Agent teams and messages between sessions through the `tack` binary,
//! against the scripted server: two separate `tack -p` sessions exchange a
//! `SendMessage`; a team and inbox in Claude Code's shape are read and
//! joined; a relayed message is not the user's consent; and how long a
//! message takes to reach the other agent's next request.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};

const SESSION_A: &str = "aaaaaaaa-0000-4000-8000-000000000001";
const SESSION_B: &str = "bbbbbbbb-0000-4000-8000-000000000002";

/// `tack` in `env`'s project and home, talking to `server`, teams on.
fn tack_on(env: &Env, server: &MockServer, extra: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("tack"));
    cmd.env_clear()
        .envs(env.vars())
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1")
        .envs(extra.iter().copied())
        .current_dir(env.cwd())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let status = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(status.success());
    path
}

/// Opens the fifo for writing and closes it: the `cat` waiting on it ends.
fn release(fifo: &Path) {
    std::fs::write(fifo, "go\n").unwrap();
}

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn finish(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text blocks of the last user message of a request.
fn last_user_texts(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap().to_string())
        .collect()
}

fn tool_result_texts(body: &Value) -> Vec<String> {
    common::last_tool_results(body)
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn two_print_sessions_exchange_a_send_message() {
    let b_script = Script::new([
        Reply::tool_use("toolu_wait_b", "Bash", json!({"command": "cat wait-b"})),
        Reply::tool_use(
            "toolu_reply",
            "SendMessage",
            json!({"to": SESSION_A, "summary": "got it", "message": "hi A, got your note"}),
        ),
        Reply::text("done B"),
    ]);
    let env = Env::new(b_script).await;
    let a_server = MockServer::start(Script::new([
        Reply::tool_use(
            "toolu_send",
            "SendMessage",
            json!({"to": SESSION_B, "summary": "a note", "message": "hello B"}),
        ),
        Reply::tool_use("toolu_wait_a", "Bash", json!({"command": "cat wait-a"})),
        Reply::text("done A"),
    ]))
    .await
    .unwrap();
    let (wait_a, wait_b) = (fifo(&env.cwd(), "wait-a"), fifo(&env.cwd(), "wait-b"));
    let flags = |id: &'static str| {
        [
            "-p",
            "go",
            "--session-id",
            id,
            "--allowedTools",
            "Bash(cat:*)",
        ]
    };

    let b = tack_on(&env, &env.server, &[])
        .args(flags(SESSION_B))
        .spawn()
        .unwrap();
    wait_for("B's first request", || env.server.requests().len() == 1).await;
    let a = tack_on(&env, &a_server, &[])
        .args(flags(SESSION_A))
        .spawn()
        .unwrap();
    wait_for("A to send and wait", || a_server.requests().len() == 2).await;
    release(&wait_b);
    wait_for("B's answer to A", || env.server.requests().len() == 3).await;
    assert_eq!(finish(b), "done B\n");
    release(&wait_a);
    assert_eq!(finish(a), "done A\n");

    let a_socket = env.claude_dir().join("sessions");
    let b_requests = env.request_bodies();
    let b_saw = last_user_texts(&b_requests[1]);
    assert_eq!(b_saw.len(), 1, "{b_saw:?}");
    let from = b_saw[0]
        .strip_prefix("<cross-session-message from=\"uds:")
        .and_then(|rest| rest.split_once('"'))
        .map(|(socket, rest)| (PathBuf::from(socket), rest.to_string()))
        .unwrap();
    assert_eq!(from.0.parent(), Some(a_socket.as_path()));
    assert_eq!(from.1, ">\nhello B\n</cross-session-message>");
    assert_eq!(tool_result_texts(&b_requests[1]), ["go"]);

    let a_requests: Vec<Value> = a_server.requests().into_iter().map(|r| r.body).collect();
    let sent = tool_result_texts(&a_requests[1]);
    assert!(
        sent[0].starts_with(&format!("Message sent to session {SESSION_B} (uds:")),
        "{sent:?}"
    );
    let a_saw = last_user_texts(&a_requests[2]);
    assert_eq!(a_saw.len(), 1, "{a_saw:?}");
    assert!(
        a_saw[0].starts_with("<cross-session-message from=\"uds:"),
        "{a_saw:?}"
    );
    assert!(
        a_saw[0].ends_with("\">\nhi A, got your note\n</cross-session-message>"),
        "{a_saw:?}"
    );
    // Both sessions left the registry when they ended.
    let left: Vec<_> = std::fs::read_dir(env.claude_dir().join("sessions"))
        .unwrap()
        .collect();
    assert_eq!(left.len(), 0);
}
