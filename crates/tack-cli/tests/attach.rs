//! Attaching the terminal UI to background sessions, and sending a terminal's
//! session to the background, through the real binary in pseudo-terminals
//! against the scripted server: `tack attach` shows the conversation so far
//! and the live turn, sends follow-ups and answers permissions; ← (and
//! `/exit`) detach without touching the session; a killed attached terminal
//! loses nothing; `/bg` hands an idle session to a background one.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};
use tack_tui::testing::{PtySession, keys};

use crate::common::Env;
use crate::interactive::{WAIT, tack as tack_terminal, tack_command, turn_over};

/// `tack ARGS` in the project with no terminal: its exit status and stdout.
fn run(env: &Env, args: &[&str]) -> (bool, String, String) {
    let out = env.tack().args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Background sessions of one test: killed when it ends, passed or not.
#[derive(Default)]
struct Jobs(Vec<(String, PathBuf)>);

impl Jobs {
    /// `tack --bg PROMPT`; the job's id.
    fn start(&mut self, env: &Env, prompt: &str) -> String {
        let (ok, out, err) = run(env, &["--bg", prompt]);
        assert!(ok, "{err}");
        let id = out
            .trim_end()
            .strip_prefix("backgrounded · ")
            .unwrap_or_else(|| panic!("{out:?}"));
        self.adopt(env, id)
    }

    /// A job started otherwise (`/bg`), to be killed with the others.
    fn adopt(&mut self, env: &Env, id: &str) -> String {
        self.0
            .push((id.to_owned(), env.claude_dir().join("jobs").join(id)));
        id.to_owned()
    }

    /// The job's agent-view row once its `state` and `status` are these.
    fn wait(&self, id: &str, state: &str, status: &str) -> Value {
        self.wait_until(id, |row| row["state"] == state && row["status"] == status)
    }

    /// The job's agent-view row once `done` says so.
    fn wait_until(&self, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let dir = &self.0.iter().find(|(i, _)| i == id).unwrap().1;
        let until = Instant::now() + WAIT;
        loop {
            let row: Option<Value> = std::fs::read(dir.join("state.json"))
                .ok()
                .and_then(|text| serde_json::from_slice(&text).ok());
            if let Some(row) = row.as_ref().filter(|row| done(row)) {
                let mut row = row.clone();
                crate::background::agent_row(&mut row);
                return row;
            }
            assert!(Instant::now() < until, "{id} is still {row:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        for (_, dir) in &self.0 {
            let row: Option<Value> = std::fs::read(dir.join("state.json"))
                .ok()
                .and_then(|text| serde_json::from_slice(&text).ok());
            let pid = row.and_then(|r| r["pid"].as_i64()).unwrap_or(0);
            // Only the job's own process: its folder is in its arguments.
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let dir = dir.as_os_str().as_encoded_bytes();
            if pid > 0 && cmdline.split(|b| *b == 0).any(|arg| arg == dir) {
                // SAFETY: kill() with the pid of this test's own job.
                unsafe { libc::kill(i32::try_from(pid).unwrap(), libc::SIGKILL) };
            }
        }
    }
}

/// `tack agents --json --all`, by id.
fn agents(env: &Env) -> Value {
    let (ok, out, err) = run(env, &["agents", "--json", "--all"]);
    assert!(ok, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn bg_when_idle_hands_the_session_to_a_background_one() {
    let env = Env::new(Script::new([
        Reply::message()
            .text("Counting slowly.")
            .block_gap(Duration::from_secs(2))
            .text("Done counting.")
            .into(),
        Reply::text("Seven it is."),
        Reply::text("Still seven."),
    ]))
    .await;
    env.trust();
    let mut jobs = Jobs::default();
    let mut pty = tack_terminal(&env, 100, 30);
    pty.wait_for_text("? for shortcuts", WAIT).unwrap();
    // While a turn runs, /bg is refused: the turn goes on here.
    pty.send(b"count slowly\r").unwrap();
    pty.wait_for_text("esc to interrupt", WAIT).unwrap();
    pty.send(b"/bg\r").unwrap();
    pty.wait_for_text("A turn is running: wait for it to end", WAIT)
        .unwrap();
    turn_over(&mut pty, "Done counting.");
    pty.send(b"remember the number 7\r").unwrap();
    turn_over(&mut pty, "Seven it is.");
    let sessions = env.transcripts();
    assert_eq!(sessions.len(), 1);
    let session_id = sessions[0]
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();

    pty.send(b"/bg").unwrap();
    pty.wait_for_text("Send this session to the background", WAIT)
        .unwrap();
    pty.send(keys::ENTER).unwrap();
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success());
    let screen = pty.screen_text();
    let id = screen
        .lines()
        .find_map(|l| l.trim().strip_prefix("backgrounded · "))
        .unwrap_or_else(|| panic!("{screen}"))
        .to_owned();
    let id = jobs.adopt(&env, &id);
    assert!(screen.contains(&format!("attach {id}")), "{screen}");

    // A background session of the same conversation, idle: nothing was sent
    // again.
    let row = jobs.wait(&id, "done", "idle");
    assert_eq!(row["sessionId"], json!(session_id));
    assert_eq!(row["name"], json!("count slowly"));
    assert_eq!(agents(&env), json!([row]));
    assert_eq!(env.request_bodies().len(), 2);
    let (ok, logs, _) = run(&env, &["logs", &id]);
    assert!(ok);
    assert!(
        logs.ends_with("> remember the number 7\nSeven it is.\n"),
        "{logs}"
    );
    assert!(logs.starts_with("> count slowly\n"), "{logs}");
    // Its arguments are kept for `respawn`, as `--bg` keeps them.
    let kept = std::fs::read(env.claude_dir().join("jobs").join(&id).join("args.json")).unwrap();
    let kept: Vec<String> = serde_json::from_slice(&kept).unwrap();
    assert_eq!(kept[kept.len() - 2..], ["-r".to_owned(), session_id]);
}

/// `tack attach ID` in a terminal of its own.
fn attach(env: &Env, id: &str) -> PtySession {
    let mut cmd = tack_command(env);
    cmd.args(["attach", id]);
    PtySession::spawn(cmd, 100, 30).unwrap()
}

/// `tack --bg PROMPT` once its row has `(state, status)`, and two terminals
/// attached to it, both showing `shown`.
fn two_terminals(
    env: &Env,
    prompt: &str,
    (state, status): (&str, &str),
    shown: &str,
) -> (Jobs, String, PtySession, PtySession) {
    let mut jobs = Jobs::default();
    let id = jobs.start(env, prompt);
    jobs.wait(&id, state, status);
    let mut one = attach(env, &id);
    let mut two = attach(env, &id);
    one.wait_for_text(shown, WAIT).unwrap();
    two.wait_for_text(shown, WAIT).unwrap();
    (jobs, id, one, two)
}

/// A background session ("get ready" → "ready") and a terminal attached to
/// it, in the middle of a follow-up's answer: "Working on it.", then 2 s,
/// then "All finished.".
async fn mid_slow_turn() -> (Env, Jobs, String, PtySession) {
    let env = Env::new(Script::new([
        Reply::text("ready"),
        Reply::message()
            .text("Working on it.")
            .block_gap(Duration::from_secs(2))
            .text("All finished.")
            .into(),
    ]))
    .await;
    let mut jobs = Jobs::default();
    let id = jobs.start(&env, "get ready");
    jobs.wait(&id, "done", "idle");
    let mut pty = attach(&env, &id);
    pty.wait_for_text("ready", WAIT).unwrap();
    pty.send(b"do the long thing\r").unwrap();
    pty.wait_for_text("Working on it.", WAIT).unwrap();
    (env, jobs, id, pty)
}

/// Detaches with `key`; the terminal says how to come back.
fn detach(pty: &mut PtySession, key: &[u8], id: &str) {
    pty.send(key).unwrap();
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success());
    let said = format!("detached · {id} still running");
    assert!(pty.screen_text().contains(&said), "{}", pty.screen_text());
}

/// The words of each message of a request (system reminders left out).
fn said(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .filter(|t| !t.starts_with("<system-reminder>"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn attach_shows_the_conversation_sends_a_follow_up_and_left_detaches() {
    let env = Env::new(Script::new([
        Reply::text("the answer is 42"),
        Reply::text("still 42"),
    ]))
    .await;
    let mut jobs = Jobs::default();
    let id = jobs.start(&env, "what is the answer");
    let row = jobs.wait(&id, "done", "idle");

    let mut pty = attach(&env, &id);
    pty.wait_for_text("the answer is 42", WAIT).unwrap();
    let screen = pty.screen_text();
    assert!(screen.contains("> what is the answer"), "{screen}");
    assert!(
        screen.contains(&format!("Attached to background session {id}")),
        "{screen}"
    );
    pty.send(b"and now?\r").unwrap();
    turn_over(&mut pty, "still 42");
    // The model got the follow-up with the conversation before it.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(
        said(&bodies[1]),
        ["what is the answer", "the answer is 42", "and now?"]
    );

    detach(&mut pty, keys::LEFT, &id);
    // The same process goes on, idle.
    assert_eq!(jobs.wait(&id, "done", "idle"), row);
    assert_eq!(agents(&env)[0]["status"], json!("idle"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_waiting_for_a_permission_is_answered_from_an_attached_terminal() {
    let env = Env::new(touch_made_txt()).await;
    let mut jobs = Jobs::default();
    let id = jobs.start(&env, "make the file");
    jobs.wait(&id, "blocked", "waiting");

    // By its name (the prompt's first words), which one job alone has.
    let mut pty = attach(&env, "make the file");
    pty.wait_for_text("Do you want to proceed?", WAIT).unwrap();
    assert!(pty.screen_text().contains("make the file"));
    pty.send(b"1").unwrap();
    turn_over(&mut pty, "Made it.");
    assert!(env.cwd().join("made.txt").exists());
    jobs.wait(&id, "done", "idle");

    pty.send(b"/exit").unwrap();
    pty.wait_for_text("Exit tack", WAIT).unwrap();
    detach(&mut pty, keys::ENTER, &id);
    jobs.wait(&id, "done", "idle");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_attached_terminals_both_show_a_follow_up_and_its_answer() {
    let env = Env::new(Script::new([
        Reply::text("first answer"),
        Reply::text("the answer to the follow-up"),
    ]))
    .await;
    let (jobs, id, mut one, mut two) =
        two_terminals(&env, "first question", ("done", "idle"), "first answer");
    one.send(b"a follow-up from one\r").unwrap();
    turn_over(&mut one, "the answer to the follow-up");
    turn_over(&mut two, "the answer to the follow-up");
    assert!(two.screen_text().contains("a follow-up from one"));

    detach(&mut one, keys::CTRL_D, &id);
    // Ctrl-C twice on an idle prompt.
    two.send(keys::CTRL_C).unwrap();
    detach(&mut two, keys::CTRL_C, &id);
    jobs.wait(&id, "done", "idle");
}

#[tokio::test(flavor = "multi_thread")]
async fn killing_an_attached_terminal_mid_turn_loses_nothing() {
    let (env, jobs, id, mut pty) = mid_slow_turn().await;
    let pid = i32::try_from(pty.pid().unwrap()).unwrap();
    // SAFETY: kill() with the pid of the terminal this test started.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    pty.wait_exit(WAIT).unwrap();

    // The turn goes on without it, and ends well.
    jobs.wait(&id, "done", "idle");
    let (ok, logs, _) = run(&env, &["logs", &id]);
    assert!(ok);
    assert_eq!(
        logs,
        "> get ready\nready\n> do the long thing\nWorking on it.\nAll finished.\n"
    );
    assert_eq!(env.request_bodies().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn attaching_without_a_terminal_or_to_a_session_that_is_not_running_says_what_to_do() {
    let env = Env::new(Script::new([Reply::text("done")])).await;
    let mut jobs = Jobs::default();
    let id = jobs.start(&env, "a short one");
    let row = jobs.wait(&id, "done", "idle");
    // Live, but no terminal here: where to read it instead.
    let (ok, _, err) = run(&env, &["attach", &id]);
    assert_eq!(
        (ok, err),
        (
            false,
            format!(
                "Error: tack attach needs a terminal: `tack logs {id}` prints the conversation\n"
            )
        )
    );
    let (ok, out, _) = run(&env, &["stop", &id]);
    assert!(ok, "{out}");
    let session = row["sessionId"].as_str().unwrap();
    let (ok, out, err) = run(&env, &["attach", &id]);
    assert_eq!(
        (ok, out, err),
        (
            false,
            String::new(),
            format!(
                "Error: background session {id} has ended: `tack logs {id}` shows it, `tack -r {session}` continues it\n"
            )
        )
    );
}

/// How long `tack attach` takes to draw a 20-turn conversation (debug
/// build: the figure is printed, the bound loose; BENCHMARKS.md has the
/// release figure).
#[tokio::test(flavor = "multi_thread")]
async fn attach_draws_a_twenty_turn_conversation_at_once() {
    let env = Env::new(Script::new(
        (0..20)
            .map(|i| Reply::text(&format!("answer number {i}")))
            .collect::<Vec<_>>(),
    ))
    .await;
    let session_id = "5f0c3a52-8d5e-4c0e-9a57-0a1b2c3d4e5f";
    for i in 0..20 {
        let prompt = format!("question number {i}");
        let mut args = vec!["-p", &prompt];
        if i == 0 {
            args.extend(["--session-id", session_id]);
        } else {
            args.extend(["-r", session_id]);
        }
        assert!(run(&env, &args).0);
    }
    let mut jobs = Jobs::default();
    let (ok, out, err) = run(&env, &["--bg", "-r", session_id]);
    assert!(ok, "{err}");
    let id = jobs.adopt(
        &env,
        out.trim_end().strip_prefix("backgrounded · ").unwrap(),
    );
    jobs.wait(&id, "done", "idle");
    // Its socket is there once it serves.
    let socket = env.claude_dir().join("jobs").join(&id).join("session.sock");
    let until = Instant::now() + WAIT;
    while !socket.exists() {
        assert!(Instant::now() < until);
        std::thread::sleep(Duration::from_millis(10));
    }

    let started = Instant::now();
    let mut pty = attach(&env, &id);
    pty.wait_until("the last answer", WAIT, |s| {
        s.contents().contains("answer number 19") && s.contents().contains("? for shortcuts")
    })
    .unwrap();
    let took = started.elapsed();
    println!("tack attach to a first full screen (20 turns): {took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    detach(&mut pty, keys::LEFT, &id);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_attached_terminal_says_so_and_leaves_when_the_session_is_stopped() {
    let env = Env::new(Script::new([Reply::text("here I am")])).await;
    let mut jobs = Jobs::default();
    let id = jobs.start(&env, "are you there");
    jobs.wait(&id, "done", "idle");
    let mut pty = attach(&env, &id);
    pty.wait_for_text("here I am", WAIT).unwrap();
    let (ok, out, _) = run(&env, &["stop", &id]);
    assert_eq!((ok, out), (true, format!("stopped {id}\n")));
    let status = pty.wait_exit(WAIT).unwrap();
    assert!(status.success());
    let screen = pty.screen_text();
    assert!(
        screen.contains(&format!("background session {id} ended")),
        "{screen}"
    );
}

/// A script that asks to run `touch made.txt`, then says "Made it.".
fn touch_made_txt() -> Script {
    Script::new([
        Reply::tool_use("toolu_1", "Bash", json!({"command": "touch made.txt"})),
        Reply::text("Made it."),
    ])
}

#[tokio::test(flavor = "multi_thread")]
async fn left_mid_turn_detaches_and_the_turn_goes_on() {
    let (env, jobs, id, mut pty) = mid_slow_turn().await;
    detach(&mut pty, keys::LEFT, &id);
    assert_eq!(jobs.wait(&id, "working", "busy")["state"], json!("working"));
    jobs.wait(&id, "done", "idle");
    let (_, logs, _) = run(&env, &["logs", &id]);
    assert!(logs.ends_with("Working on it.\nAll finished.\n"), "{logs}");
}

#[tokio::test(flavor = "multi_thread")]
async fn attaching_mid_turn_shows_the_turn_so_far_once_and_its_end() {
    let (env, _jobs, id, mut first) = mid_slow_turn().await;

    // A second terminal comes in while the answer is half streamed.
    let mut late = attach(&env, &id);
    late.wait_for_text("Working on it.", WAIT).unwrap();
    assert!(late.screen_text().contains("> do the long thing"));
    turn_over(&mut late, "All finished.");
    let rows = late.all_rows();
    let once = |needle: &str| rows.iter().filter(|r| r.contains(needle)).count();
    assert_eq!(
        (
            once("do the long thing"),
            once("Working on it."),
            once("All finished.")
        ),
        (1, 1, 1),
        "{rows:#?}"
    );
    detach(&mut late, keys::LEFT, &id);
    detach(&mut first, keys::LEFT, &id);
}

#[tokio::test(flavor = "multi_thread")]
async fn esc_mid_turn_interrupts_it_and_the_terminal_stays_attached() {
    let (env, jobs, id, mut pty) = mid_slow_turn().await;
    pty.send(keys::ESC).unwrap();
    pty.wait_for_text("Interrupted", WAIT).unwrap();
    // Its turn is over (how the row names an interrupted turn is the
    // session's business), and the session waits for more.
    let over = |row: &Value| row["status"] == "idle" && row["state"] != "working";
    let row = jobs.wait_until(&id, over);
    assert!(!pty.screen_text().contains("All finished."));
    // Still attached to the same live session.
    detach(&mut pty, keys::LEFT, &id);
    assert_eq!(jobs.wait_until(&id, over), row);
    assert_eq!(agents(&env)[0]["status"], json!("idle"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_answered_in_one_terminal_closes_the_dialog_in_the_other() {
    let env = Env::new(touch_made_txt()).await;
    let (_jobs, id, mut one, mut two) = two_terminals(
        &env,
        "make the file",
        ("blocked", "waiting"),
        "Do you want to proceed?",
    );
    one.send(b"1").unwrap();
    turn_over(&mut one, "Made it.");
    turn_over(&mut two, "Made it.");
    assert!(!two.screen_text().contains("Do you want to proceed?"));
    assert!(env.cwd().join("made.txt").exists());
    // The prompt is the other terminal's again.
    detach(&mut two, keys::LEFT, &id);
    detach(&mut one, keys::LEFT, &id);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_attached_terminal_whose_session_is_killed_says_the_connection_was_lost() {
    let env = Env::new(Script::new([Reply::text("here I am")])).await;
    let mut jobs = Jobs::default();
    let id = jobs.start(&env, "are you there");
    let row = jobs.wait(&id, "done", "idle");
    let mut pty = attach(&env, &id);
    pty.wait_for_text("here I am", WAIT).unwrap();
    let pid = i32::try_from(row["pid"].as_i64().unwrap()).unwrap();
    // SAFETY: kill() with the pid of this test's own background session.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let status = pty.wait_exit(WAIT).unwrap();
    assert_eq!(status.exit_code(), 1);
    let screen = pty.screen_text();
    assert!(
        screen.contains(&format!("lost the connection to background session {id}")),
        "{screen}"
    );
    assert_eq!(agents(&env)[0]["status"], json!("killed"));
    let (ok, _, err) = run(&env, &["attach", &id]);
    assert_eq!(
        (ok, err),
        (
            false,
            format!(
                "Error: background session {id} is not running (it was killed): `tack respawn {id}` resumes it\n"
            )
        )
    );
}
