//! A lead's teammates' states as the front end sees them: stream-json's
//! `system/teammate_state` records (tack's own subtype), one per change.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{self, Env};
use crate::teams::{SESSION_A, finish, tack_on};

/// The teammate records of a stream-json run, without their uuids.
pub(crate) fn teammate_states(stdout: &str) -> Vec<Value> {
    common::lines(stdout.as_bytes())
        .into_iter()
        .filter(|r| r["type"] == "system" && r["subtype"] == "teammate_state")
        .map(|mut r| {
            assert!(r["uuid"].is_string(), "{r}");
            r.as_object_mut().unwrap().remove("uuid");
            r
        })
        .collect()
}

/// The record of `name` in `state`, as the in-process teammate's.
pub(crate) fn state(name: &str, color: &str, backend: &str, state: &str) -> Value {
    json!({"type": "system", "subtype": "teammate_state", "session_id": SESSION_A,
           "team_name": "session-aaaaaaaa", "name": name, "state": state, "color": color,
           "agent_type": "general-purpose", "backend_type": backend})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_json_lead_sees_its_teammate_join_work_idle_and_stop() {
    let mut lead = vec![Reply::tool_use(
        "toolu_carol",
        "Agent",
        json!({"description": "carol helps", "prompt": "CAROL-MARK fix the bug",
               "subagent_type": "general-purpose", "name": "carol"}),
    )];
    lead.extend((0..6).map(|_| Reply::text("ok")));
    let carol = vec![Reply::text("carol first"), Reply::text("carol second")];
    let env = Env::new(Script::routed([
        ("LEAD-MARK".to_string(), lead),
        ("CAROL-MARK".to_string(), carol),
    ]))
    .await;
    let kept = env.cwd().join("kept");
    // First idleness: keep working (exit 2); the second: stop.
    let hook = format!(
        "if [ -e {kept} ]; then echo '{{\"continue\": false}}'; else touch {kept}; echo 'again' >&2; exit 2; fi",
        kept = kept.display()
    );
    common::write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"TeammateIdle": [{"hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    env.trust();
    let lead = tack_on(&env, &env.server, &[])
        .args([
            "-p",
            "LEAD-MARK run the team",
            "--session-id",
            SESSION_A,
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .spawn()
        .unwrap();
    let stdout = finish(lead);
    let carol = |s: &str| state("carol", "blue", "in-process", s);
    assert_eq!(
        teammate_states(&stdout),
        [
            carol("joined"),
            carol("working"),
            carol("idle"),
            carol("working"),
            carol("idle"),
            carol("stopped"),
        ]
    );
}
