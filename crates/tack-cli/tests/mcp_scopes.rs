//! `tack mcp add | list | remove` through the real binary keep servers where
//! `claude mcp` does: user scope in `~/.claude.json`'s `mcpServers`, local
//! scope (the default) in its `projects["<project>"].mcpServers`, project
//! scope in `.mcp.json`; `CLAUDE_CONFIG_DIR` moves `.claude.json` as it moves
//! Claude Code's. Every other key of that file is kept.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::Script;

use crate::common::{Env, stderr, stdout, write};

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_mcp_add_writes_each_scope_where_claude_code_keeps_it() {
    let env = Env::new(Script::new([])).await;
    let claude_json = env.home.path().join(".claude.json");
    let project = env.cwd().display().to_string();
    let state = json!({
        "numStartups": 7,
        "userID": "u-1",
        "projects": {project.clone(): {"hasTrustDialogAccepted": true, "lastCost": 0.5}}
    });
    write(&claude_json, &state.to_string());
    let run = |args: &[&str]| {
        let out = env.tack().arg("mcp").args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    assert_eq!(
        run(&["add", "notes", "--", "notes-server", "--fast"]),
        format!(
            "Added stdio MCP server notes with command: notes-server --fast to local config\nFile modified: {}\n",
            claude_json.display()
        )
    );
    run(&[
        "add",
        "-s",
        "user",
        "-t",
        "http",
        "search",
        "http://127.0.0.1:9/mcp",
    ]);
    run(&["add", "-s", "project", "files", "files-server"]);
    assert_eq!(
        read(&claude_json),
        json!({
            "numStartups": 7,
            "userID": "u-1",
            "mcpServers": {"search": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {}}},
            "projects": {project.clone(): {
                "hasTrustDialogAccepted": true,
                "lastCost": 0.5,
                "mcpServers": {"notes": {"type": "stdio", "command": "notes-server", "args": ["--fast"], "env": {}}}
            }}
        })
    );
    assert_eq!(
        read(&env.cwd().join(".mcp.json")),
        json!({"mcpServers": {"files": {"type": "stdio", "command": "files-server", "args": [], "env": {}}}})
    );
    assert!(!env.config_dir().join("mcp.json").exists());

    run(&["remove", "notes"]);
    run(&["remove", "search"]);
    let mut expected = state;
    expected["mcpServers"] = json!({});
    expected["projects"][&project]["mcpServers"] = json!({});
    assert_eq!(read(&claude_json), expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn tack_mcp_list_shows_servers_claude_code_wrote_and_claude_config_dir_moves_the_file() {
    let env = Env::new(Script::new([])).await;
    let elsewhere = env.home.path().join("claude-config");
    let claude_json = elsewhere.join(".claude.json");
    let project = env.cwd().display().to_string();
    // As `claude mcp add -s user` and `claude mcp add` (local) leave it.
    write(
        &claude_json,
        &json!({
            "mcpServers": {"from-claude": {"type": "http", "url": "http://127.0.0.1:9/mcp"}},
            "projects": {project: {"mcpServers": {"local-one": {"type": "stdio", "command": "/nonexistent/local-one", "args": [], "env": {}}}}}
        })
        .to_string(),
    );
    // An older tack's own file is still read.
    write(
        env.config_dir().join("mcp.json"),
        r#"{"mcpServers": {"old-tack": {"command": "/nonexistent/old"}}}"#,
    );
    let tack = |args: &[&str]| {
        let out = env
            .tack()
            .env("CLAUDE_CONFIG_DIR", &elsewhere)
            .arg("mcp")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let listed = tack(&["list"]);
    let mut lines: Vec<&str> = listed.lines().skip(2).collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "from-claude: http://127.0.0.1:9/mcp (HTTP) - ✗ Failed to connect",
            "local-one: /nonexistent/local-one - ✗ Failed to connect",
            "old-tack: /nonexistent/old - ✗ Failed to connect",
        ]
    );
    tack(&["add", "-s", "user", "mine", "mine-server"]);
    assert_eq!(
        read(&claude_json)["mcpServers"]["mine"],
        json!({"type": "stdio", "command": "mine-server", "args": [], "env": {}})
    );
    assert!(!env.home.path().join(".claude.json").exists());
}
