//! A team working through a task list, end to end against the scripted
//! server (issue 39's first "done when"): a lead creates three tasks, blocks
//! the last on the other two and starts two teammates; each claims a task,
//! completes it (TaskCompleted hooks fire with the teammate and team) and
//! tells the lead; the lead hears them mid-turn, finishes the unblocked task
//! and shuts them down (TeammateIdle hooks fired as they went idle).

use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{self, Env};
use crate::teams::{
    SESSION_A, fifo, finish, lines_of, no_color, release, requests_of, tack_on, wait_for,
};

fn teammate(mark: &str, task: &str, done: &str) -> Vec<Reply> {
    let update = |status: &str| json!({"taskId": task, "status": status});
    vec![
        Reply::tool_use("toolu_claim", "TaskUpdate", update("in_progress")),
        Reply::tool_use("toolu_done", "TaskUpdate", update("completed")),
        Reply::tool_use(
            "toolu_tell",
            "SendMessage",
            json!({"to": "team-lead", "summary": "done", "message": done}),
        ),
        Reply::text(&format!("{mark} idle")),
    ]
}

fn lead_script() -> Vec<Reply> {
    let create = |subject: &str| {
        json!({"subject": subject, "description": format!("{subject}, well"),
               "activeForm": format!("Doing: {subject}")})
    };
    let agent = |name: &str, mark: &str, task: &str| {
        json!({"description": format!("{name} works"), "name": name,
               "prompt": format!("{mark} take task {task}"), "subagent_type": "general-purpose"})
    };
    let shutdown = |to: &str| {
        json!({"to": to, "summary": "bye",
               "message": {"type": "shutdown_request", "reason": "all done"}})
    };
    let update = |status: &str| json!({"taskId": "3", "status": status});
    vec![
        Reply::message()
            .tool_use("toolu_c1", "TaskCreate", create("Write the parser"))
            .tool_use("toolu_c2", "TaskCreate", create("Write the tests"))
            .tool_use("toolu_c3", "TaskCreate", create("Ship it"))
            .into(),
        Reply::tool_use(
            "toolu_block",
            "TaskUpdate",
            json!({"taskId": "3", "addBlockedBy": ["1", "2"]}),
        ),
        Reply::message()
            .tool_use("toolu_alice", "Agent", agent("alice", "ALICE-MARK", "1"))
            .tool_use("toolu_bob", "Agent", agent("bob", "BOB-MARK", "2"))
            .into(),
        Reply::tool_use("toolu_wait", "Bash", json!({"command": "cat wait-1"})),
        Reply::tool_use("toolu_list", "TaskList", json!({})),
        Reply::tool_use("toolu_claim3", "TaskUpdate", update("in_progress")),
        Reply::tool_use("toolu_done3", "TaskUpdate", update("completed")),
        Reply::message()
            .tool_use("toolu_sa", "SendMessage", shutdown("alice"))
            .tool_use("toolu_sb", "SendMessage", shutdown("bob"))
            .into(),
        Reply::text("shipped"),
        Reply::text("ok"),
        Reply::text("ok"),
        Reply::text("ok"),
        Reply::text("ok"),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lead_and_two_teammates_claim_block_and_complete_three_tasks() {
    let script = Script::routed([
        ("LEAD-MARK".to_string(), lead_script()),
        (
            "ALICE-MARK".to_string(),
            teammate("alice", "1", "parser done"),
        ),
        ("BOB-MARK".to_string(), teammate("bob", "2", "tests done")),
    ]);
    let env = Env::new(script).await;
    let (idle_log, done_log) = (env.cwd().join("idle.jsonl"), env.cwd().join("done.jsonl"));
    let log_to = |path: &std::path::Path| {
        json!([{"hooks": [{"type": "command",
                           "command": format!("cat >> {0}; echo >> {0}", path.display())}]}])
    };
    common::write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"TeammateIdle": log_to(&idle_log), "TaskCompleted": log_to(&done_log)}})
            .to_string(),
    );
    env.trust();
    let wait = fifo(&env.cwd(), "wait-1");
    let lead = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .args(["--allowedTools", "Bash(cat:*)"])
        .spawn()
        .unwrap();
    wait_for("both teammates idle", || lines_of(&idle_log).len() == 2).await;
    release(&wait);
    // The teammates' ends (each a background agent's notification) and
    // their shutdown answers wake the lead for a few more short turns.
    let out = finish(lead);
    assert_eq!(out.trim(), "ok");

    // The list, in Claude Code's files: every task completed by its owner,
    // task 3 blocked by the other two.
    let list = env.claude_dir().join("tasks/session-aaaaaaaa");
    let task = |id: &str| -> Value {
        let text = std::fs::read_to_string(list.join(format!("{id}.json"))).unwrap();
        let t: Value = serde_json::from_str(&text).unwrap();
        json!([
            t["subject"],
            t["status"],
            t["owner"],
            t["blocks"],
            t["blockedBy"]
        ])
    };
    assert_eq!(
        [task("1"), task("2"), task("3")],
        [
            json!(["Write the parser", "completed", "alice", ["3"], []]),
            json!(["Write the tests", "completed", "bob", ["3"], []]),
            json!(["Ship it", "completed", "team-lead", [], ["1", "2"]]),
        ]
    );
    // TaskCompleted for each, naming the teammate and the team.
    let mut completed: Vec<Value> = lines_of(&done_log)
        .iter()
        .map(|l| {
            json!([
                l["hook_event_name"],
                l["task_id"],
                l["teammate_name"],
                l["team_name"]
            ])
        })
        .collect();
    completed.sort_by_key(|v| v[1].to_string());
    assert_eq!(
        completed,
        [
            json!(["TaskCompleted", "1", "alice", "session-aaaaaaaa"]),
            json!(["TaskCompleted", "2", "bob", "session-aaaaaaaa"]),
            json!(["TaskCompleted", "3", "team-lead", "session-aaaaaaaa"]),
        ]
    );
    // The teammates' words reached the lead after its wait, with their idle
    // notices; the lead's shutdown reached them (each approved it).
    let lead_requests = requests_of(&env, "LEAD-MARK");
    let heard: Vec<String> = common::last_texts(&lead_requests[4])
        .iter()
        .map(|t| no_color(t))
        .filter(|t| !t.contains("idle_notification"))
        .collect();
    let mut heard = heard;
    heard.sort();
    assert_eq!(
        heard,
        [
            "<teammate-message teammate_id=\"alice\" summary=\"done\">\nparser done\n</teammate-message>",
            "<teammate-message teammate_id=\"bob\" summary=\"done\">\ntests done\n</teammate-message>",
        ]
    );
    let inbox: Value = serde_json::from_str(
        &std::fs::read_to_string(
            env.claude_dir()
                .join("teams/session-aaaaaaaa/inboxes/team-lead.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut approved: Vec<&str> = (inbox.as_array().unwrap().iter())
        .filter(|m| m["text"].as_str().unwrap().contains("shutdown_approved"))
        .map(|m| m["from"].as_str().unwrap())
        .collect();
    approved.sort();
    assert_eq!(approved, ["alice", "bob"]);
    // Each teammate's TaskList-free work: claim, complete, tell, idle.
    assert_eq!(requests_of(&env, "ALICE-MARK").len(), 4);
    assert_eq!(requests_of(&env, "BOB-MARK").len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_completed_hook_saying_continue_false_stops_the_teammate() {
    let agent = json!({"description": "alice works", "name": "alice",
                       "prompt": "ALICE-MARK take task 1", "subagent_type": "general-purpose"});
    let lead = vec![
        Reply::tool_use(
            "toolu_c1",
            "TaskCreate",
            json!({"subject": "Write the parser", "description": "well"}),
        ),
        Reply::tool_use("toolu_alice", "Agent", agent),
        Reply::text("started"),
        Reply::text("alice stopped"),
    ];
    let alice = vec![
        Reply::tool_use(
            "toolu_claim",
            "TaskUpdate",
            json!({"taskId": "1", "status": "in_progress"}),
        ),
        Reply::tool_use(
            "toolu_done",
            "TaskUpdate",
            json!({"taskId": "1", "status": "completed"}),
        ),
        Reply::text("alice stops"),
    ];
    let script = Script::routed([
        ("LEAD-MARK".to_string(), lead),
        ("ALICE-MARK".to_string(), alice),
    ]);
    let env = Env::new(script).await;
    let answer = r#"echo '{"continue": false, "stopReason": "review it first"}'"#;
    common::write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"TaskCompleted": [{"hooks": [{"type": "command", "command": answer}]}]}})
            .to_string(),
    );
    env.trust();
    // Without the stop, the teammate would wait for messages and the lead's
    // -p for it, until the test's timeout.
    let mut lead = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while lead.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            lead.kill().unwrap();
            panic!("the stopped teammate still holds the session");
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let out = finish(lead);
    assert_eq!(out.trim(), "alice stopped");
    let alice = requests_of(&env, "ALICE-MARK");
    let results: Vec<String> = common::last_tool_results(&alice[2])
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    assert_eq!(results.len(), 1);
    assert!(results[0].contains("review it first"), "{results:?}");
    let list = env.claude_dir().join("tasks/session-aaaaaaaa/1.json");
    let task: Value = serde_json::from_str(&std::fs::read_to_string(list).unwrap()).unwrap();
    assert_eq!(
        json!([task["status"], task["owner"]]),
        json!(["in_progress", "alice"])
    );
}
