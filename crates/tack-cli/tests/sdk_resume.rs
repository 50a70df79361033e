//! The Python SDK's truncating resume (`resume_session_at` with
//! `resume_drops_turn`), as its own end-to-end suite asks it of the CLI
//! (issue 35), driven through the pinned SDK (`tests/sdk/resume.py`) against
//! tack and the scripted model server: a two-turn session forked at the end
//! of turn one, naming turn two's prompt (the fork goes ahead) or a uuid of
//! no record (refused, with the text the SDK's docs tell callers to match).
//!
//! The SDK comes from `.ci/install-sdks.sh` (under `target/sdk`, or
//! `$TACK_SDK_DIR`); without it a test prints why and passes, or fails
//! under `TACK_REQUIRE_SDKS` (`crate::sdk::skip`).

use crate::common;
use crate::sdk_e2e::drive_file;

use common::{Env, last_texts};
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

/// Turn two's prompt and all it wrote are cut; the fork answers "three"
/// after turn one alone, in a session of its own, and the source is
/// untouched.
#[tokio::test(flavor = "multi_thread")]
async fn a_truncating_resume_naming_the_next_prompt_forks_without_it() {
    let replies = [
        Reply::text("answer one"),
        Reply::text("answer two"),
        Reply::text("answer three"),
    ];
    let env = Env::new(Script::new(replies)).await;
    let Some(observations) = drive_file("resume.py", "drops_matching", &env, &[]).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({
            "source": {"errors": [false, false], "two_follows": true},
            "forked": {"is_error": false, "new_session": true, "prompts": ["one", "three"]},
            "source_prompts": ["one", "two"],
        })
    );
    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 3);
    let sent = bodies[2]["messages"].to_string();
    assert!(
        sent.contains("answer one") && !sent.contains("answer two"),
        "{sent}"
    );
    assert_eq!(last_texts(&bodies[2]), ["three"]);
}

/// A `resume_drops_turn` that is not the prompt after the fork point: tack
/// refuses before anything is sent, with an error result the SDK turns into
/// the `ProcessError` (a `ResultError`) its docs tell callers to match on.
#[tokio::test(flavor = "multi_thread")]
async fn a_truncating_resume_naming_another_prompt_is_refused_with_the_sdks_text() {
    let replies = [Reply::text("answer one"), Reply::text("answer two")];
    let env = Env::new(Script::new(replies)).await;
    let Some(mut observations) = drive_file("resume.py", "drops_wrong", &env, &[]).await else {
        return;
    };
    let text = observations["exception"]["text"].take();
    let text = text.as_str().unwrap_or_default();
    assert_eq!(
        observations,
        json!({
            "source": {"errors": [false, false], "two_follows": true},
            "exception": {"types": ["ResultError", "ProcessError", "ClaudeSDKError"], "text": null},
            "source_prompts": ["one", "two"],
        })
    );
    assert!(
        text.starts_with(
            "Claude Code returned an error result: Resume rejected by --resume-drops-turn: \
             the record after `"
        ) && text.ends_with("` (exit code: 1)"),
        "{text}"
    );
    assert_eq!(env.request_bodies().len(), 2);
}
