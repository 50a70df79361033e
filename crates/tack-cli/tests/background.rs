//! Background sessions through the real binary against the scripted server:
//! `tack --bg` returns an id at once and the session completes on its own;
//! `agents --json` lists it from its job folder; `logs` reads its transcript;
//! `stop` ends it and its tools' processes; a session that waits for a
//! permission is `blocked`; `kill -9` of the session shows in `agents`; `rm`
//! leaves nothing.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{Env, last_texts};

/// `tack ARGS` in the project, its whole output, and how long it took.
pub(crate) fn tack(env: &Env, args: &[&str]) -> (std::process::Output, Duration) {
    let start = Instant::now();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (out, start.elapsed())
}

/// `tack ARGS`'s stdout; it must succeed.
fn stdout(env: &Env, args: &[&str]) -> String {
    let (out, _) = tack(env, args);
    assert!(out.status.success(), "tack {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Starts `tack --bg ARGS`; the job's id and folder, and its session
/// killed when the test ends.
pub(crate) fn background(env: &Env, args: &[&str]) -> (String, PathBuf, Reap) {
    let (out, took) = tack(env, &[&["--bg"], args].concat());
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).unwrap();
    let id = printed
        .strip_prefix("backgrounded · ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("not an id: {printed:?}"))
        .to_owned();
    assert!(
        id.len() == 8 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
        "{id}"
    );
    // The aim is 50 ms from process start (BENCHMARKS.md, release build);
    // a debug build on a busy machine gets more room.
    assert!(took < Duration::from_secs(2), "--bg took {took:?}");
    let dir = env.claude_dir().join("jobs").join(&id);
    // The row is there when `--bg` returns, with the session's pid.
    let reap = Reap(state(&dir)["pid"].as_i64().unwrap());
    (id, dir, reap)
}

/// A project whose model calls Bash with `command`, once.
async fn bash_call(command: &str) -> Env {
    let call = Reply::tool_use("toolu_1", "Bash", json!({ "command": command }));
    Env::new(Script::new([call])).await
}

/// The keys of `state.json` that Claude Code's readers look for beside the
/// agent view's row (`the_state_json_carries_claude_codes_other_keys`).
pub(crate) const CLAUDE_KEYS: [&str; 6] = [
    "nameSource",
    "intent",
    "detail",
    "output",
    "createdAt",
    "updatedAt",
];

/// `state.json`'s agent-view row (its other keys left out).
pub(crate) fn state(dir: &Path) -> Value {
    let mut row: Value =
        serde_json::from_slice(&std::fs::read(dir.join("state.json")).unwrap()).unwrap();
    agent_row(&mut row);
    row
}

/// `row` less the keys the agent view does not show (they change with
/// every answer).
pub fn agent_row(row: &mut Value) {
    if let Some(row) = row.as_object_mut() {
        for key in CLAUDE_KEYS {
            row.remove(key);
        }
    }
}

fn state_and_status(dir: &Path) -> (Value, Value) {
    let row = state(dir);
    (row["state"].clone(), row["status"].clone())
}

/// Waits until `state.json` has `state` and `status`; its agent-view row.
pub(crate) fn wait_for(dir: &Path, want_state: &str, want_status: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read(dir.join("state.json")) {
            let mut row: Value = serde_json::from_slice(&text).unwrap();
            if row["state"] == want_state && row["status"] == want_status {
                agent_row(&mut row);
                return row;
            }
            assert!(Instant::now() < until, "still {row} in {}", dir.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn agents(env: &Env, args: &[&str]) -> Value {
    serde_json::from_str(&stdout(env, &[&["agents", "--json"], args].concat())).unwrap()
}

/// Kills the session `pid` when the test ends, passed or not: a failed test
/// leaves no background session behind.
pub(crate) struct Reap(i64);

impl Drop for Reap {
    fn drop(&mut self) {
        if running(self.0) {
            // SAFETY: kill() with the session's pid, read from its own state.
            unsafe { libc::kill(i32::try_from(self.0).unwrap(), libc::SIGKILL) };
        }
    }
}

fn running(pid: i64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit_once(')')
            .unwrap()
            .1
            .trim_start()
            .starts_with('Z')
    })
}

fn wait_gone(pid: i64) {
    let until = Instant::now() + Duration::from_secs(15);
    while running(pid) {
        assert!(Instant::now() < until, "process {pid} is still running");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `kill -9` of the session whose row is `row`, once it is gone.
pub(crate) fn kill_9(row: &Value) {
    let pid = row["pid"].as_i64().unwrap();
    // SAFETY: kill() with the session's pid, read from its own state.
    unsafe { libc::kill(i32::try_from(pid).unwrap(), libc::SIGKILL) };
    wait_gone(pid);
}

/// A model whose first answer stalls mid-stream for a minute (a turn a kill
/// can cut), then answers `then`.
async fn stalling_then(then: &[&str]) -> Env {
    let stall = Reply::message()
        .text("a long answer")
        .stall_after(4, Duration::from_secs(60))
        .into();
    let replies = std::iter::once(stall).chain(then.iter().map(|t| Reply::text(t)));
    Env::new(Script::new(replies.collect::<Vec<_>>())).await
}

/// Starts `tack --bg ARGS` on a stalling model and waits until its turn is
/// under way (the model has the request); its id, folder and row.
fn mid_turn(env: &Env, args: &[&str]) -> (String, PathBuf, Reap, Value) {
    let (id, dir, reap) = background(env, args);
    wait_requests(env, 1);
    let row = wait_for(&dir, "working", "busy");
    (id, dir, reap, row)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_background_session_completes_is_listed_logged_stopped_and_removed() {
    let env = Env::new(Script::new([
        Reply::text("the answer is 42"),
        Reply::text("still 42"),
    ]))
    .await;
    let (id, dir, _reap) = background(&env, &["what is the answer"]);

    let row = wait_for(&dir, "done", "idle");
    let pid = row["pid"].as_i64().unwrap();
    let session_id = row["sessionId"].as_str().unwrap().to_owned();
    let expected = json!({
        "pid": pid,
        "id": id,
        "cwd": env.cwd(),
        "kind": "background",
        "startedAt": row["startedAt"],
        "sessionId": session_id,
        "name": "what is the answer",
        "status": "idle",
        "state": "done",
    });
    assert_eq!(row, expected);
    assert!(running(pid));
    assert_eq!(agents(&env, &[]), json!([expected]));
    // The model got the prompt once.
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 1);
    assert_eq!(
        last_texts(&bodies[0]).last().map(String::as_str),
        Some("what is the answer")
    );
    use std::os::unix::fs::PermissionsExt;
    let socket = dir.join("session.sock");
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    assert_eq!(
        stdout(&env, &["logs", &id]),
        "> what is the answer\nthe answer is 42\n"
    );
    // Its transcript is where every session's is, under its own id.
    let transcript = env.store().find_session(&env.cwd(), &session_id).unwrap();
    assert!(transcript.ends_with(format!("{session_id}.jsonl")));

    // A running session cannot be removed.
    let (refused, _) = tack(&env, &["rm", &id]);
    assert!(!refused.status.success());
    assert!(dir.exists());

    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(pid);
    let mut stopped = expected.clone();
    stopped["status"] = json!("ended");
    stopped["state"] = json!("stopped");
    assert_eq!(state(&dir), stopped);
    assert!(!socket.exists());
    assert_eq!(agents(&env, &[]), json!([]));
    assert_eq!(agents(&env, &["--all"]), json!([state(&dir)]));

    assert_eq!(stdout(&env, &["rm", &id]), format!("removed {id}\n"));
    assert!(!dir.exists());
    assert_eq!(agents(&env, &["--all"]), json!([]));

    // Resumable by its id as any session: the model sees the conversation.
    assert_eq!(
        stdout(&env, &["-p", "-r", &session_id, "and now?"]),
        "still 42\n"
    );
    let resumed = &env.request_bodies()[1];
    let said: Vec<&str> = resumed["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter_map(|b| b["text"].as_str())
        .filter(|t| !t.starts_with("<system-reminder>"))
        .collect();
    assert_eq!(said, ["what is the answer", "the answer is 42", "and now?"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_background_sessions_started_at_once_all_complete() {
    let env = Env::new(Script::new(
        (0..20)
            .map(|_| Reply::text("done here"))
            .collect::<Vec<_>>(),
    ))
    .await;
    let jobs: Vec<(String, PathBuf, Reap)> = std::thread::scope(|scope| {
        let started: Vec<_> = (0..20)
            .map(|i| {
                scope.spawn({
                    let env = &env;
                    move || background(env, &[&format!("task number {i}")])
                })
            })
            .collect();
        started.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (_, dir, _) in &jobs {
        wait_for(dir, "done", "idle");
    }
    let listed = agents(&env, &[]);
    let mut ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let mut want: Vec<&str> = jobs.iter().map(|(id, _, _)| id.as_str()).collect();
    want.sort_unstable();
    assert_eq!(ids, want);
    assert_eq!(env.request_bodies().len(), 20);
    for (id, _, _) in &jobs {
        assert_eq!(stdout(&env, &["stop", id]), format!("stopped {id}\n"));
    }
}

/// The pid the tool of the job in `dir` wrote to `tool.pid`, once it has.
fn tool_pid(env: &Env, dir: &Path) -> i64 {
    let pid_file = env.cwd().join("tool.pid");
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < until, "the tool never ran: {}", state(dir));
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_ends_a_session_mid_tool_call_and_the_tools_process() {
    let env = bash_call("echo $$ > tool.pid; exec sleep 300").await;
    let (id, dir, _reap) = background(
        &env,
        &["--permission-mode", "bypassPermissions", "sleep a while"],
    );
    let tool = tool_pid(&env, &dir);
    let row = wait_for(&dir, "working", "busy");
    let session = row["pid"].as_i64().unwrap();
    let _reap_tool = Reap(tool);
    assert!(running(tool));

    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(session);
    wait_gone(tool);
    assert_eq!(state_and_status(&dir), (json!("stopped"), json!("ended")));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_waiting_for_a_permission_is_blocked() {
    let env = bash_call("touch made.txt").await;
    let (id, dir, _reap) = background(&env, &["make a file"]);
    let row = wait_for(&dir, "blocked", "waiting");
    assert_eq!(agents(&env, &[]), json!([row]));
    assert!(!env.cwd().join("made.txt").exists());
    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(row["pid"].as_i64().unwrap());
    assert_eq!(state(&dir)["state"], "stopped");
    assert!(!env.cwd().join("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_of_the_session_mid_turn_shows_in_agents_and_loses_no_prompt() {
    let env = stalling_then(&[]).await;
    let (id, dir, _reap, row) = mid_turn(&env, &["think long"]);
    assert!(row["sessionId"].is_string(), "{row}");
    kill_9(&row);

    let mut killed = row.clone();
    killed["status"] = json!("killed");
    killed["state"] = json!("failed");
    assert_eq!(agents(&env, &[]), json!([killed]));
    let cwd = env.cwd();
    let age = aged(&dir, 7200);
    assert_eq!(
        stdout(&env, &["agents"]),
        format!(
            "ID        STATE   AGE  NAME        CWD\n{id}  killed  {}   think long  {}\n",
            age,
            cwd.display()
        )
    );
    // The prompt was on disk before the model was asked.
    assert_eq!(stdout(&env, &["logs", &id]), "> think long\n");

    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    assert_eq!(stdout(&env, &["rm", &id]), format!("removed {id}\n"));
    assert!(!dir.exists());
    assert_eq!(agents(&env, &["--all"]), json!([]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_that_cannot_start_is_failed_and_says_why() {
    let env = Env::new(Script::new([])).await;
    let missing = env.home.path().join("missing.json");
    let missing = missing.to_str().unwrap();
    let (id, dir, _reap) = background(&env, &["--settings", missing, "hello"]);
    let row = wait_for(&dir, "failed", "ended");
    assert_eq!(agents(&env, &[]), json!([]));
    assert_eq!(agents(&env, &["--all"]), json!([row]));
    let why = std::fs::read_to_string(dir.join("err.log")).unwrap();
    assert_eq!(
        why,
        format!(
            "Error: cannot read settings file {missing}: No such file or directory (os error 2)\n"
        )
    );
    assert!(env.request_bodies().is_empty());
    assert_eq!(stdout(&env, &["rm", &id]), format!("removed {id}\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_without_a_prompt_waits_idle_and_stops_at_once() {
    let env = Env::new(Script::new([])).await;
    let (id, dir, _reap) = background(&env, &[]);
    let row = wait_for(&dir, "done", "idle");
    assert_eq!(row["name"], "");
    // Serving: the session has started and watches for `stop`.
    let until = Instant::now() + Duration::from_secs(30);
    while !dir.join("session.sock").exists() {
        assert!(Instant::now() < until, "never served");
        std::thread::sleep(Duration::from_millis(20));
    }
    // It ends itself on `stop`, well within the grace `stop` gives it.
    let (out, took) = tack(&env, &["stop", &id]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("stopped {id}\n")
    );
    assert!(took < Duration::from_secs(5), "stop took {took:?}");
    wait_gone(row["pid"].as_i64().unwrap());
    assert_eq!(state_and_status(&dir), (json!("stopped"), json!("ended")));
    assert!(env.request_bodies().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn stop_right_after_bg_ends_it_whatever_it_had_reached() {
    let env = Env::new(Script::new([Reply::text("hi")])).await;
    let (id, dir, _reap) = background(&env, &["hello"]);
    let pid = state(&dir)["pid"].as_i64().unwrap();
    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(pid);
    assert_eq!(state_and_status(&dir), (json!("stopped"), json!("ended")));
    assert_eq!(agents(&env, &[]), json!([]));
}

/// The texts of a request's messages, system reminders left out.
fn said(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| match &m["content"] {
            Value::String(text) => vec![text.clone()],
            blocks => blocks
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect(),
        })
        .filter(|t| !t.starts_with("<system-reminder>"))
        .collect()
}

/// Waits until the model has had `n` requests.
fn wait_requests(env: &Env, n: usize) {
    let until = Instant::now() + Duration::from_secs(30);
    while env.request_bodies().len() < n {
        assert!(
            Instant::now() < until,
            "{} requests",
            env.request_bodies().len()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `prompt` to the session served at `socket` and waits for its turn
/// to end.
async fn follow_up(socket: &Path, prompt: &str) -> bool {
    use tack_runtime::serve::{Frame, SessionClient};
    use tack_runtime::{Op, RuntimeEvent, UserInput};
    // A killed session's socket may still be there until the new one binds.
    let until = Instant::now() + Duration::from_secs(30);
    let mut client = loop {
        match SessionClient::connect(socket).await {
            Ok(client) => break client,
            Err(e) => assert!(Instant::now() < until, "never served: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    client
        .send(Op::Submit(UserInput::text(prompt)))
        .await
        .unwrap();
    let wait = async {
        loop {
            match client.next().await.unwrap() {
                Some(Frame::Event(RuntimeEvent::TurnEnded(end))) => return end.ok,
                Some(_) => {}
                None => panic!("the session closed the connection"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn respawn_after_kill_9_mid_turn_resumes_without_resending_the_prompt() {
    let env = stalling_then(&["back again"]).await;
    let (id, dir, _reap, row) = mid_turn(&env, &["think long"]);
    let pid = row["pid"].as_i64().unwrap();
    kill_9(&row);

    assert_eq!(stdout(&env, &["respawn", &id]), format!("respawned {id}\n"));
    let respawned = state(&dir);
    let new_pid = respawned["pid"].as_i64().unwrap();
    let _reap_new = Reap(new_pid);
    assert_ne!(new_pid, pid);
    assert!(running(new_pid));
    // Alive, waiting; the turn the kill cut short failed and is not re-run.
    let mut want = row.clone();
    want["pid"] = json!(new_pid);
    want["status"] = json!("idle");
    want["state"] = json!("failed");
    assert_eq!(respawned, want);
    assert_eq!(agents(&env, &[]), json!([want]));
    // A live session is left alone.
    let (refused, _) = tack(&env, &["respawn", &id]);
    assert!(!refused.status.success());
    assert_eq!(
        String::from_utf8(refused.stderr).unwrap(),
        format!("Error: background session {id} is running: not respawned\n")
    );
    assert_eq!(
        stdout(&env, &["respawn", "--all"]),
        "No background session to respawn.\n"
    );

    let socket = dir.join("session.sock");
    assert!(follow_up(&socket, "are you there?").await);
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2, "the prompt was sent again");
    assert_eq!(said(&bodies[1]), ["think long", "are you there?"]);
    assert_eq!(wait_for(&dir, "done", "idle")["pid"], json!(new_pid));
    assert_eq!(
        stdout(&env, &["logs", &id]),
        "> think long\n> are you there?\nback again\n"
    );
    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(new_pid);
}

/// A user settings file whose Notification hook appends what it is given to
/// `notes.jsonl` in the home folder; that file's path.
fn notification_hook(env: &Env) -> PathBuf {
    let notes = env.home.path().join("notes.jsonl");
    let settings = json!({"hooks": {"Notification": [{"hooks": [{
        "type": "command",
        // One write a record: two hooks may run at once.
        "command": format!("line=$(cat); printf '%s\\n' \"$line\" >> '{}'", notes.display()),
    }]}]}});
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(env.claude_dir().join("settings.json"), settings.to_string()).unwrap();
    notes
}

/// The `(notification_type, message)` of every Notification the hook got.
fn notifications(notes: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(notes).unwrap_or_default();
    // Whole lines only: one may be being written.
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n') && !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["hook_event_name"], "Notification", "{v}");
            let field = |k: &str| v[k].as_str().unwrap().to_owned();
            (field("notification_type"), field("message"))
        })
        .collect()
}

/// Waits until the hook has been told `kind`; all it was told.
fn wait_notified(notes: &Path, kind: &str) -> Vec<(String, String)> {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let told = notifications(notes);
        if told.iter().any(|(k, _)| k == kind) {
            return told;
        }
        assert!(Instant::now() < until, "no {kind}: {told:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_waiting_for_a_permission_needs_input_and_the_hook_hears_it() {
    let env = bash_call("touch made.txt").await;
    let notes = notification_hook(&env);
    let (id, dir, _reap) = background(&env, &["make a file"]);
    let row = wait_for(&dir, "blocked", "waiting");
    // The two hooks run at once: either may be told first.
    wait_notified(&notes, "agent_needs_input");
    let mut told = wait_notified(&notes, "permission_prompt");
    told.sort();
    assert_eq!(
        told,
        [
            (
                "agent_needs_input".to_owned(),
                format!("Background session make a file ({id}) needs your input")
            ),
            (
                "permission_prompt".to_owned(),
                "tack needs your permission to use Bash".to_owned()
            ),
        ]
    );
    assert_eq!(agents(&env, &[]), json!([row]));
    // The agent view says it needs input; its row says blocked.
    let age = aged(&dir, 125);
    assert_eq!(
        stdout(&env, &["agents"]),
        format!(
            "ID        STATE        AGE  NAME         CWD\n{id}  needs input  {}   make a file  {}\n",
            age,
            env.cwd().display()
        )
    );
    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(row["pid"].as_i64().unwrap());
    assert!(!env.cwd().join("made.txt").exists());
}

/// Makes the job of `dir` look started `secs` ago (its row rewritten: the
/// session must not be writing it); the age `agents` then shows.
fn aged(dir: &Path, secs: u64) -> &'static str {
    let mut row = state(dir);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    row["startedAt"] = json!(u64::try_from(now).unwrap() - secs * 1000);
    std::fs::write(dir.join("state.json"), row.to_string()).unwrap();
    match secs {
        125 => "2m",
        7200 => "2h",
        _ => panic!("no age for {secs} s"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unattended_session_goes_on_alone_and_the_hook_hears_it_complete() {
    let call = || Reply::tool_use("toolu_1", "Bash", json!({ "command": "touch made.txt" }));
    let env = Env::new(Script::new([
        call(),
        Reply::text("made it"),
        call(),
        Reply::text("could not"),
    ]))
    .await;
    let notes = notification_hook(&env);

    // Allowed every call: it runs the tool and completes.
    let bypass = ["--permission-mode", "bypassPermissions", "make a file"];
    let (id, dir, _reap) = background(&env, &bypass);
    wait_for(&dir, "done", "idle");
    let told = wait_notified(&notes, "agent_completed");
    let completed = |id: &str| {
        (
            "agent_completed".to_owned(),
            format!("Background session make a file ({id}) has finished"),
        )
    };
    assert_eq!(told, [completed(&id)]);
    assert!(env.cwd().join("made.txt").exists());
    std::fs::remove_file(env.cwd().join("made.txt")).unwrap();
    std::fs::remove_file(&notes).unwrap();

    // Nobody answers: the call is refused at once instead of waiting.
    let (none_id, none_dir, _reap_none) =
        background(&env, &["--permission-prompts", "none", "make a file"]);
    wait_for(&none_dir, "done", "idle");
    let told = wait_notified(&notes, "agent_completed");
    assert_eq!(told, [completed(&none_id)]);
    assert!(!env.cwd().join("made.txt").exists());
    assert_eq!(
        stdout(&env, &["logs", &none_id]),
        "> make a file\n⏺ Bash\ncould not\n"
    );
    for id in [id, none_id] {
        assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_piped_to_bg_is_the_sessions_prompt() {
    use std::io::Write;
    let env = Env::new(Script::new([Reply::text("fixed")])).await;
    let mut launcher = std::process::Command::new(assert_cmd::cargo::cargo_bin("tack"))
        .env_clear()
        .envs(env.vars())
        .current_dir(env.cwd())
        .arg("--bg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let piped = "fix the flaky test\nin ci, please\n";
    let mut stdin = launcher.stdin.take().unwrap();
    stdin.write_all(piped.as_bytes()).unwrap();
    drop(stdin);
    let out = launcher.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).unwrap();
    let id = printed
        .strip_prefix("backgrounded · ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .unwrap()
        .to_owned();
    let dir = env.claude_dir().join("jobs").join(&id);
    let _reap = Reap(state(&dir)["pid"].as_i64().unwrap());
    let row = wait_for(&dir, "done", "idle");
    assert_eq!(row["name"], "fix the flaky test");
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 1);
    assert_eq!(said(&bodies[0]), [piped]);
    assert_eq!(stdout(&env, &["logs", &id]), format!("> {piped}\nfixed\n"));
    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(row["pid"].as_i64().unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn rm_removes_the_worktree_a_killed_session_made_unless_it_changed() {
    let env = Env::new(Script::new([
        Reply::text("looked"),
        Reply::tool_use("toolu_1", "Bash", json!({"command": "echo new > made.txt"})),
        Reply::text("made it"),
    ]))
    .await;
    crate::common::git_repo_with(&env.cwd(), "a.txt", "a\n");
    let git = |args: &[&str]| crate::common::git(&env.cwd(), args);
    // Runs `--bg -w NAME ARGS` to its end, then kills it (so it cannot settle
    // its worktree itself); the job's id and the worktree's folder.
    let killed = |name: &str, args: &[&str]| {
        let (id, dir, reap) = background(&env, &[&["-w", name], args].concat());
        let row = wait_for(&dir, "done", "idle");
        let worktree = env.cwd().join(".claude/worktrees").join(name);
        // It worked in its worktree: its row says so, and `logs` finds it.
        assert_eq!(row["cwd"], json!(worktree));
        kill_9(&row);
        drop(reap);
        assert!(worktree.is_dir());
        (id, dir, worktree)
    };

    let (id, dir, worktree) = killed("quiet", &["look around"]);
    assert_eq!(stdout(&env, &["logs", &id]), "> look around\nlooked\n");
    assert_eq!(
        stdout(&env, &["rm", &id]),
        format!(
            "removed worktree {} (branch worktree-quiet)\nremoved {id}\n",
            worktree.display()
        )
    );
    assert!(!worktree.exists());
    assert!(!dir.exists());
    assert_eq!(git(&["branch", "--list", "worktree-quiet"]), "");

    let bypass = ["--permission-mode", "bypassPermissions", "make a file"];
    let (id, dir, worktree) = killed("busy", &bypass);
    assert_eq!(
        stdout(&env, &["rm", &id]),
        format!(
            "kept worktree {} (branch worktree-busy): it has changes\nremoved {id}\n",
            worktree.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(worktree.join("made.txt")).unwrap(),
        "new\n"
    );
    assert!(!dir.exists());
    assert_eq!(
        git(&["branch", "--list", "worktree-busy"]),
        "+ worktree-busy"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn respawn_after_kill_9_mid_tool_call_closes_the_call_as_interrupted() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({ "command": "echo $$ > tool.pid; exec sleep 300" }),
        ),
        Reply::tool_use("toolu_2", "Bash", json!({ "command": "touch after.txt" })),
        Reply::text("it was cut short"),
    ]))
    .await;
    let (id, dir, _reap) = background(
        &env,
        &["--permission-mode", "bypassPermissions", "sleep a while"],
    );
    let tool = tool_pid(&env, &dir);
    // A session killed with -9 cannot end its tools (`stop` does).
    let _reap_tool = Reap(tool);
    kill_9(&wait_for(&dir, "working", "busy"));

    assert_eq!(
        stdout(&env, &["respawn", "--all"]),
        format!("respawned {id}\n")
    );
    let new_pid = state(&dir)["pid"].as_i64().unwrap();
    let _reap_new = Reap(new_pid);
    let socket = dir.join("session.sock");
    // The cut call is not run again by itself: one request so far.
    assert_eq!(env.request_bodies().len(), 1);
    assert!(follow_up(&socket, "what happened?").await);
    // It kept its flags (`bypassPermissions`): the new call ran unasked.
    assert!(env.cwd().join("after.txt").exists());
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 3);
    let messages = bodies[1]["messages"].as_array().unwrap();
    let results: Vec<(&str, &str, bool)> = messages
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = match &b["content"] {
                Value::String(s) => s.as_str(),
                other => other[0]["text"].as_str().unwrap(),
            };
            (
                b["tool_use_id"].as_str().unwrap(),
                text,
                b["is_error"] == true,
            )
        })
        .collect();
    assert_eq!(
        results,
        [("toolu_1", "Interrupted by user", true)],
        "{}",
        serde_json::to_string_pretty(messages).unwrap()
    );
    assert_eq!(said(&bodies[1]), ["sleep a while", "what happened?"]);
    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(new_pid);
}

#[tokio::test(flavor = "multi_thread")]
async fn respawn_of_a_session_killed_before_its_transcript_began_sends_its_prompt() {
    // The session makes its transcript empty at start: killed before its
    // first record, or before even that.
    killed_before_the_first_record(|transcript| std::fs::write(transcript, "").unwrap()).await;
    killed_before_the_first_record(|transcript| std::fs::remove_file(transcript).unwrap()).await;
}

/// A session killed mid-turn whose transcript `damage` then takes back to
/// what a kill before its first record leaves: `respawn` sends its prompt
/// (nothing of it was kept), under its own id.
async fn killed_before_the_first_record(damage: impl Fn(&Path)) {
    let env = stalling_then(&["second try"]).await;
    // A prompt that looks like a flag, after the user's own `--`.
    let (id, dir, _reap, row) = mid_turn(&env, &["--", "-x marks the spot"]);
    kill_9(&row);
    let session_id = row["sessionId"].as_str().unwrap();
    damage(&env.store().find_session(&env.cwd(), session_id).unwrap());

    assert_eq!(stdout(&env, &["respawn", &id]), format!("respawned {id}\n"));
    let new_pid = state(&dir)["pid"].as_i64().unwrap();
    let _reap_new = Reap(new_pid);
    let done = wait_for(&dir, "done", "idle");
    assert_eq!(done["pid"], json!(new_pid));
    assert_eq!(done["sessionId"], json!(session_id));
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(said(&bodies[1]), ["-x marks the spot"]);
    assert_eq!(
        stdout(&env, &["logs", &id]),
        "> -x marks the spot\nsecond try\n"
    );
    assert_eq!(stdout(&env, &["stop", &id]), format!("stopped {id}\n"));
    wait_gone(new_pid);
}
