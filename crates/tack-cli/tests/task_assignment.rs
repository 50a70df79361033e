//! TaskUpdate giving a task to a teammate through the `tack` binary: the
//! lead's update writes Claude Code's `task_assignment` message to the
//! teammate's inbox, and the teammate's session (idle, in its own process)
//! is woken by it. A self-assignment writes nothing.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use crate::common;
use crate::teams::{finish, tack_on, wait_for};

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};

const TEAM: &str = "quiet-reading-otter";

#[tokio::test(flavor = "multi_thread")]
async fn a_task_given_to_a_teammate_reaches_its_inbox_and_wakes_it() {
    let env = Env::new(Script::new([
        Reply::text("reader ready"),
        Reply::text("reader on task 1"),
    ]))
    .await;
    let lead_server = MockServer::start(Script::new([
        Reply::tool_use(
            "toolu_create",
            "TaskCreate",
            json!({"subject": "Document the lexer", "description": "A module comment for src/lexer.rs"}),
        ),
        Reply::tool_use(
            "toolu_give",
            "TaskUpdate",
            json!({"taskId": "1", "owner": "reader-1"}),
        ),
        Reply::tool_use(
            "toolu_mine",
            "TaskUpdate",
            json!({"taskId": "1", "owner": "team-lead"}),
        ),
        Reply::text("assigned"),
        // The reader's idle notice may come after the lead's last request
        // and start one more turn.
        Reply::text("assigned"),
    ]))
    .await
    .unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tack-runtime/tests/fixtures/teams/config-dir/teams")
        .join(TEAM);
    let team = env.claude_dir().join("teams").join(TEAM);
    std::fs::create_dir_all(team.join("inboxes")).unwrap();
    std::fs::copy(fixture.join("config.json"), team.join("config.json")).unwrap();
    let as_member = |agent| {
        [
            ("CLAUDE_CODE_TEAM_NAME", TEAM),
            ("CLAUDE_CODE_AGENT_NAME", agent),
        ]
    };

    let mut reader = tack_on(&env, &env.server, &as_member("reader-1"))
        .args(common::STREAM_JSON)
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = reader.stdin.as_mut().unwrap();
    writeln!(stdin, "{}", common::user_line("start")).unwrap();
    wait_for("the reader's first turn", || {
        env.server.requests().len() == 1
    })
    .await;
    // The reader tells its lead it is idle after each turn: the first
    // notice is taken away, so the lead starts with an empty inbox.
    let lead_inbox = team.join("inboxes/team-lead.json");
    wait_for("the reader's idle notice", || {
        std::fs::read_to_string(&lead_inbox).is_ok_and(|t| t.contains("idle_notification"))
    })
    .await;
    std::fs::write(&lead_inbox, "[]").unwrap();
    let lead = tack_on(&env, &lead_server, &as_member("team-lead"))
        .args(["-p", "give it out"])
        .spawn()
        .unwrap();
    let said = finish(lead);
    assert!(
        !said.is_empty() && said.lines().all(|l| l == "assigned"),
        "{said}"
    );
    wait_for("the reader woken", || env.server.requests().len() == 2).await;
    drop(reader.stdin.take());
    assert!(reader.wait().unwrap().success());

    let inbox: Value =
        serde_json::from_str(&std::fs::read_to_string(team.join("inboxes/reader-1.json")).unwrap())
            .unwrap();
    let mut sent = inbox.as_array().unwrap().clone();
    assert_eq!(sent.len(), 1, "{inbox}");
    let stamp = sent[0]["timestamp"].take();
    let raw = sent[0]["text"].take().as_str().unwrap().to_owned();
    let text: Value = serde_json::from_str(&raw).unwrap();
    assert_eq!(
        (sent[0].clone(), text.clone()),
        (
            json!({"from": "team-lead", "text": null, "timestamp": null, "read": true}),
            json!({"type": "task_assignment", "taskId": "1", "subject": "Document the lexer",
                   "description": "A module comment for src/lexer.rs", "assignedBy": "team-lead",
                   "timestamp": stamp})
        )
    );
    // Taking the task oneself tells nobody.
    let lead_inbox = std::fs::read_to_string(team.join("inboxes/team-lead.json"));
    assert!(!lead_inbox.unwrap_or_default().contains("task_assignment"));
    let woken = common::last_texts(&env.request_bodies()[1]);
    assert_eq!(
        woken,
        [format!(
            "<teammate-message teammate_id=\"team-lead\">\n{raw}\n</teammate-message>"
        )]
    );
    let results = common::last_tool_results(&lead_server.requests()[2].body);
    assert_eq!(results[0].1, "Updated task #1 owner");
}
