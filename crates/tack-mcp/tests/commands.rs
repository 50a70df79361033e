//! `tack mcp add | add-json | list | get | remove` against real files and a
//! real server.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use common::FIXTURE;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_mcp::{
    AddArgs, HealthCheck, McpPaths, ProjectApprovals, mcp_add, mcp_add_json, mcp_get, mcp_list,
    mcp_remove,
};
use tempfile::TempDir;

struct Env {
    tmp: TempDir,
    paths: McpPaths,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let paths = McpPaths::new(
        &project,
        &project,
        Some(&home),
        Some(&home.join(".tack")),
        None,
    );
    Env { tmp, paths }
}

fn read(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn check<'a>(
    e: &'a Env,
    approvals: &'a ProjectApprovals,
    lookup: &'a dyn Fn(&str) -> Option<String>,
) -> HealthCheck<'a> {
    HealthCheck {
        approvals,
        lookup,
        timeout: Duration::from_secs(10),
        log_dir: e.tmp.path(),
    }
}

#[test]
fn add_writes_each_scope_like_claude_mcp() {
    let e = env();
    let claude_file = e.paths.claude_file.clone().unwrap();
    let project = e.paths.project_dir.to_string_lossy().to_string();
    let out = mcp_add(
        &e.paths,
        &AddArgs {
            name: "fs".into(),
            command_or_url: "npx".into(),
            args: vec!["-y".into(), "mcp-fs".into()],
            env: vec!["LOG=warn".into(), "EMPTY=".into()],
            ..AddArgs::default()
        },
    )
    .unwrap();
    assert_eq!(
        out,
        format!(
            "Added stdio MCP server fs with command: npx -y mcp-fs to local config\nFile modified: {}",
            claude_file.display()
        )
    );
    let out = mcp_add(
        &e.paths,
        &AddArgs {
            name: "issues".into(),
            transport: Some("http".into()),
            command_or_url: "https://mcp.example.com/mcp".into(),
            scope: Some("user".into()),
            headers: vec!["Authorization: Bearer ${TOKEN}".into()],
            ..AddArgs::default()
        },
    )
    .unwrap();
    assert_eq!(
        out,
        format!(
            "Added HTTP MCP server issues with URL: https://mcp.example.com/mcp to user config\nHeaders: {{\n  \"Authorization\": \"Bearer ${{TOKEN}}\"\n}}\nFile modified: {}",
            claude_file.display()
        )
    );
    let out = mcp_add_json(
        &e.paths,
        "legacy",
        r#"{"type":"sse","url":"https://old.example.com/sse"}"#,
        Some("project"),
    )
    .unwrap();
    assert_eq!(
        out,
        format!(
            "Added SSE MCP server legacy with URL: https://old.example.com/sse to project config\nFile modified: {}",
            e.paths.project_file().display()
        )
    );
    assert_eq!(
        read(&claude_file),
        json!({
            "mcpServers": {"issues": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}},
            "projects": {project: {"mcpServers": {"fs": {"type": "stdio", "command": "npx", "args": ["-y", "mcp-fs"], "env": {"EMPTY": "", "LOG": "warn"}}}}}
        })
    );
    assert_eq!(
        read(&e.paths.project_file()),
        json!({"mcpServers": {"legacy": {"type": "sse", "url": "https://old.example.com/sse", "headers": {}}}})
    );
    // Credentials may live in the user file: private. .mcp.json is shared.
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        (mode(&claude_file), mode(&e.paths.project_file())),
        (0o600, 0o644)
    );
}

