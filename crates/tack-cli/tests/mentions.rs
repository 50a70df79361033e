//! End to end: `@path` mentions are resolved by the runtime under the
//! permission rules, the same in `-p`, stream-json and the terminal UI: a file a deny
//! rule keeps from Read is not attached (the model never sees it, the user is
//! told which rule stopped it); an ask rule does not stop a file the user
//! named, nor does its being outside the working directories (as in Claude
//! Code, the user typed it). The model sees an attached file as a Read call
//! and its result; the transcript has an `attachment` record of type `file`.

use crate::common;
use crate::interactive::{WAIT, tack, turn_over};

use std::path::{Path, PathBuf};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

const SECRET: &str = "TOP-SECRET-KEY-VALUE";

/// A project with `secrets/key.txt` (denied), `notes.txt` (behind an ask
/// rule) and, outside it, `outside.txt` in the home directory. Returns the
/// settings file and the outside file.
fn project(env: &Env) -> (PathBuf, PathBuf) {
    let cwd = env.cwd();
    std::fs::create_dir_all(cwd.join("secrets")).unwrap();
    std::fs::write(cwd.join("secrets/key.txt"), SECRET).unwrap();
    std::fs::write(cwd.join("notes.txt"), "the notes say 42\n").unwrap();
    let outside = env.home.path().canonicalize().unwrap().join("outside.txt");
    std::fs::write(&outside, "OUTSIDE-CONTENT").unwrap();
    let settings = cwd.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(
        &settings,
        json!({"permissions": {"deny": ["Read(secrets/**)"], "ask": ["Read(notes.txt)"]}})
            .to_string(),
    )
    .unwrap();
    (settings, outside)
}

/// The content blocks of the last message of the only request, without the
/// user context (memory, date) placed before the prompt.
fn sent_blocks(env: &Env) -> Value {
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 1);
    prompt_blocks(&bodies[0])
}

/// The content blocks of the last message of a request `body`, without the
/// user context (memory, date) placed before the prompt.
pub(crate) fn prompt_blocks(body: &Value) -> Value {
    let last = body["messages"].as_array().unwrap().last().cloned();
    let mut content = last.unwrap()["content"].as_array().cloned().unwrap();
    content.retain(|b| {
        !b["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("<system-reminder>\nAs you answer"))
    });
    for block in &mut content {
        block.as_object_mut().unwrap().remove("cache_control");
    }
    Value::Array(content)
}

/// The two blocks an attached `file` holding `numbered` (as Read numbers
/// it) adds.
pub(crate) fn read_blocks(file: &Path, numbered: &str) -> [Value; 2] {
    let call = json!({"file_path": file});
    [
        json!({"type": "text", "text": format!("<system-reminder>\nCalled the Read tool with the following input: {call}\n</system-reminder>")}),
        json!({"type": "text", "text": format!("<system-reminder>\nResult of calling the Read tool:\n{numbered}</system-reminder>")}),
    ]
}

fn expected_blocks(env: &Env, prompt: &str) -> Value {
    let [call, result] = read_blocks(&env.cwd().join("notes.txt"), "1\tthe notes say 42\n");
    json!([{"type": "text", "text": prompt}, call, result])
}

/// The `attachment` values of the project's only transcript.
pub(crate) fn attachments(env: &Env) -> Vec<Value> {
    let transcripts = env.transcripts();
    assert_eq!(transcripts.len(), 1);
    std::fs::read_to_string(&transcripts[0])
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|record| record["type"] == "attachment")
        .map(|mut record| record["attachment"].take())
        .collect()
}

/// Claude Code's `attachment` value of a whole text file.
pub(crate) fn file_attachment(file: &Path, shown: &str, content: &str) -> Value {
    let lines = content.lines().count();
    json!({
        "type": "file",
        "filename": file,
        "content": {"type": "text", "file": {
            "filePath": file, "content": content,
            "numLines": lines, "startLine": 1, "totalLines": lines,
        }},
        "displayPath": shown,
    })
}

fn denied_notice(settings: &Path) -> String {
    format!(
        "@secrets/key.txt was not attached: Permission to use Read has been denied by rule `Read(secrets/**)` (projectSettings) in {}",
        settings.display()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_attaches_mentions_the_rules_allow_and_no_other() {
    let env = Env::new(Script::new([Reply::text("Compared.")])).await;
    let (settings, outside) = project(&env);
    let prompt = format!(
        "compare @secrets/key.txt with @notes.txt and @{}",
        outside.display()
    );
    let out = env.tack().args(["-p", &prompt]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Compared.\n");
    let mut expected = expected_blocks(&env, &prompt);
    let outside_blocks = read_blocks(&outside, "1\tOUTSIDE-CONTENT\n");
    expected.as_array_mut().unwrap().extend(outside_blocks);
    assert_eq!(sent_blocks(&env), expected);
    assert!(!env.request_bodies()[0].to_string().contains(SECRET));
    assert!(stderr.contains(&denied_notice(&settings)), "{stderr}");
    assert_eq!(
        attachments(&env),
        [
            file_attachment(
                &env.cwd().join("notes.txt"),
                "notes.txt",
                "the notes say 42\n"
            ),
            file_attachment(&outside, &outside.display().to_string(), "OUTSIDE-CONTENT"),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_attaches_mentions_the_rules_allow_and_no_other() {
    let env = Env::new(Script::new([Reply::text("Compared.")])).await;
    let (settings, _) = project(&env);
    let prompt = "compare @secrets/key.txt with @notes.txt";
    let line = json!({"type": "user", "message": {"role": "user", "content": prompt}});
    let out = env
        .tack()
        .args(common::STREAM_JSON)
        .write_stdin(format!("{line}\n"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(sent_blocks(&env), expected_blocks(&env, prompt));
    assert!(!String::from_utf8_lossy(&out.stdout).contains(SECRET));
    assert!(stderr.contains(&denied_notice(&settings)), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_ui_attaches_mentions_the_rules_allow_and_no_other() {
    let env = Env::new(Script::new([Reply::text("Compared.")])).await;
    let (settings, _) = project(&env);
    env.trust();
    let mut pty = tack(&env, 200, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    let prompt = "compare @secrets/key.txt with @notes.txt please";
    pty.send(format!("{prompt}\r").as_bytes()).unwrap();
    turn_over(&mut pty, "Compared.");
    pty.wait_for_text(&denied_notice(&settings)[..60], WAIT)
        .unwrap();
    pty.send(tack_tui::testing::keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(WAIT).unwrap().success());
    assert_eq!(sent_blocks(&env), expected_blocks(&env, prompt));
    assert!(!env.request_bodies()[0].to_string().contains(SECRET));
}
