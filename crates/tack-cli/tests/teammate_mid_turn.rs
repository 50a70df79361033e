//! A message to an in-process teammate that is working reaches it with its
//! next tool results, as the lead's own arrivals do, rather than waiting for
//! its turn's end.

use serde_json::json;
use tack_testkit::{Reply, Script};

use crate::common::{self, Env};
use crate::teams::{SESSION_A, fifo, finish, release, requests_of, tack_on, wait_for};

#[tokio::test(flavor = "multi_thread")]
async fn a_message_to_a_working_teammate_arrives_after_its_next_tool_results() {
    let mut lead = vec![
        Reply::tool_use(
            "toolu_carol",
            "Agent",
            json!({"description": "carol helps", "prompt": "CAROL-MARK fix the bug",
                   "subagent_type": "general-purpose", "name": "carol"}),
        ),
        Reply::tool_use(
            "toolu_hint",
            "SendMessage",
            json!({"to": "carol", "summary": "a hint", "message": "look at parser.rs"}),
        ),
        Reply::text("sent"),
        // Woken by carol's idleness.
        Reply::tool_use(
            "toolu_bye",
            "SendMessage",
            json!({"to": "carol", "summary": "bye",
                   "message": {"type": "shutdown_request", "reason": "done"}}),
        ),
    ];
    lead.extend((0..4).map(|_| Reply::text("ok")));
    let carol = vec![
        Reply::tool_use("toolu_wait", "Bash", json!({"command": "cat wait-c"})),
        Reply::text("carol done"),
    ];
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), lead),
        ("CAROL-MARK".to_string(), carol),
    ]))
    .await;
    let wait_c = fifo(&env.cwd(), "wait-c");
    let lead = tack_on(&env, &env.server, &[])
        .args(["-p", "LEAD-MARK run the team", "--session-id", SESSION_A])
        .args(["--allowedTools", "Bash(cat:*)"])
        .spawn()
        .unwrap();
    let inbox = env
        .claude_dir()
        .join("teams/session-aaaaaaaa/inboxes/carol.json");
    wait_for("the lead's message in carol's inbox", || {
        std::fs::read_to_string(&inbox).is_ok_and(|t| t.contains("look at parser.rs"))
    })
    .await;
    release(&wait_c);
    finish(lead);

    let carol = requests_of(&env, "CAROL-MARK");
    assert_eq!(
        carol.len(),
        2,
        "carol's second request is the one after her tool"
    );
    assert_eq!(
        common::last_tool_results(&carol[1])
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>(),
        ["go"]
    );
    assert_eq!(
        common::last_texts(&carol[1]),
        [
            "<teammate-message teammate_id=\"team-lead\" summary=\"a hint\">\nlook at parser.rs\n</teammate-message>"
        ]
    );
}
