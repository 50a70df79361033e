//! Custom slash commands end to end: `/review 42` typed in `-p`, sent as an
//! SDK user message over stream-json, and typed in the terminal UI reaches
//! the model as the same expanded message (the runtime expands it for all).

use crate::common;
use crate::interactive::{WAIT, tack as tack_in_pty, turn_over};

use common::{Env, STREAM_JSON, lines};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The project's `/review` command.
fn review_command(env: &Env) {
    let dir = env.cwd().join(".claude/commands");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("review.md"),
        "---\ndescription: Review a PR\nargument-hint: <pr>\nmodel: haiku\n---\nReview PR $1 and say LGTM.\n",
    )
    .unwrap();
}

/// The model and the text blocks of the last message of the first request.
fn sent(env: &Env) -> (Value, Vec<String>) {
    let body = &env.request_bodies()[0];
    let last = body["messages"].as_array().unwrap().last().unwrap();
    let texts = last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .filter(|t| !t.starts_with("<system-reminder>"))
        .collect();
    (body["model"].clone(), texts)
}

/// What each front end must have sent for `/review 42`.
fn expected() -> (Value, Vec<String>) {
    (
        json!("claude-haiku-5-5"),
        vec![
            "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>42</command-args>".to_owned(),
            "Review PR 42 and say LGTM.\n".to_owned(),
        ],
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_expands_a_custom_command() {
    let env = Env::new(Script::new([Reply::text("LGTM")])).await;
    review_command(&env);
    let out = env.tack().args(["-p", "/review 42"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "LGTM\n");
    assert_eq!(sent(&env), expected());
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_answers_an_unknown_command_without_a_request() {
    let env = Env::new(Script::new([Reply::text("unused")])).await;
    let out = env
        .tack()
        .args(["-p", "/nosuchcommand 42"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: Unknown slash command: nosuchcommand\n"
    );
    assert_eq!(env.request_bodies().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_lists_and_expands_a_custom_command() {
    let env = Env::new(Script::new([Reply::text("LGTM")])).await;
    review_command(&env);
    let input = [
        json!({"type": "control_request", "request_id": "init",
            "request": {"subtype": "initialize"}}),
        json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
            "message": {"role": "user", "content": "/review 42"}}),
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    let out = env
        .tack()
        .args(STREAM_JSON)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let records = lines(&out.stdout);
    let answer = records
        .iter()
        .find(|r| r["type"] == "control_response")
        .unwrap();
    assert_eq!(
        answer["response"]["response"]["commands"],
        json!([
            {"name": "clear", "argumentHint": "",
             "description": "Clear conversation history and free up context", "builtin": true},
            {"name": "compact", "argumentHint": "<optional custom summarization instructions>",
             "description": "Clear conversation history but keep a summary in context. Optional: /compact [instructions for summarization]",
             "builtin": true},
            {"name": "init", "argumentHint": "",
             "description": "Initialize a new CLAUDE.md file with codebase documentation", "builtin": true},
            {"name": "review", "argumentHint": "<pr>", "description": "Review a PR"}
        ])
    );
    let init = records.iter().find(|r| r["subtype"] == "init").unwrap();
    assert_eq!(
        init["slash_commands"],
        json!(["clear", "compact", "init", "review"])
    );
    assert_eq!(sent(&env), expected());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_ui_menu_lists_and_the_runtime_expands_a_custom_command() {
    let env = Env::new(Script::new([Reply::text("LGTM")])).await;
    env.trust();
    review_command(&env);
    let mut pty = tack_in_pty(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    // The menu has it once the session has started (the runtime's list).
    pty.send(b"/rev").unwrap();
    pty.wait_for_text("Review a PR (project)", WAIT).unwrap();
    pty.send(b"iew 42\r").unwrap();
    turn_over(&mut pty, "LGTM");
    pty.send(tack_tui::testing::keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_eq!(sent(&env), expected());
}
