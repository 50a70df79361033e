//! Changing a running session's servers (`mcp_reconnect`, `mcp_toggle`,
//! `mcp_set_servers`) against real stdio servers (the `tack-mcp-fixture`
//! binary).

use crate::common;

use std::collections::BTreeMap;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_mcp::{McpManager, SetServersResult};

/// (name, status) of every server.
fn statuses(m: &McpManager) -> Vec<(String, &'static str)> {
    m.statuses()
        .into_iter()
        .map(|s| (s.name, s.status.as_str()))
        .collect()
}

fn server(args: &[&str]) -> serde_json::Value {
    json!({"type": "stdio", "command": FIXTURE, "args": args})
}

#[tokio::test]
async fn reconnect_starts_a_new_process_and_toggle_withdraws_and_restores_tools() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let first = m.server_pid("fx").unwrap();
    m.reconnect("fx").await.unwrap();
    let second = m.server_pid("fx").unwrap();
    assert_ne!(first, second);

    let generation = m.generation();
    m.toggle("fx", false).await.unwrap();
    assert_eq!(
        (statuses(&m), m.tools().len(), m.generation() > generation),
        (vec![("fx".into(), "disabled")], 0, true)
    );
    m.toggle("fx", true).await.unwrap();
    assert_eq!(statuses(&m), vec![("fx".into(), "connected")]);
    assert_eq!(m.tools().len(), 17);

    assert_eq!(
        m.reconnect("nope").await,
        Err("Server not found: nope".to_owned())
    );
}

#[tokio::test]
async fn set_servers_adds_replaces_and_removes_only_what_it_manages() {
    let s = Scratch::new();
    // `base` comes from the configuration: a call that omits it keeps it.
    let m = McpManager::connect(&config(vec![stdio("base", &[])]), s.options(), &no_env).await;
    let broken = json!({"type": "stdio", "command": "/nonexistent/tack-mcp-server"});
    let added = m
        .set_servers(
            &json!({"a": server(&[]), "b": server(&[]), "bad": broken, "odd": {"type": "carrier-pigeon"}}),
            &|_| None,
        )
        .await
        .unwrap();
    assert_eq!(
        (
            added.added,
            added.removed,
            added.errors.keys().cloned().collect::<Vec<_>>()
        ),
        (
            vec!["a".to_owned(), "b".to_owned(), "bad".to_owned()],
            vec![],
            vec!["bad".to_owned(), "odd".to_owned()]
        )
    );
    assert_eq!(
        statuses(&m),
        vec![
            ("a".into(), "connected"),
            ("b".into(), "connected"),
            ("bad".into(), "failed"),
            ("base".into(), "connected"),
        ]
    );
    let a_pid = m.server_pid("a").unwrap();

    // Same config: kept as is; new config: replaced (added); omitted: removed.
    let changed = m
        .set_servers(
            &json!({"a": server(&[]), "b": server(&["--name", "other"]), "c": server(&[])}),
            &|_| None,
        )
        .await
        .unwrap();
    assert_eq!(
        changed,
        SetServersResult {
            added: vec!["b".into(), "c".into()],
            removed: vec!["bad".into()],
            errors: BTreeMap::new(),
        }
    );
    assert_eq!(m.server_pid("a"), Some(a_pid));
    let names: Vec<String> = statuses(&m).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["a", "b", "base", "c"]);
    assert!(m.tools().iter().any(|t| t.name() == "mcp__c__echo"));

    // An empty set removes what the calls named, and only that.
    let cleared = m.set_servers(&json!({}), &|_| None).await.unwrap();
    assert_eq!(
        (cleared.added, cleared.removed),
        (vec![], vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
    );
    assert_eq!(statuses(&m), vec![("base".into(), "connected")]);
    assert_eq!(
        m.set_servers(&json!([]), &|_| None).await,
        Err("`mcpServers` must be an object, found an array".to_owned())
    );
}
