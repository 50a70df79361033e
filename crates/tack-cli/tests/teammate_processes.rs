//! Teammates as background sessions (`--teammate-mode tmux`): a `-p`
//! stream-json lead's Agent call with `name` starts `tack --bg` for the
//! teammate, which runs in a process of its own, is listed by `tack
//! agents`, messages the lead and is messaged, asks its permission
//! questions through the lead, tells it when it is idle, and ends its
//! process on a `shutdown_request`; the lead's stream shows each state.
//! Inside tmux (a server of the test's own) the teammate gets a pane.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{self, Env};
use crate::teams::{
    SESSION_A, fifo, finish, release, requests_of, tack_on, teammate_state, teammate_states,
    wait_for,
};

pub(crate) const TEAM: &str = "session-aaaaaaaa";

/// Kills the process `pid` when the test ends, passed or not.
pub(crate) struct Reap(pub(crate) i32);

impl Drop for Reap {
    fn drop(&mut self) {
        if alive(self.0) {
            // SAFETY: kill() of the teammate's pid, read from its job row.
            unsafe { libc::kill(self.0, libc::SIGKILL) };
        }
    }
}

/// Whether `pid` runs (a zombie is gone).
pub(crate) fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.starts_with(" Z"))
    })
}

pub(crate) fn agent(name: &str, prompt: &str) -> Value {
    json!({"description": format!("{name} helps"), "prompt": prompt,
           "subagent_type": "general-purpose", "name": name})
}

pub(crate) fn send(to: &str, message: Value) -> Value {
    json!({"to": to, "summary": "note", "message": message})
}

/// The lead's inbox, as messages.
fn lead_inbox(env: &Env) -> Vec<Value> {
    let path = env
        .claude_dir()
        .join(format!("teams/{TEAM}/inboxes/team-lead.json"));
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<Value>>(&t).ok())
        .unwrap_or_default()
}

/// How many of the lead's inbox messages have `kind` in their text.
pub(crate) fn count(env: &Env, kind: &str) -> usize {
    (lead_inbox(env).iter())
        .filter(|m| m["text"].as_str().unwrap_or_default().contains(kind))
        .count()
}

