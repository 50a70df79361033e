//! A teammate in a process of its own asks its permission questions through
//! its lead: a `permission_request` in the lead's inbox becomes the lead's
//! own ask (here the SDK's `can_use_tool`, naming the teammate); the answer
//! goes back as `permission_response` and alone decides. A teammate whose
//! lead is not running is refused.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{self, Env};
use crate::sdk_protocol::{Sdk, initialize};
use crate::teams::{SESSION_A, finish, requests_of, tack_on, wait_for};

const TEAM: &str = "session-aaaaaaaa";

/// The team's config.json with the lead (`SESSION_A`) and `worker`.
fn write_team(env: &Env) {
    let cwd = env.cwd().display().to_string();
    let member = |name: &str, pane: &str| {
        json!({"agentId": format!("{name}@{TEAM}"), "name": name, "agentType": "general-purpose",
               "model": "claude-sonnet-4-5", "joinedAt": 1, "tmuxPaneId": pane, "cwd": cwd,
               "subscriptions": []})
    };
    let config = json!({"name": TEAM, "description": "", "createdAt": 1,
        "leadAgentId": format!("team-lead@{TEAM}"), "leadSessionId": SESSION_A,
        "members": [member("team-lead", ""), member("worker", "")]});
    common::write(
        env.claude_dir().join(format!("teams/{TEAM}/config.json")),
        &config.to_string(),
    );
}

/// The tool results the worker's request `i` carried.
fn worker_results(env: &Env, i: usize) -> Vec<String> {
    common::last_tool_results(&requests_of(env, "WORKER-MARK")[i])
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

fn bash(id: &str, command: &str) -> Reply {
    Reply::tool_use(id, "Bash", json!({"command": command}))
}

/// The worker's `tack -p`, a member of the team.
fn worker(env: &Env) -> std::process::Child {
    tack_on(
        env,
        &env.server,
        &[
            ("CLAUDE_CODE_TEAM_NAME", TEAM),
            ("CLAUDE_CODE_AGENT_NAME", "worker"),
        ],
    )
    .args(["-p", "WORKER-MARK touch two files"])
    .spawn()
    .unwrap()
}

/// The lead: a trusted project's team, its SDK session (asking through
/// `can_use_tool`) after its first turn.
async fn lead(env: &Env) -> Sdk {
    env.trust();
    write_team(env);
    let teams_on = [("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1")];
    let args = [
        "--permission-prompt-tool",
        "stdio",
        "--session-id",
        SESSION_A,
    ];
    let mut sdk = Sdk::start(env, &args, &teams_on);
    sdk.request("init", initialize(Value::Null)).await;
    sdk.response("init").await;
    sdk.user("LEAD-MARK hello", json!({})).await;
    sdk.result().await;
    sdk
}

#[tokio::test(flavor = "multi_thread")]
async fn a_teammates_bash_call_asks_the_leads_sdk_and_only_its_answer_decides() {
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), vec![Reply::text("ready")]),
        (
            "WORKER-MARK".to_string(),
            vec![
                bash("toolu_w1", "touch first"),
                bash("toolu_w2", "touch second"),
                Reply::text("done"),
                bash("toolu_w3", "touch third"),
                Reply::text("done"),
            ],
        ),
    ]))
    .await;
    let mut sdk = lead(&env).await;

    let started = Instant::now();
    let child = worker(&env);
    let mut asked = Vec::new();
    let mut legs = Vec::new();
    for (answer, file) in [
        (
            json!({"behavior": "allow", "updatedInput": {"command": "touch first"}}),
            "first",
        ),
        (
            json!({"behavior": "deny", "message": "not that one"}),
            "second",
        ),
    ] {
        let request = sdk.tack_request().await;
        let to_lead = started.elapsed();
        let r = &request["request"];
        asked.push(json!({"subtype": r["subtype"], "tool_name": r["tool_name"],
            "input": r["input"], "agent_id": r["agent_id"],
            "decision_reason_starts": r["decision_reason"].as_str().unwrap_or("")
                .starts_with("teammate worker@session-aaaaaaaa asks: ")}));
        let id = request["request_id"].as_str().unwrap().to_owned();
        let answered = Instant::now();
        sdk.answer(&id, answer).await;
        if file == "first" {
            let path = env.cwd().join(file);
            wait_for("the allowed call to run", || path.exists()).await;
            legs.push((to_lead, answered.elapsed()));
        }
    }
    finish(child);
    let ask = |command: &str| {
        json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": command},
               "agent_id": "worker@session-aaaaaaaa", "decision_reason_starts": true})
    };
    assert_eq!(asked, [ask("touch first"), ask("touch second")]);
    assert!(env.cwd().join("first").exists());
    assert!(!env.cwd().join("second").exists());
    let results = worker_results(&env, 2);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("not that one"), "{results:?}");
    let (to_lead, back) = legs[0];
    println!(
        "relayed permission: teammate start -> the lead's can_use_tool {:.1} ms; answer -> the call run {:.1} ms",
        to_lead.as_secs_f64() * 1e3,
        back.as_secs_f64() * 1e3
    );

    // The lead gone, its teammate's question is refused at once.
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
    let alone = Instant::now();
    finish(worker(&env));
    assert!(alone.elapsed() < Duration::from_secs(20));
    assert!(!env.cwd().join("third").exists());
    let results = worker_results(&env, 4);
    assert!(
        results[0].contains("cannot ask its lead: the lead's session is not running"),
        "{results:?}"
    );
}