#[test]
fn add_refuses_bad_input_and_loses_nothing() {
    let e = env();
    let claude_file = e.paths.claude_file.clone().unwrap();
    std::fs::create_dir_all(claude_file.parent().unwrap()).unwrap();
    std::fs::write(
        &claude_file,
        r#"{"theme": "dark", "mcpServers": {"a": {"command": "a"}}}"#,
    )
    .unwrap();
    let err = |args: AddArgs| mcp_add(&e.paths, &args).unwrap_err().to_string();
    let base = AddArgs {
        name: "b".into(),
        command_or_url: "b".into(),
        ..AddArgs::default()
    };
    assert_eq!(
        err(AddArgs {
            name: "bad name".into(),
            ..base.clone()
        }),
        "Invalid name bad name. Names can only contain letters, numbers, hyphens, and underscores."
    );
    assert_eq!(
        err(AddArgs {
            scope: Some("global".into()),
            ..base.clone()
        }),
        "Invalid scope: global. Must be one of: local, user, project"
    );
    assert_eq!(
        err(AddArgs {
            transport: Some("ws".into()),
            ..base.clone()
        }),
        "unknown transport `ws`: use stdio, http or sse"
    );
    assert_eq!(
        err(AddArgs {
            env: vec!["NOVALUE".into()],
            ..base.clone()
        }),
        "invalid -e value `NOVALUE`: expected KEY=VALUE"
    );
    assert_eq!(
        err(AddArgs {
            headers: vec!["X: y".into()],
            ..base.clone()
        }),
        "--header is only for http and sse servers"
    );
    assert_eq!(
        err(AddArgs {
            name: "a".into(),
            scope: Some("user".into()),
            ..base.clone()
        }),
        "MCP server a already exists in user config"
    );
    assert_eq!(
        mcp_add_json(&e.paths, "j", r#"{"url": "https://x"}"#, None)
            .unwrap_err()
            .to_string(),
        "invalid server configuration: has a `url` but no `type`: add \"type\": \"http\" (or \"sse\")"
    );
    // Other keys survive an edit.
    mcp_add(
        &e.paths,
        &AddArgs {
            scope: Some("user".into()),
            ..base
        },
    )
    .unwrap();
    assert_eq!(
        read(&claude_file),
        json!({"theme": "dark", "mcpServers": {
            "a": {"command": "a"},
            "b": {"type": "stdio", "command": "b", "args": [], "env": {}}
        }})
    );
    // A file that does not parse is not overwritten.
    std::fs::write(&claude_file, "{broken").unwrap();
    let e2 = mcp_add_json(&e.paths, "c", r#"{"command": "c"}"#, Some("user")).unwrap_err();
    assert_eq!(
        e2.to_string(),
        format!(
            "invalid MCP config {}: key must be a string at line 1 column 2",
            claude_file.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&claude_file).unwrap(), "{broken");
}

#[test]
fn remove_finds_the_scope_or_asks_for_one() {
    let e = env();
    for scope in ["local", "project"] {
        mcp_add_json(&e.paths, "twice", r#"{"command": "t"}"#, Some(scope)).unwrap();
    }
    mcp_add_json(&e.paths, "once", r#"{"command": "o"}"#, Some("user")).unwrap();
    let claude_file = e.paths.claude_file.clone().unwrap();
    assert_eq!(
        mcp_remove(&e.paths, "twice", None).unwrap_err().to_string(),
        format!(
            "MCP server \"twice\" exists in multiple scopes:\n  - project: {}\n  - local: {}\n\nTo remove from a specific scope, use:\n  tack mcp remove \"twice\" -s project\n  tack mcp remove \"twice\" -s local",
            e.paths.project_file().display(),
            claude_file.display()
        )
    );
    assert_eq!(
        mcp_remove(&e.paths, "twice", Some("project")).unwrap(),
        format!(
            "Removed MCP server \"twice\" from project config\nFile modified: {}",
            e.paths.project_file().display()
        )
    );
    assert_eq!(
        mcp_remove(&e.paths, "once", None).unwrap(),
        format!(
            "Removed MCP server \"once\" from user config\nFile modified: {}",
            claude_file.display()
        )
    );
    assert_eq!(
        mcp_remove(&e.paths, "once", Some("user"))
            .unwrap_err()
            .to_string(),
        "No user-scoped MCP server found with name: once"
    );
    assert_eq!(
        mcp_remove(&e.paths, "ghost", None).unwrap_err().to_string(),
        "No MCP server found with name: \"ghost\""
    );
    assert_eq!(read(&e.paths.project_file()), json!({"mcpServers": {}}));
}

#[tokio::test]
async fn list_and_get_check_servers_live() {
    let e = env();
    mcp_add(
        &e.paths,
        &AddArgs {
            name: "good".into(),
            command_or_url: FIXTURE.into(),
            env: vec!["GREETING=hi".into()],
            ..AddArgs::default()
        },
    )
    .unwrap();
    mcp_add(
        &e.paths,
        &AddArgs {
            name: "bad".into(),
            command_or_url: FIXTURE.into(),
            args: vec!["--exit-at-start".into()],
            scope: Some("user".into()),
            ..AddArgs::default()
        },
    )
    .unwrap();
    mcp_add_json(
        &e.paths,
        "shared",
        r#"{"command": "shared-server"}"#,
        Some("project"),
    )
    .unwrap();
    let approvals = ProjectApprovals::default();
    let listed = mcp_list(&e.paths, check(&e, &approvals, &no_env))
        .await
        .unwrap();
    assert_eq!(
        listed,
        format!(
            "Checking MCP server health...\n\nbad: {FIXTURE} --exit-at-start - ✗ Failed to connect\ngood: {FIXTURE} - ✓ Connected\nshared: shared-server - ⚠ Not approved (see enabledMcpjsonServers)"
        )
    );
    let got = mcp_get(&e.paths, "good", check(&e, &approvals, &no_env))
        .await
        .unwrap();
    assert_eq!(
        got,
        format!(
            "good:\n  Scope: Local config (private to you in this project)\n  Status: ✓ Connected\n  Type: stdio\n  Command: {FIXTURE}\n  Args: \n  Environment:\n    GREETING=hi\n\nTo remove this server, run: tack mcp remove \"good\" -s local"
        )
    );
    assert_eq!(
        mcp_get(&e.paths, "nope", check(&e, &approvals, &no_env))
            .await
            .unwrap_err()
            .to_string(),
        "No MCP server found with name: nope"
    );
    let empty = env();
    assert_eq!(
        mcp_list(&empty.paths, check(&empty, &approvals, &no_env))
            .await
            .unwrap(),
        "No MCP servers configured. Use `tack mcp add` to add a server."
    );
}

#[test]
fn add_and_remove_edit_claude_codes_file_under_a_lock_and_keep_its_other_keys() {
    let e = env();
    let claude_file = e.paths.claude_file.clone().unwrap();
    let project = e.paths.project_dir.to_string_lossy().to_string();
    let state = json!({
        "numStartups": 41,
        "oauthAccount": {"emailAddress": "a@b.c"},
        "projects": {project.clone(): {"allowedTools": ["Read"], "hasTrustDialogAccepted": true},
                     "/elsewhere": {"mcpServers": {"other": {"command": "o"}}}}
    });
    std::fs::create_dir_all(claude_file.parent().unwrap()).unwrap();
    std::fs::write(&claude_file, state.to_string()).unwrap();
    // Another process holding the folder's lock holds the edit back.
    let folder = claude_file.parent().unwrap().to_path_buf();
    let held = tack_sys::file_lock::lock_exclusive(&folder).unwrap();
    let paths = e.paths.clone();
    let adder = std::thread::spawn(move || {
        mcp_add_json(&paths, "fs", r#"{"command": "mcp-fs"}"#, None).unwrap();
        mcp_add_json(
            &paths,
            "web",
            r#"{"type": "http", "url": "http://x/mcp"}"#,
            Some("user"),
        )
        .unwrap();
    });
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(read(&claude_file), state, "written while the lock was held");
    drop(held);
    adder.join().unwrap();
    let fs = json!({"type": "stdio", "command": "mcp-fs", "args": [], "env": {}});
    assert_eq!(
        read(&claude_file),
        json!({
            "numStartups": 41,
            "oauthAccount": {"emailAddress": "a@b.c"},
            "mcpServers": {"web": {"type": "http", "url": "http://x/mcp", "headers": {}}},
            "projects": {project.clone(): {"allowedTools": ["Read"], "hasTrustDialogAccepted": true,
                                           "mcpServers": {"fs": fs}},
                         "/elsewhere": {"mcpServers": {"other": {"command": "o"}}}}
        })
    );
    mcp_remove(&e.paths, "fs", None).unwrap();
    mcp_remove(&e.paths, "web", None).unwrap();
    let mut expected = state;
    expected["mcpServers"] = json!({});
    expected["projects"][&project]["mcpServers"] = json!({});
    assert_eq!(read(&claude_file), expected);
}

#[test]
fn servers_an_older_tack_wrote_to_its_own_file_are_read_and_removed_from_it() {
    let e = env();
    let tack_file = e.paths.tack_file.clone().unwrap();
    let claude_file = e.paths.claude_file.clone().unwrap();
    std::fs::create_dir_all(tack_file.parent().unwrap()).unwrap();
    std::fs::write(
        &tack_file,
        r#"{"mcpServers": {"old": {"command": "old"}, "both": {"command": "t"}}}"#,
    )
    .unwrap();
    std::fs::write(
        &claude_file,
        r#"{"mcpServers": {"both": {"command": "c"}}}"#,
    )
    .unwrap();
    let (entries, _) = tack_mcp::load_all_scopes(&e.paths).unwrap();
    let names: Vec<(&str, String)> = entries
        .iter()
        .map(|e| (e.name.as_str(), e.origin.clone()))
        .collect();
    let (c, t) = (
        claude_file.display().to_string(),
        tack_file.display().to_string(),
    );
    assert_eq!(
        names,
        [("both", c.clone()), ("old", t.clone()), ("both", t.clone())]
    );
    assert_eq!(
        mcp_add_json(&e.paths, "old", r#"{"command": "new"}"#, Some("user"))
            .unwrap_err()
            .to_string(),
        "MCP server old already exists in user config"
    );
    assert_eq!(
        mcp_remove(&e.paths, "both", None).unwrap(),
        format!(
            "Removed MCP server \"both\" from user config\nFile modified: {c}\nFile modified: {t}"
        )
    );
    assert_eq!(
        mcp_remove(&e.paths, "old", Some("user")).unwrap(),
        format!("Removed MCP server \"old\" from user config\nFile modified: {t}")
    );
    assert_eq!(
        (read(&claude_file), read(&tack_file)),
        (json!({"mcpServers": {}}), json!({"mcpServers": {}}))
    );
}
