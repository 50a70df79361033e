//! A real rmcp server over streamable HTTP (rmcp's tower service in axum) and
//! over legacy SSE (an rmcp server behind a hand-made SSE endpoint), both on
//! 127.0.0.1 with TCP_NODELAY.

use crate::common;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_mcp::{McpManager, Status};
use tack_protocol::{ContentBlock, ImageSource};
use tack_tool::ToolOutput;

#[tokio::test]
async fn streamable_http_with_headers_lists_and_calls_tools() {
    let server = HttpFixture::start(Some(("x-token", "s3cret"))).await;
    let s = Scratch::new();
    let lookup = |k: &str| (k == "TOKEN").then(|| "s3cret".to_string());
    let m = McpManager::connect(
        &config(vec![http(
            "remote",
            &server.url("/mcp"),
            &[("X-Token", "${TOKEN}")],
        )]),
        s.options(),
        &lookup,
    )
    .await;
    assert_eq!(
        m.statuses()[0].status,
        Status::Connected,
        "{:?}",
        m.statuses()
    );
    assert_eq!(m.tools().len(), 17);
    assert_eq!(
        text(call(&m, &s, "mcp__remote__echo", json!({"text": "over http"})).await),
        "over http"
    );
    assert_eq!(
        call(&m, &s, "mcp__remote__image", json!({})).await,
        Ok(ToolOutput::blocks(vec![
            ContentBlock::text("a red pixel"),
            ContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: fixture_server::PNG_BASE64.into()
                },
                cache_control: None
            },
        ]))
    );
    let err = call(&m, &s, "mcp__remote__fail", json!({}))
        .await
        .unwrap_err();
    assert_eq!(err.message, "it failed");
    // list_changed over HTTP.
    let mut changes = m.subscribe();
    changes.borrow_and_update();
    call(&m, &s, "mcp__remote__add_tool", json!({"name": "late"}))
        .await
        .unwrap();
    while !m.tools().iter().any(|t| t.name() == "mcp__remote__late") {
        changes.changed().await.unwrap();
    }
    // Resources and prompts over HTTP.
    let resources = m.list_resources(None).await.unwrap();
    assert_eq!(resources.len(), 3);
    assert_eq!(m.list_prompts().await[0].command, "mcp__remote__review");
}

#[tokio::test]
async fn http_401_is_needs_auth_with_a_clear_message() {
    let server = HttpFixture::start(Some(("x-token", "s3cret"))).await;
    let s = Scratch::new();
    let m = McpManager::connect(
        &config(vec![
            http("challenged", &server.url("/locked"), &[]),
            http("plain", &server.url("/locked-plain"), &[]),
            http("tokenless", &server.url("/mcp"), &[]),
            http("fine", &server.url("/mcp"), &[("x-token", "s3cret")]),
        ]),
        s.options(),
        &no_env,
    )
    .await;
    let got: Vec<(String, &str)> = m
        .statuses()
        .into_iter()
        .map(|st| (st.name, st.status.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("challenged".into(), "needs-auth"),
            ("fine".into(), "connected"),
            ("plain".into(), "needs-auth"),
            ("tokenless".into(), "needs-auth"),
        ]
    );
    let message = m.statuses()[0].error.clone().unwrap();
    assert_eq!(
        message,
        "MCP server \"challenged\" needs authentication (HTTP 401 Unauthorized). tack does not support OAuth yet; \
         if the server accepts a token, add it as a header (\"headers\": {\"Authorization\": \"Bearer ${TOKEN}\"})"
    );
    assert_eq!(
        m.report_lines()[0],
        format!("MCP server \"challenged\" needs authentication: {message}")
    );
}

#[tokio::test]
async fn an_unreachable_http_server_fails_without_blocking_others() {
    let s = Scratch::new();
    // A port nothing listens on: bind, note the port, close.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let m = McpManager::connect(
        &config(vec![
            http("down", &format!("http://127.0.0.1:{port}/mcp"), &[]),
            stdio("local", &[]),
        ]),
        s.options(),
        &no_env,
    )
    .await;
    let statuses = m.statuses();
    assert_eq!(
        (statuses[0].status, statuses[1].status),
        (Status::Failed, Status::Connected)
    );
    let error = statuses[0].error.clone().unwrap();
    assert!(error.starts_with("initialization failed:"), "{error}");
}

#[tokio::test]
async fn legacy_sse_transport() {
    let server = HttpFixture::start(Some(("x-token", "s3cret"))).await;
    let s = Scratch::new();
    let m = McpManager::connect(
        &config(vec![
            sse("old", &server.url("/sse"), &[("x-token", "s3cret")]),
            sse("old-no-token", &server.url("/sse"), &[]),
        ]),
        s.options(),
        &no_env,
    )
    .await;
    let statuses: Vec<(String, Status)> = m
        .statuses()
        .into_iter()
        .map(|st| (st.name, st.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("old".into(), Status::Connected),
            ("old-no-token".into(), Status::NeedsAuth)
        ]
    );
    assert_eq!(
        text(call(&m, &s, "mcp__old__echo", json!({"text": "over sse"})).await),
        "over sse"
    );
    assert_eq!(
        call(&m, &s, "mcp__old__add", json!({"a": 1, "b": 1})).await,
        Ok(ToolOutput::text("2").with_structured(json!({"sum": 2.0})))
    );
    let contents = m.read_resource("old", "fixture://greeting").await.unwrap();
    assert_eq!(
        serde_json::to_value(&contents).unwrap(),
        json!([{"uri": "fixture://greeting", "mimeType": "text/plain", "text": "hello from sse"}])
    );
}
