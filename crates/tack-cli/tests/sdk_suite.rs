//! What the Python SDK's own e2e suite asks of the CLI in its message-shape
//! files (issue 21), driven through the pinned SDK (`tests/sdk/suite.py`)
//! against tack and the scripted model server: the error text of an API error,
//! the fields the SDK's messages keep, partial messages with thinking, a
//! permission callback for a file outside the project, an in-process tool
//! through `query()`.
//!
//! The SDK comes from `.ci/install-sdks.sh` (under `target/sdk`, or
//! `$TACK_SDK_DIR`); without it a test prints why and passes, or fails
//! under `TACK_REQUIRE_SDKS` (`crate::sdk::skip`).

use crate::common;
use crate::sdk_e2e::drive_file;

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

/// An unknown model (404) ends as Claude Code ends it: `success` with
/// `is_error` and the API's message in `result`, then exit 1, which the SDK
/// turns into an exception carrying that text.
#[tokio::test]
async fn an_api_error_reaches_the_exception_with_its_text() {
    let message = "model: claude-not-a-real-model-e2e";
    let env = Env::new(Script::new([Reply::http_error(
        404,
        "not_found_error",
        message,
    )]))
    .await;
    let Some(observations) = drive_file("suite.py", "api_error", &env, &[]).await else {
        return;
    };
    let text = "There's an issue with the selected model (claude-not-a-real-model-e2e). \
                It may not exist or you may not have access to it. Run --model to pick a \
                different model.";
    assert_eq!(
        observations,
        json!({
            "result": {"subtype": "success", "is_error": true, "result": text},
            "exception": {
                "type": "ResultError",
                "text": format!("Claude Code returned an error result: {text} (exit code: 1)"),
            },
        })
    );
}

/// The assistant message keeps its API id, usage, session id and uuid; the
/// result its per-model usage (whose costs add up to the total), its
/// permission denials and uuid; the same with partial messages on.
#[tokio::test]
async fn messages_keep_the_fields_the_sdk_preserves() {
    let hi = || Reply::message().text("Hi!").usage(10, 3).cache(0, 0).into();
    let env = Env::new(Script::new([hi(), hi()])).await;
    let Some(observations) = drive_file("suite.py", "fields", &env, &[]).await else {
        return;
    };
    let report = |stream_event_types: Vec<&str>| {
        json!({
            "assistant": {
                "model": "claude-sonnet-4-5", "id_is_msg": true,
                "usage_keys": ["cache_creation_input_tokens", "cache_read_input_tokens",
                               "input_tokens", "output_tokens"],
                "session_id_set": true, "uuid_set": true,
            },
            "result": {
                "models": ["claude-sonnet-4-5"],
                "model_entry_keys": ["costUSD", "inputTokens", "outputTokens"],
                "cost_matches": true, "permission_denials": [], "uuid_set": true,
            },
            "stream_event_types": stream_event_types,
        })
    };
    let events = vec![
        "content_block_delta",
        "content_block_start",
        "content_block_stop",
        "message_delta",
        "message_start",
        "message_stop",
    ];
    assert_eq!(
        observations,
        json!({"plain": report(Vec::new()), "partial": report(events)})
    );
}

/// With partial messages and a thinking budget: `system/init` first, the
/// stream's events, thinking and text blocks, the thinking as deltas, and the
/// result last.
#[tokio::test]
async fn partial_messages_stream_thinking_and_text() {
    let env = Env::new(Script::new([Reply::message()
        .thinking("Three jokes: 2 + 2 puns first.", "sig-1")
        .text("Why did the 2 cross the road?")
        .into()]))
    .await;
    let Some(observations) = drive_file("suite.py", "thinking", &env, &[]).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({
            "first": ["SystemMessage", "init"],
            "last": ["ResultMessage", "success"],
            "event_types": ["content_block_delta", "content_block_start", "content_block_stop",
                            "message_delta", "message_start", "message_stop"],
            "blocks": ["ThinkingBlock", "TextBlock"],
            "thinking_deltas": "Three jokes: 2 + 2 puns first.",
        })
    );
    let body = &env.request_bodies()[0];
    assert_eq!(
        (&body["thinking"], &body["max_tokens"]),
        (
            &json!({"type": "enabled", "budget_tokens": 8000}),
            &json!(32000)
        )
    );
}

/// `can_use_tool` is asked about a Write outside the project and its allow
/// lets the file be written.
#[tokio::test]
async fn the_permission_callback_is_asked_about_a_write_outside_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("sdk_permission_test.txt");
    let write = json!({"file_path": target, "content": "hello world"});
    let env = Env::new(Script::new([
        Reply::tool_use("toolu_p1", "Write", write),
        Reply::text("Created."),
    ]))
    .await;
    let extra = [("SDK_PERMISSION_TARGET", target.as_path())];
    let Some(observations) = drive_file("suite.py", "permission", &env, &extra).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({"asked": ["Write"], "results": ["Created."], "written": "hello world"})
    );
}

/// `query()` with a string prompt and an allowed in-process tool: the tool
/// runs (stdin is open for its `mcp_message`), and leaving at the result is
/// clean.
#[tokio::test]
async fn a_string_prompt_runs_an_in_process_tool() {
    let env = Env::new(Script::new([
        Reply::tool_use(
            "toolu_e1",
            "mcp__test__echo",
            json!({"text": "hello world"}),
        ),
        Reply::text("Echoed."),
    ]))
    .await;
    let Some(observations) = drive_file("suite.py", "mcp_string", &env, &[]).await else {
        return;
    };
    assert_eq!(
        observations,
        json!({"executions": ["hello world"], "last": "ResultMessage"})
    );
}