/// The only job folder.
pub(crate) fn the_job(env: &Env) -> PathBuf {
    let jobs: Vec<PathBuf> = std::fs::read_dir(env.claude_dir().join("jobs"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    jobs[0].clone()
}

/// The team's config.json.
pub(crate) fn config(env: &Env) -> Value {
    let path = env.claude_dir().join(format!("teams/{TEAM}/config.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub(crate) fn row(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lead_runs_a_teammate_as_a_background_session_until_it_shuts_down() {
    let mut lead = vec![
        Reply::tool_use("toolu_alice", "Agent", agent("alice", "ALICE-MARK say hi")),
        Reply::tool_use("toolu_w1", "Bash", json!({"command": "cat wait-1"})),
        Reply::tool_use(
            "toolu_go",
            "SendMessage",
            send("alice", json!("please touch a file")),
        ),
        Reply::tool_use("toolu_w2", "Bash", json!({"command": "cat wait-2"})),
        Reply::tool_use(
            "toolu_bye",
            "SendMessage",
            send(
                "alice",
                json!({"type": "shutdown_request", "reason": "done"}),
            ),
        ),
        Reply::text("done"),
    ];
    lead.extend((0..4).map(|_| Reply::text("ok")));
    let alice = vec![
        Reply::tool_use(
            "toolu_a1",
            "SendMessage",
            send("team-lead", json!("hi lead from alice")),
        ),
        Reply::text("alice idle"),
        Reply::tool_use("toolu_a2", "Bash", json!({"command": "touch from-alice"})),
        Reply::text("alice idle again"),
    ];
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), lead),
        ("ALICE-MARK".to_string(), alice),
    ]))
    .await;
    env.trust();
    let (w1, w2) = (fifo(&env.cwd(), "wait-1"), fifo(&env.cwd(), "wait-2"));
    let lead = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .args(["--output-format", "stream-json", "--verbose"])
        .args(["--teammate-mode", "tmux", "--allowedTools", "Bash(cat:*)"])
        .spawn()
        .unwrap();

    // Alice runs in a process of her own: a background job, listed.
    wait_for("alice's first idleness", || {
        count(&env, "idle_notification") == 1
    })
    .await;
    let job = the_job(&env);
    let id = job.file_name().unwrap().to_str().unwrap().to_owned();
    let pid = i32::try_from(row(&job)["pid"].as_i64().unwrap()).unwrap();
    let _reap = Reap(pid);
    assert!(alive(pid));
    let (listed, _) = crate::background::tack(&env, &["agents", "--json"]);
    let listed: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<(Value, Value)> = (listed.iter())
        .map(|r| (r["id"].clone(), r["name"].clone()))
        .collect();
    assert_eq!(names, [(json!(id), json!("alice"))]);
    // Attachable: its socket serves the session protocol.
    let socket = job.join("session.sock");
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_ok());
    let config = config(&env);
    let member = &config["members"][1];
    assert_eq!(
        json!([
            member["name"],
            member["backendType"],
            member["tmuxPaneId"],
            member["color"]
        ]),
        json!(["alice", "tmux", "", "blue"])
    );
    let said: Vec<Value> = (lead_inbox(&env).iter())
        .map(|m| json!([m["from"], m["text"]]))
        .filter(|m| m[1] == "hi lead from alice")
        .collect();
    assert_eq!(said, [json!(["alice", "hi lead from alice"])]);

    // The lead's message wakes her; her Bash call's question goes to the
    // lead, which (`-p`) has nobody to ask.
    release(&w1);
    wait_for("alice's second idleness", || {
        count(&env, "idle_notification") == 2
    })
    .await;
    let asked = requests_of(&env, "ALICE-MARK");
    assert_eq!(asked.len(), 4);
    let told = common::last_texts(&asked[2]);
    assert!(
        told.iter().any(|t| t.contains("please touch a file")),
        "{told:?}"
    );
    let results: Vec<String> = (common::last_tool_results(&asked[3]).into_iter())
        .map(|(_, t)| t)
        .collect();
    assert!(
        results[0]
            .contains("alice@session-aaaaaaaa asked the lead, which has no permission prompt"),
        "{results:?}"
    );
    assert!(!env.cwd().join("from-alice").exists());

    // A shutdown_request: she answers and her process ends.
    release(&w2);
    let stdout = finish(lead);
    wait_for("alice's process to end", || !alive(pid)).await;
    assert_eq!(
        json!([row(&job)["status"], row(&job)["state"]]),
        json!(["ended", "stopped"])
    );
    assert_eq!(count(&env, "shutdown_approved"), 1);
    let state = |s: &str| teammate_state("alice", "blue", "tmux", s);
    assert_eq!(
        teammate_states(&stdout),
        [
            "joined", "working", "idle", "working", "idle", "stopped", "left"
        ]
        .map(state)
    );
    // The lead saw her message and the Agent call's answer named the job.
    let lead_requests = requests_of(&env, "LEAD-MARK");
    let spawned = common::last_tool_results(&lead_requests[1]);
    assert!(
        spawned[0]
            .1
            .starts_with("Spawned successfully.\nagent_id: alice@session-aaaaaaaa\n"),
        "{spawned:?}"
    );
    assert!(
        spawned[0].1.contains(&format!("`tack attach {id}`")),
        "{spawned:?}"
    );
    let all = serde_json::to_string(&lead_requests[2]).unwrap();
    assert!(all.contains("hi lead from alice"), "{all}");
    let start = first_request_at(&env, "ALICE-MARK")
        .duration_since(first_request_at(&env, "LEAD-MARK"))
        .unwrap_or(Duration::ZERO);
    println!(
        "background teammate start: the lead's Agent-call request -> alice's first request {:.1} ms",
        start.as_secs_f64() * 1e3
    );
}

/// When the first request whose prompt has `marker` came.
fn first_request_at(env: &Env, marker: &str) -> std::time::SystemTime {
    (env.server.requests().into_iter())
        .find(|r| r.body["messages"][0].to_string().contains(marker))
        .map(|r| r.received_at)
        .unwrap()
}

/// A tmux server of the test's own (`tmux -L <unique>`), killed at the end.
struct Tmux {
    name: String,
    env: Vec<(&'static str, std::ffi::OsString)>,
}

impl Tmux {
    fn start(env: &Env) -> Tmux {
        let name = format!("tack-test-{}-{}", std::process::id(), rand_suffix());
        let tmux = Tmux {
            name,
            env: env.vars(),
        };
        let out = tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "lead",
            "-x",
            "200",
            "-y",
            "50",
        ]);
        assert!(out.status.success(), "{out:?}");
        // A pane whose command failed stays, to be read.
        let out = tmux.run(&["set-option", "-g", "remain-on-exit", "on"]);
        assert!(out.status.success(), "{out:?}");
        tmux
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .env_clear()
            .envs(self.env.iter().cloned())
            .args(["-L", &self.name])
            .args(args)
            .output()
            .unwrap()
    }

    fn text(&self, args: &[&str]) -> String {
        String::from_utf8_lossy(&self.run(args).stdout)
            .trim()
            .to_string()
    }

    /// `$TMUX` for a client of this server's session.
    fn tmux_var(&self) -> String {
        let socket = self.text(&["display-message", "-p", "-t", "lead", "#{socket_path}"]);
        let pid = self.text(&["display-message", "-p", "-t", "lead", "#{pid}"]);
        format!("{socket},{pid},0")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let socket = self.text(&["display-message", "-p", "-t", "lead", "#{socket_path}"]);
        let _ = self.run(&["kill-server"]);
        // The server leaves its socket file behind.
        if !socket.is_empty() {
            let _ = std::fs::remove_file(socket);
        }
    }
}

