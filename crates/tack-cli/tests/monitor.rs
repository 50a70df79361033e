//! End-to-end: Monitor turns a command's lines into events the model
//! answers; its command is decided as Bash would decide it; TaskStop stops it.
//! The runtime is driven in-process against the scripted server.

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_runtime::schedule::ManualClock;
use tack_runtime::{SessionChoice, UserInput};
use tack_testkit::{Reply, Script};

use crate::common::{Env, last_texts, last_tool_results, write};
use crate::schedule::{Session, session, start_time};

/// User settings (trusted) with these permission rules.
pub(crate) fn user_rules(env: &Env, rules: serde_json::Value) {
    write(
        env.claude_dir().join("settings.json"),
        &json!({ "permissions": rules }).to_string(),
    );
}

/// A new session (with the environment's variables and `extra`) given
/// `prompt`, its first turn ending with `answer`.
pub(crate) async fn prompted(
    env: &Env,
    extra: &[(&str, &str)],
    prompt: &str,
    answer: &str,
) -> Session {
    let clock = ManualClock::new(start_time());
    let mut s = session(env, &clock, SessionChoice::New { id: None }, extra).await;
    s.handle.submit(UserInput::text(prompt)).unwrap();
    assert_eq!(s.turn().await, answer);
    s
}

/// The task id in a Monitor's `Monitor <id> started: …` result.
pub(crate) fn monitor_id(result: &str) -> String {
    result["Monitor ".len().."Monitor ".len() + 9].to_owned()
}

/// The result of Monitor `id` started for `description`: each `what`
/// arrives; it stops after `secs`, or when it `ends`.
pub(crate) fn started(id: &str, description: &str, what: &str, secs: u64, ends: &str) -> String {
    format!(
        "Monitor {id} started: {description}. Each {what} arrives as a <monitor-event> message; it stops after {secs}s, when {ends}, or with TaskStop {id}."
    )
}

/// One event of Monitor `id` (`description`) with `body`.
pub(crate) fn event(id: &str, description: &str, body: &str) -> String {
    format!(
        "<monitor-event task_id=\"{id}\" description=\"{description}\">\n{body}\n</monitor-event>"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commands_lines_become_events_the_model_answers() {
    let command =
        "while [ ! -e go ]; do sleep 0.05; done; echo 'error: boom'; echo 'error: bang'; sleep 600";
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "t1",
                "Monitor",
                json!({"description": "build log", "command": command, "timeout_ms": 600000}),
            )
            .into(),
        Reply::text("Watching the build."),
        Reply::text("Two errors: boom and bang."),
    ]))
    .await;
    user_rules(&env, json!({"allow": ["Monitor"]}));
    let mut s = prompted(&env, &[], "watch the build", "Watching the build.").await;
    let results = last_tool_results(&env.request_bodies()[1]);
    let id = monitor_id(&results[0].1);
    let what = "line it prints";
    assert_eq!(
        results,
        [(
            "t1".to_owned(),
            started(&id, "build log", what, 600, "the command exits")
        )]
    );
    // The lines come when the test says: the idle session wakes for them.
    write(env.cwd().join("go"), "");
    assert_eq!(s.turn().await, "Two errors: boom and bang.");
    assert_eq!(
        last_texts(&env.request_bodies()[2]),
        [event(&id, "build log", "error: boom\nerror: bang")]
    );

    // TaskStop stops it (and everything it started).
    env.server.push(
        Reply::message()
            .tool_use("t2", "TaskStop", json!({"task_id": id}))
            .into(),
    );
    env.server.push(Reply::text("Stopped watching."));
    s.handle.submit(UserInput::text("stop watching")).unwrap();
    assert_eq!(s.turn().await, "Stopped watching.");
    assert_eq!(
        last_tool_results(&env.request_bodies()[4]),
        [(
            "t2".to_owned(),
            format!("Successfully stopped task: {id} (build log)")
        )]
    );
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_monitors_command_is_decided_as_bash_would_decide_it() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use("t1", "Bash", json!({"command": "rm -rf precious"}))
            .tool_use(
                "t2",
                "Monitor",
                json!({"description": "cleanup", "command": "rm -rf precious"}),
            )
            .into(),
        Reply::text("Both refused."),
    ]))
    .await;
    write(env.cwd().join("precious/keep"), "keep");
    user_rules(&env, json!({"deny": ["Bash(rm:*)"]}));
    let s = prompted(&env, &[], "clean up", "Both refused.").await;
    // Monitor's command meets Bash's rules: the same refusal, word for word.
    let refused = format!(
        "Permission to use Bash has been denied by rule `Bash(rm:*)` (userSettings) in {}",
        env.claude_dir().join("settings.json").display()
    );
    assert_eq!(
        last_tool_results(&env.request_bodies()[1]),
        [
            ("t1".to_owned(), refused.clone()),
            ("t2".to_owned(), refused)
        ]
    );
    assert!(env.cwd().join("precious/keep").exists());
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_p_waits_for_a_running_monitor_and_answers_its_events() {
    let command = "while [ ! -e go ]; do sleep 0.05; done; echo 'deploy finished'; sleep 1";
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "t1",
                "Monitor",
                json!({"description": "deploy", "command": command}),
            )
            .into(),
        Reply::text("Waiting for the deploy."),
        Reply::text("The deploy finished."),
        Reply::text("The watch is over."),
    ]))
    .await;
    user_rules(&env, json!({"allow": ["Monitor"]}));
    let mut tack = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"));
    tack.env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(["-p", "tell me when the deploy is done"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = tack.spawn().unwrap();
    // The first turn is over; the session waits for the monitor.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while env.request_bodies().len() < 2 {
        assert!(std::time::Instant::now() < deadline, "no second request");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    write(env.cwd().join("go"), "");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bodies = env.request_bodies();
    let id = monitor_id(&last_tool_results(&bodies[1])[0].1);
    assert_eq!(
        [last_texts(&bodies[2]), last_texts(&bodies[3])],
        [
            vec![event(&id, "deploy", "deploy finished")],
            vec![event(
                &id,
                "deploy",
                "[The command exited (code 0); the monitor has ended.]"
            )],
        ]
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "The watch is over.\n");
}
