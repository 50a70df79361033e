//! The Agent SDK features newer than the pinned SDKs' own options (issue 21),
//! driven through the pinned SDKs: what the newest SDK sends (an initialize
//! field, a flag) is passed the way it would be.

use crate::common;

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

use crate::sdk::{drive, typescript};

/// `sdkMcpServerConfigs`: the host's per-tool policies win over
/// `allowedTools` (always_ask asks `canUseTool`, always_deny keeps the tool
/// from the model), and its timeout ends a call the server does not answer
/// in time.
#[tokio::test(flavor = "multi_thread")]
async fn typescript_sdk_server_configs_ask_deny_and_time_out() {
    let env = Env::new(Script::new([
        Reply::tool_use("t1", "mcp__calc__secret", json!({})),
        Reply::tool_use("t2", "mcp__calc__wipe", json!({})),
        Reply::tool_use("t3", "mcp__calc__add", json!({"a": 2, "b": 3})),
        Reply::text("Done."),
    ]))
    .await;
    let Some(report) = drive(&typescript(), "sdk_mcp_policy", &env).await else {
        return;
    };
    let timed_out = "<tool_use_error>mcp__calc__add timed out after 1s (the server's timeout); the server was asked to cancel it</tool_use_error>";
    assert_eq!(
        report["observations"],
        json!({
            "asked": ["mcp__calc__secret"],
            "calls": [["secret", {}], ["add", {"a": 2, "b": 3}]],
            "mcp_servers": [{"name": "calc", "status": "connected"}],
            "mcp_tools": ["mcp__calc__add", "mcp__calc__divide", "mcp__calc__chart", "mcp__calc__secret"],
            "tool_results": [
                {"tool_use_id": "t1", "is_error": null, "content": "the secret"},
                {"tool_use_id": "t2", "is_error": true,
                 "content": "<tool_use_error>Error: No such tool available: mcp__calc__wipe</tool_use_error>"},
                {"tool_use_id": "t3", "is_error": true, "content": timed_out},
            ],
            "result": {
                "subtype": "success", "is_error": false, "num_turns": 4, "result": "Done.",
                "terminal_reason": "completed", "permission_denials": [],
            },
        })
    );
}