fn rand_suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn inside_tmux_a_teammate_gets_a_pane_attached_to_its_session() {
    let mut lead = vec![
        Reply::tool_use("toolu_bob", "Agent", agent("bob", "BOB-MARK look around")),
        Reply::tool_use("toolu_w1", "Bash", json!({"command": "cat wait-1"})),
        Reply::tool_use(
            "toolu_bye",
            "SendMessage",
            send("bob", json!({"type": "shutdown_request", "reason": "done"})),
        ),
        Reply::text("done"),
    ];
    lead.extend((0..4).map(|_| Reply::text("ok")));
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), lead),
        (
            "BOB-MARK".to_string(),
            vec![Reply::text("bob looked around")],
        ),
    ]))
    .await;
    let log = env.cwd().join("idle.jsonl");
    let hook = format!("cat >> {0}; echo >> {0}", log.display());
    common::write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"TeammateIdle": [{"hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    env.trust();
    let tmux = Tmux::start(&env);
    let w1 = fifo(&env.cwd(), "wait-1");
    let lead = tack_on(&env, &env.server, &[("TMUX", &tmux.tmux_var())])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .args(["--output-format", "stream-json", "--verbose"])
        .args(["--teammate-mode", "auto", "--allowedTools", "Bash(cat:*)"])
        .spawn()
        .unwrap();
    wait_for("bob's idleness", || count(&env, "idle_notification") == 1).await;
    let job = the_job(&env);
    let id = job.file_name().unwrap().to_str().unwrap().to_owned();
    let pid = i32::try_from(row(&job)["pid"].as_i64().unwrap()).unwrap();
    let _reap = Reap(pid);
    // The pane opens once bob's session listens (it may be idle first).
    wait_for("bob's pane in config.json", || {
        config(&env)["members"][1]["tmuxPaneId"] != ""
    })
    .await;
    let config = config(&env);
    let member = &config["members"][1];
    let pane = member["tmuxPaneId"].as_str().unwrap().to_owned();
    assert_eq!(
        json!([member["name"], member["backendType"]]),
        json!(["bob", "tmux"])
    );
    // The pane is the server's, runs `tack attach <id>`, and shows bob's
    // conversation.
    let panes = tmux.text(&["list-panes", "-a", "-F", "#{pane_id} #{pane_start_command}"]);
    let line = (panes.lines())
        .find(|l| l.starts_with(&format!("{pane} ")))
        .unwrap_or_else(|| panic!("no pane {pane} in {panes}"));
    assert!(line.contains(&format!("attach {id}")), "{line}");
    let shown = || tmux.text(&["capture-pane", "-p", "-t", &pane]);
    let waiting = std::time::Instant::now();
    while !shown().contains("bob looked around") {
        assert!(
            waiting.elapsed() < Duration::from_secs(20),
            "the pane shows: {}",
            shown()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let dead = tmux.text(&["display-message", "-p", "-t", &pane, "#{pane_dead}"]);
    assert_eq!(dead, "0", "the pane's attach ended: {}", shown());
    // Bob's own process ran the TeammateIdle hook.
    wait_for("bob's TeammateIdle hook", || log.exists()).await;
    release(&w1);
    let stdout = finish(lead);
    wait_for("bob's process to end", || !alive(pid)).await;
    let state = |s: &str| teammate_state("bob", "blue", "tmux", s);
    assert_eq!(
        teammate_states(&stdout),
        ["joined", "working", "idle", "stopped", "left"].map(state)
    );
    let hooked = crate::teams::lines_of(&log);
    assert_eq!(
        json!([
            hooked[0]["hook_event_name"],
            hooked[0]["teammate_name"],
            hooked[0]["team_name"]
        ]),
        json!(["TeammateIdle", "bob", TEAM])
    );
}
