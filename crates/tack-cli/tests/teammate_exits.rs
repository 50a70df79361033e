//! How a teammate in a process of its own ends: killed with `kill -9`, the
//! lead sees it leave (a pidfd on its process, no polling) and `tack
//! respawn` starts it again as the same member of the same team; asked to
//! shut down mid-turn, it lets the turn end, then answers
//! `shutdown_approved` and ends.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{self, Env};
use crate::teammate_processes::{Reap, TEAM, agent, alive, config, count, row, send, the_job};
use crate::teams::{
    SESSION_A, fifo, finish, release, requests_of, tack_on, teammate_state, teammate_states,
    wait_for,
};

/// The team variables in the environment of process `pid`.
fn team_vars(pid: i32) -> Vec<(String, String)> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let mut vars: Vec<(String, String)> = (environ.split(|b| *b == 0))
        .filter_map(|v| std::str::from_utf8(v).ok()?.split_once('='))
        .filter(|(k, _)| {
            k.starts_with("CLAUDE_CODE_")
                && (k.contains("TEAM") || k.contains("AGENT") || k.contains("TASK"))
        })
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    vars.sort();
    vars
}

fn pid_of(job: &std::path::Path) -> i32 {
    i32::try_from(row(job)["pid"].as_i64().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_teammate_killed_with_kill_9_leaves_and_respawns_into_its_team() {
    let mut lead = vec![Reply::tool_use(
        "toolu_alice",
        "Agent",
        agent("alice", "ALICE-MARK say hi"),
    )];
    lead.extend((0..4).map(|_| Reply::text("ok")));
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), lead),
        ("ALICE-MARK".to_string(), vec![Reply::text("alice idle")]),
    ]))
    .await;
    let child = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .args(["--output-format", "stream-json", "--verbose"])
        .args(["--teammate-mode", "tmux"])
        .spawn()
        .unwrap();
    wait_for("alice's idleness", || count(&env, "idle_notification") == 1).await;
    let job = the_job(&env);
    wait_for("alice's idle row", || row(&job)["status"] == "idle").await;
    let pid = pid_of(&job);
    let _reap = Reap(pid);
    // SAFETY: kill() of the teammate's pid, read from its job row.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    // The lead sees her leave, and so ends (it waited for her).
    let stdout = finish(child);
    let state = |s: &str| teammate_state("alice", "blue", "tmux", s);
    let mut seen = teammate_states(&stdout);
    // Her idleness may be read together with her death (rows seen as their
    // latest); the rest is whole.
    seen.retain(|s| s["state"] != "idle");
    assert_eq!(seen, ["joined", "working", "stopped", "left"].map(state));
    assert_eq!(
        json!([row(&job)["status"], row(&job)["state"]]),
        json!(["killed", "done"])
    );
    assert_eq!(config(&env)["members"][1]["isActive"], json!(false));

    // Respawned from a shell without the team's variables, she has them.
    let id = job.file_name().unwrap().to_str().unwrap().to_owned();
    let (out, _) = crate::background::tack(&env, &["respawn", &id]);
    assert!(out.status.success(), "{out:?}");
    let again = pid_of(&job);
    let _reap_again = Reap(again);
    assert_ne!(again, pid);
    assert!(alive(again));
    let expected = [
        ("CLAUDE_CODE_AGENT_COLOR", "blue"),
        ("CLAUDE_CODE_AGENT_NAME", "alice"),
        ("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1"),
        ("CLAUDE_CODE_TASK_LIST_ID", TEAM),
        ("CLAUDE_CODE_TEAM_NAME", TEAM),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    assert_eq!(team_vars(again), expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_shutdown_lets_the_teammates_running_turn_end_first() {
    let mut lead = vec![
        Reply::tool_use("toolu_alice", "Agent", agent("alice", "ALICE-MARK work")),
        Reply::tool_use("toolu_wl", "Bash", json!({"command": "cat wait-l"})),
        Reply::tool_use(
            "toolu_bye",
            "SendMessage",
            send(
                "alice",
                json!({"type": "shutdown_request", "reason": "done"}),
            ),
        ),
    ];
    lead.extend((0..5).map(|_| Reply::text("ok")));
    let alice = vec![
        Reply::tool_use("toolu_a1", "Bash", json!({"command": "cat wait-a"})),
        Reply::text("alice done"),
    ];
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), lead),
        ("ALICE-MARK".to_string(), alice),
    ]))
    .await;
    common::write(
        env.cwd().join(".claude/settings.json"),
        &json!({"permissions": {"allow": ["Bash(cat:*)"]}}).to_string(),
    );
    env.trust();
    let (wait_l, wait_a) = (fifo(&env.cwd(), "wait-l"), fifo(&env.cwd(), "wait-a"));
    let child = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .args(["--teammate-mode", "tmux"])
        .spawn()
        .unwrap();
    // Her turn runs (her Bash call waits on wait-a) when the lead asks.
    wait_for("alice's first request", || {
        requests_of(&env, "ALICE-MARK").len() == 1
    })
    .await;
    let job = the_job(&env);
    let pid = pid_of(&job);
    let _reap = Reap(pid);
    release(&wait_l);
    let inbox = env
        .claude_dir()
        .join(format!("teams/{TEAM}/inboxes/alice.json"));
    wait_for("alice to take the shutdown_request", || {
        let text = std::fs::read_to_string(&inbox).unwrap_or_default();
        let messages: Vec<Value> = serde_json::from_str(&text).unwrap_or_default();
        (messages.iter()).any(|m| {
            m["read"] == true
                && m["text"]
                    .as_str()
                    .unwrap_or("")
                    .contains("shutdown_request")
        })
    })
    .await;
    // She is still at work: no answer yet, her process runs.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(count(&env, "shutdown_approved"), 0);
    assert!(alive(pid));
    release(&wait_a);
    finish(child);
    wait_for("alice's process to end", || !alive(pid)).await;

    // Her turn ended: its Bash result reached her model.
    let asked = requests_of(&env, "ALICE-MARK");
    assert_eq!(asked.len(), 2);
    assert_eq!(common::last_tool_results(&asked[1])[0].1, "go");
    let lead_inbox: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(
            env.claude_dir()
                .join(format!("teams/{TEAM}/inboxes/team-lead.json")),
        )
        .unwrap(),
    )
    .unwrap();
    let approved: Vec<Value> = (lead_inbox.iter())
        .filter_map(|m| serde_json::from_str::<Value>(m["text"].as_str()?).ok())
        .filter(|t| t["type"] == "shutdown_approved")
        .map(|mut t| {
            let o = t.as_object_mut().unwrap();
            assert!(o.remove("timestamp").unwrap().is_string());
            let id = o.remove("requestId").unwrap();
            assert!(id.as_str().unwrap().starts_with("shutdown-"), "{id}");
            t
        })
        .collect();
    assert_eq!(
        approved,
        [json!({"type": "shutdown_approved", "from": "alice", "backendType": "tmux"})]
    );
    assert_eq!(
        json!([row(&job)["status"], row(&job)["state"]]),
        json!(["ended", "stopped"])
    );
}
