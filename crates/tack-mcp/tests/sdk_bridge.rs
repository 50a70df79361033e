//! `{"type": "sdk"}` servers through an [`SdkBridge`] whose host plays the
//! Agent SDK: it records every JSON-RPC message tack sends and answers as an
//! in-process server would (the binary with both real SDKs: tack-cli's
//! `tests/sdk.rs`).

use std::sync::{Arc, Mutex, PoisonError};

use futures::future::{BoxFuture, FutureExt, ready};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_mcp::{McpManager, SdkBridge, SdkHost, ServerConfig, Status};

use crate::common::{Scratch, call, config, entry, no_env, text};

/// Answers like a server with one tool, `add`; records what it was sent.
#[derive(Default)]
struct FakeSdk {
    sent: Mutex<Vec<String>>,
    /// The SDK answers `initialize` with this error instead.
    refuse: Option<&'static str>,
}

impl FakeSdk {
    fn sent(&self) -> Vec<String> {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

fn initialize_result() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": true}},
           "serverInfo": {"name": "calculator", "version": "1.0.0"}})
}

fn tools_list_result() -> Value {
    json!({"tools": [{"name": "add", "description": "Add two numbers",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}]})
}

impl SdkHost for FakeSdk {
    fn send(&self, server: &str, message: Value) -> BoxFuture<'static, Result<Value, String>> {
        let method = message["method"].as_str().unwrap_or("(reply)").to_owned();
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(format!("{server}: {method}"));
        if let (Some(why), "initialize") = (self.refuse, method.as_str()) {
            return ready(Err(why.to_owned())).boxed();
        }
        // The SDKs answer with the server's reply, its id the request's
        // (here a wrong one: tack must not trust it).
        let result = match method.as_str() {
            "initialize" => initialize_result(),
            "tools/list" => tools_list_result(),
            "tools/call" => {
                let args = &message["params"]["arguments"];
                let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
                json!({"content": [{"type": "text", "text": sum.to_string()}]})
            }
            _ => json!({}),
        };
        ready(Ok(json!({"jsonrpc": "2.0", "id": 0, "result": result}))).boxed()
    }
}

async fn start(bridge: &SdkBridge, scratch: &Scratch) -> McpManager {
    let mut options = scratch.options();
    options.sdk = Some(bridge.clone());
    let sdk_entry = entry("calc", ServerConfig::Sdk { name: None });
    McpManager::connect(&config(vec![sdk_entry]), options, &no_env).await
}

#[tokio::test]
async fn an_sdk_server_handshakes_lists_and_calls_over_the_host() {
    let scratch = Scratch::new();
    let sdk = Arc::new(FakeSdk::default());
    let bridge = SdkBridge::new(sdk.clone());
    let manager = start(&bridge, &scratch).await;
    let statuses = manager.statuses();
    assert_eq!(
        (
            statuses[0].status,
            statuses[0].transport,
            statuses[0].tool_count
        ),
        (Status::Connected, "sdk", 1)
    );
    let sum = call(
        &manager,
        &scratch,
        "mcp__calc__add",
        json!({"a": 2, "b": 3}),
    )
    .await;
    assert_eq!(text(sum), "5");
    assert_eq!(
        sdk.sent(),
        [
            "calc: initialize",
            "calc: notifications/initialized",
            "calc: tools/list",
            "calc: tools/call"
        ]
    );
    // The SDK closing its input ends the connection.
    bridge.close();
    manager.wait_until_settled().await;
    let mut rx = manager.subscribe();
    while manager.statuses()[0].status == Status::Connected {
        rx.changed().await.unwrap();
    }
    assert_eq!(manager.statuses()[0].status, Status::Failed);
}

#[tokio::test]
async fn a_manifest_answers_the_handshake_and_the_first_list() {
    let scratch = Scratch::new();
    let sdk = Arc::new(FakeSdk::default());
    let bridge = SdkBridge::new(sdk.clone());
    bridge.set_manifest(
        "calc",
        &json!({"initializeResult": initialize_result(), "toolsListResult": tools_list_result()}),
    );
    let manager = start(&bridge, &scratch).await;
    assert_eq!(manager.statuses()[0].tool_count, 1);
    assert_eq!(sdk.sent(), Vec::<String>::new());
    // A list change goes to the SDK for the new list.
    bridge
        .deliver(
            "calc",
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        )
        .unwrap();
    manager
        .tool_lists_current(std::time::Duration::from_secs(5))
        .await;
    assert_eq!(sdk.sent(), ["calc: tools/list"]);
    assert_eq!(
        bridge.deliver("nope", json!({"jsonrpc": "2.0", "method": "x"})),
        Err("no in-process MCP server \"nope\" is connected".to_owned())
    );
}

#[tokio::test]
async fn the_sdks_error_fails_the_server_with_its_words() {
    let scratch = Scratch::new();
    let sdk = Arc::new(FakeSdk {
        refuse: Some("SDK MCP server not found: calc"),
        ..FakeSdk::default()
    });
    let bridge = SdkBridge::new(sdk.clone());
    let manager = start(&bridge, &scratch).await;
    let status = &manager.statuses()[0];
    assert_eq!(status.status, Status::Failed);
    let error = status.error.clone().unwrap_or_default();
    assert_eq!(
        error,
        "initialization failed: JSON-RPC error: -32603: SDK MCP server not found: calc"
    );
}
