//! `tack auto-mode critique`: one plain-text model call over the user's own rules.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_automode::{AutoModeConfig, NO_CUSTOM_RULES, critique};
use tack_testkit::{MockServer, Reply, Script};
use tokio_util::sync::CancellationToken;

use crate::common::{MODEL, anthropic};

/// The critique of the rules in `user` (user settings), `replies` answering.
async fn critique_against(
    replies: Vec<Reply>,
    user: Value,
) -> (Result<String, String>, MockServer) {
    let server = MockServer::start(Script::new(replies))
        .await
        .expect("mock server");
    let (config, _) = AutoModeConfig::from_sources(&[("user settings", &user)]);
    let answer = critique(
        anthropic(&server).as_ref(),
        MODEL,
        &config,
        &CancellationToken::new(),
    )
    .await;
    (answer, server)
}

#[tokio::test]
async fn the_users_own_rules_are_reviewed_in_one_call() {
    let (answer, server) = critique_against(
        vec![Reply::text("\"Deploys are fine\" is too broad: say which environment.\n")],
        json!({"allow": ["$defaults", "Deploys are fine."], "environment": ["git.corp.example is ours."]}),
    )
    .await;
    assert_eq!(
        answer,
        Ok("\"Deploys are fine\" is too broad: say which environment.".to_owned())
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let text = requests[0].body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        text.starts_with(
            "The user's own rules, by list:\n\n<allow>\n- Deploys are fine.\n</allow>\n\n<environment>\n- git.corp.example is ours.\n</environment>\n"
        ),
        "{text}"
    );
    assert_eq!(requests[0].body["max_tokens"], json!(4096));
}

#[tokio::test]
async fn without_rules_of_ones_own_nothing_is_asked() {
    let (answer, server) = critique_against(Vec::new(), json!({"allow": ["$defaults"]})).await;
    assert_eq!(
        (answer, server.requests().len()),
        (Ok(NO_CUSTOM_RULES.to_owned()), 0)
    );
}

#[tokio::test]
async fn a_failed_critique_says_what_failed() {
    let error = Reply::http_error(401, "authentication_error", "invalid x-api-key");
    let (answer, _server) =
        critique_against(vec![error], json!({"hard_deny": ["Never touch prod."]})).await;
    assert_eq!(
        answer,
        Err("the critique request to claude-sonnet-4-5 failed: authentication failed: invalid x-api-key (check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN)".to_owned())
    );
}