/// A `-p` lead with no prompt tool has nobody to ask: it refuses.
#[tokio::test(flavor = "multi_thread")]
async fn a_print_lead_with_nobody_to_ask_refuses_its_teammates_question() {
    use crate::teams::{fifo, release};
    let env = Env::new(Script::routed([
        (
            "LEAD-MARK".to_string(),
            vec![bash("toolu_l1", "cat wait-1"), Reply::text("done")],
        ),
        (
            "WORKER-MARK".to_string(),
            vec![bash("toolu_w1", "touch first"), Reply::text("done")],
        ),
    ]))
    .await;
    env.trust();
    write_team(&env);
    let wait = fifo(&env.cwd(), "wait-1");
    let lead = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK wait", "--session-id", SESSION_A])
        .args(["--allowedTools", "Bash(cat:*)"])
        .spawn()
        .unwrap();
    let registry = env.claude_dir().join("sessions");
    wait_for("the lead to register", || {
        std::fs::read_dir(&registry).is_ok_and(|d| d.count() >= 3)
    })
    .await;
    finish(worker(&env));
    release(&wait);
    finish(lead);
    assert!(!env.cwd().join("first").exists());
    let results = worker_results(&env, 1);
    assert!(
        results[0]
            .contains("worker@session-aaaaaaaa asked the lead, which has no permission prompt"),
        "{results:?}"
    );
}

/// The lead's "always allow" (the SDK's `updatedPermissions`) goes back with
/// its answer and the teammate applies it: its next identical call runs
/// without a second question to the lead.
#[tokio::test(flavor = "multi_thread")]
async fn an_always_allow_from_the_lead_spares_the_teammate_a_second_question() {
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), vec![Reply::text("ready")]),
        (
            "WORKER-MARK".to_string(),
            vec![
                bash("toolu_w1", "touch one"),
                bash("toolu_w2", "touch one"),
                Reply::text("done"),
            ],
        ),
    ]))
    .await;
    let mut sdk = lead(&env).await;
    // A second question would wait 5 s and then be refused.
    let worker = tack_on(
        &env,
        &env.server,
        &[
            ("CLAUDE_CODE_TEAM_NAME", TEAM),
            ("CLAUDE_CODE_AGENT_NAME", "worker"),
            ("TACK_TEAMMATE_PERMISSION_TIMEOUT_MS", "5000"),
        ],
    )
    .args(["-p", "WORKER-MARK touch one twice"])
    .spawn()
    .unwrap();
    let request = sdk.tack_request().await;
    let r = &request["request"];
    // The teammate's own "don't ask again" suggestion comes with its question.
    assert_eq!(
        json!({"tool_name": r["tool_name"], "input": r["input"],
               "permission_suggestions": r["permission_suggestions"]}),
        json!({"tool_name": "Bash", "input": {"command": "touch one"},
               "permission_suggestions": [{"type": "addRules",
                   "rules": [{"toolName": "Bash", "ruleContent": "touch *"}],
                   "behavior": "allow", "destination": "localSettings"}]})
    );
    let id = request["request_id"].as_str().unwrap().to_owned();
    let always = json!([{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch one"}],
                         "behavior": "allow", "destination": "session"}]);
    sdk.answer(
        &id,
        json!({"behavior": "allow", "updatedInput": {"command": "touch one"},
               "updatedPermissions": always}),
    )
    .await;
    finish(worker);
    assert_eq!(
        [worker_results(&env, 1), worker_results(&env, 2)],
        [["(no output)"], ["(no output)"]]
    );
    assert!(env.cwd().join("one").exists());
    let (code, _, stderr) = sdk.finish().await;
    assert_eq!(code, Some(0), "{stderr}");
}
