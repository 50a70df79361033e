//! The reference server `@modelcontextprotocol/server-everything` (pinned in
//! `.ci/install-mcp-everything.sh`), over stdio through `--mcp-config`, with a
//! broken server beside it. Skips (and says why) when the install or node is
//! missing.

use crate::common;

use std::path::PathBuf;
use std::time::Instant;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_mcp::{LoadOptions, McpManager, McpPaths, ProjectApprovals, Status, load_config};
use tack_protocol::{ContentBlock, ImageSource, ToolResultContent};

const ENTRY: &str =
    "mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// `<target>/mcp-everything/...`, found from the fixture binary's path.
fn installed() -> Option<PathBuf> {
    PathBuf::from(FIXTURE)
        .ancestors()
        .map(|dir| dir.join(ENTRY))
        .find(|p| p.is_file())
}

fn node_runs() -> bool {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[tokio::test]
async fn echo_sum_and_image_from_the_reference_server() {
    let Some(entry) = installed() else {
        println!("skipped: server-everything is not installed; run .ci/install-mcp-everything.sh");
        return;
    };
    if !node_runs() {
        println!("skipped: node is not on PATH");
        return;
    }
    let s = Scratch::new();
    let mcp_config = json!({"mcpServers": {
        "everything": {"command": "node", "args": [entry.to_string_lossy(), "stdio"]},
        "broken": {"command": "/nonexistent/mcp-server", "args": []},
    }})
    .to_string();
    let paths = McpPaths::new(s.path(), s.path(), None, None, None);
    let config = load_config(
        &paths,
        LoadOptions {
            mcp_config: &[mcp_config],
            strict: true,
            approvals: &ProjectApprovals::default(),
        },
    )
    .unwrap();
    let started = Instant::now();
    let m = McpManager::connect(&config, s.options(), &no_env).await;
    println!("server-everything connected in {:?}", started.elapsed());
    let statuses: Vec<(String, Status)> = m
        .statuses()
        .into_iter()
        .map(|st| (st.name, st.status))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("broken".into(), Status::Failed),
            ("everything".into(), Status::Connected)
        ],
        "{:?}",
        m.statuses()
    );
    assert_eq!(
        m.report_lines(),
        vec![
            "MCP server \"broken\" failed: cannot start `/nonexistent/mcp-server`: No such file or directory (os error 2)"
        ]
    );

    assert_eq!(
        text(call(&m, &s, "mcp__everything__echo", json!({"message": "hello"})).await),
        "Echo: hello"
    );
    assert_eq!(
        text(call(&m, &s, "mcp__everything__get-sum", json!({"a": 2, "b": 40})).await),
        "The sum of 2 and 40 is 42."
    );
    let image = call(&m, &s, "mcp__everything__get-tiny-image", json!({}))
        .await
        .unwrap();
    let ToolResultContent::Blocks(blocks) = image.content else {
        panic!("expected blocks: {image:?}");
    };
    assert_eq!(blocks.len(), 3);
    assert_eq!(
        blocks[0],
        ContentBlock::text("Here's the image you requested:")
    );
    assert!(
        matches!(&blocks[1], ContentBlock::Image { source: ImageSource::Base64 { media_type, data }, .. }
            if media_type == "image/png" && data.starts_with("iVBORw0KGgo")),
        "{:?}",
        blocks[1]
    );
    assert_eq!(
        blocks[2],
        ContentBlock::text("The image above is the MCP logo.")
    );
    // Its tools carry readOnlyHint.
    assert!(tool(&m, "mcp__everything__echo").is_read_only(&json!({})));
}
