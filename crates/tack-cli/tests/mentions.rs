//! End to end: `@path` mentions are resolved by the runtime under the
//! permission rules, the same in `-p`, stream-json and the terminal UI: a file a deny
//! rule keeps from Read is not attached (the model never sees it, the user is
//! told which rule stopped it), nor is a file outside the working
//! directories; an ask rule does not stop a file the user named.

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
    let last = bodies[0]["messages"].as_array().unwrap().last().cloned();
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

fn expected_blocks(prompt: &str) -> Value {
    json!([
        {"type": "text", "text": prompt},
        {"type": "text", "text": "<system-reminder>\nThe user mentioned @notes.txt; its contents:\nthe notes say 42\n\n</system-reminder>"},
    ])
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
    assert_eq!(sent_blocks(&env), expected_blocks(&prompt));
    let all = env.request_bodies()[0].to_string();
    assert!(!all.contains(SECRET) && !all.contains("OUTSIDE-CONTENT"));
    assert!(stderr.contains(&denied_notice(&settings)), "{stderr}");
    let outside_notice = format!(
        "@{0} was not attached: Read touches a path outside the working directories ({0})",
        outside.display()
    );
    assert!(stderr.contains(&outside_notice), "{stderr}");
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
    assert_eq!(sent_blocks(&env), expected_blocks(prompt));
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
    assert_eq!(sent_blocks(&env), expected_blocks(prompt));
    assert!(!env.request_bodies()[0].to_string().contains(SECRET));
}
