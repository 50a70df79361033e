//! Configuration as Claude Code reads it: scopes, precedence, approvals,
//! `--mcp-config`, `--strict-mcp-config`, and errors naming file and problem.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_mcp::{
    ConfigIssue, ConfigScope, IssueKind, LoadOptions, McpConfig, McpPaths, NotStarted,
    NotStartedReason, ProjectApprovals, ServerConfig, ServerEntry, StdioConfig, load_config,
};
use tempfile::TempDir;

struct Dirs {
    _tmp: TempDir,
    paths: McpPaths,
}

fn dirs() -> Dirs {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let paths = McpPaths::new(
        &project,
        &project,
        Some(&home),
        Some(&home.join(".tack")),
        Some(&home.join(".claude")),
    );
    Dirs { _tmp: tmp, paths }
}

fn write(path: &Path, value: &serde_json::Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

fn cmd(c: &str) -> ServerConfig {
    ServerConfig::Stdio(StdioConfig {
        command: c.into(),
        args: vec![],
        env: Default::default(),
    })
}

fn load(
    paths: &McpPaths,
    mcp_config: &[String],
    strict: bool,
    approvals: &ProjectApprovals,
) -> McpConfig {
    load_config(
        paths,
        LoadOptions {
            mcp_config,
            strict,
            approvals,
        },
    )
    .unwrap()
}

fn summary(config: &McpConfig) -> Vec<(String, ConfigScope, String)> {
    config
        .servers
        .iter()
        .map(|e| (e.name.clone(), e.scope, e.config.summary()))
        .collect()
}

#[test]
fn paths_follow_claude_code_and_tack_dirs() {
    let d = dirs();
    let home = d.paths.project_dir.parent().unwrap().join("home");
    assert_eq!(d.paths.tack_file, Some(home.join(".tack/mcp.json")));
    assert_eq!(d.paths.claude_file, Some(home.join(".claude.json")));
    let custom = McpPaths::new(
        Path::new("/p"),
        Path::new("/p"),
        Some(Path::new("/h")),
        None,
        Some(Path::new("/cc")),
    );
    assert_eq!(
        custom.claude_file.as_deref(),
        Some(Path::new("/cc/.claude.json"))
    );
    assert_eq!(custom.tack_file, None);
}

#[test]
fn scopes_merge_by_name_local_over_project_over_user() {
    let d = dirs();
    let project = d.paths.project_dir.to_string_lossy().to_string();
    write(
        d.paths.claude_file.as_ref().unwrap(),
        &json!({
            "numStartups": 3,
            "mcpServers": {"cc-user": {"command": "cc-user"}, "shared": {"command": "from-claude-user"}},
            "projects": {project.clone(): {"mcpServers": {"cc-local": {"command": "cc-local"}}}}
        }),
    );
    write(
        d.paths.tack_file.as_ref().unwrap(),
        &json!({
            "mcpServers": {"shared": {"command": "from-tack-user"}, "both": {"command": "user-both"}},
            "projects": {
                project.clone(): {"mcpServers": {"both": {"command": "local-both"}}},
                "/other/project": {"mcpServers": {"elsewhere": {"command": "x"}}}
            }
        }),
    );
    write(
        &d.paths.project_file(),
        &json!({"mcpServers": {
            "both": {"command": "project-both"},
            "proj": {"type": "http", "url": "https://example.com/mcp"}
        }}),
    );
    let all = ProjectApprovals {
        enable_all: true,
        ..Default::default()
    };
    let config = load(&d.paths, &[], false, &all);
    assert_eq!(
        summary(&config),
        vec![
            ("both".into(), ConfigScope::Local, "local-both".into()),
            ("cc-local".into(), ConfigScope::Local, "cc-local".into()),
            ("cc-user".into(), ConfigScope::User, "cc-user".into()),
            (
                "proj".into(),
                ConfigScope::Project,
                "https://example.com/mcp (HTTP)".into()
            ),
            ("shared".into(), ConfigScope::User, "from-tack-user".into()),
        ]
    );
    assert_eq!(config.issues, vec![]);
}

#[test]
fn project_servers_need_approval() {
    let d = dirs();
    write(
        &d.paths.project_file(),
        &json!({"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}, "c": {"command": "c"}}}),
    );
    let origin = d.paths.project_file().display().to_string();
    let none = load(&d.paths, &[], false, &ProjectApprovals::default());
    assert_eq!(none.servers, vec![]);
    assert_eq!(
        none.not_started,
        ["a", "b", "c"]
            .map(|n| NotStarted {
                name: n.into(),
                origin: origin.clone(),
                transport: "stdio",
                reason: NotStartedReason::NeedsApproval
            })
            .to_vec()
    );
    assert_eq!(
        none.not_started[0].message(),
        format!(
            "project MCP server \"a\" ({origin}) is not approved: add it to \"enabledMcpjsonServers\" or set \"enableAllProjectMcpServers\": true in your settings"
        )
    );
    let some = ProjectApprovals {
        enable_all: false,
        enabled: vec!["a".into(), "c".into()],
        disabled: vec!["c".into()],
    };
    let config = load(&d.paths, &[], false, &some);
    assert_eq!(
        summary(&config),
        vec![("a".into(), ConfigScope::Project, "a".into())]
    );
    assert_eq!(
        config
            .not_started
            .iter()
            .map(|n| (n.name.as_str(), n.reason))
            .collect::<Vec<_>>(),
        vec![
            ("b", NotStartedReason::NeedsApproval),
            ("c", NotStartedReason::Disabled)
        ]
    );
    // A user entry of the same name starts when the project one is not approved.
    write(
        d.paths.tack_file.as_ref().unwrap(),
        &json!({"mcpServers": {"b": {"command": "user-b"}}}),
    );
    let config = load(&d.paths, &[], false, &some);
    assert_eq!(
        summary(&config),
        vec![
            ("a".into(), ConfigScope::Project, "a".into()),
            ("b".into(), ConfigScope::User, "user-b".into())
        ]
    );
    assert_eq!(config.not_started.len(), 1);
}

#[test]
fn approvals_come_from_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path();
    write(
        &project.join(".claude/settings.json"),
        &json!({"enableAllProjectMcpServers": false, "enabledMcpjsonServers": ["x"], "disabledMcpjsonServers": ["y"]}),
    );
    let locations = tack_config::Locations {
        cwd: project.to_path_buf(),
        project_dir: project.to_path_buf(),
        home_dir: None,
        claude_user_dir: None,
        tack_user_dir: None,
        workspace_trusted: true,
        setting_sources: None,
    };
    let settings = tack_config::Settings::load(&locations, None).unwrap();
    assert_eq!(
        ProjectApprovals::from_settings(&settings),
        ProjectApprovals {
            enable_all: false,
            enabled: vec!["x".into()],
            disabled: vec!["y".into()]
        }
    );
}

#[test]
fn mcp_config_files_and_json_strings_and_strict() {
    let d = dirs();
    write(
        d.paths.tack_file.as_ref().unwrap(),
        &json!({"mcpServers": {"user": {"command": "u"}, "dup": {"command": "user-dup"}}}),
    );
    write(
        &d.paths.project_dir.join("extra.json"),
        &json!({"mcpServers": {"file": {"type": "sse", "url": "http://h/sse", "headers": {"X": "1"}}}}),
    );
    let args = vec![
        "extra.json".to_string(),
        r#"{"mcpServers": {"inline": {"command": "i", "args": ["--x"], "timeout": 1500}, "dup": {"command": "flag-dup", "timeout": 999}}}"#.to_string(),
    ];
    let config = load(&d.paths, &args, false, &ProjectApprovals::default());
    assert_eq!(
        summary(&config),
        vec![
            ("dup".into(), ConfigScope::Dynamic, "flag-dup".into()),
            (
                "file".into(),
                ConfigScope::Dynamic,
                "http://h/sse (SSE)".into()
            ),
            ("inline".into(), ConfigScope::Dynamic, "i --x".into()),
            ("user".into(), ConfigScope::User, "u".into()),
        ]
    );
    assert_eq!(
        config.servers[1].origin,
        d.paths.project_dir.join("extra.json").display().to_string()
    );
    assert_eq!(config.servers[2].origin, "--mcp-config argument 2");
    let strict = load(&d.paths, &args[1..], true, &ProjectApprovals::default());
    assert_eq!(
        strict.servers,
        vec![
            ServerEntry {
                name: "dup".into(),
                scope: ConfigScope::Dynamic,
                origin: "--mcp-config argument 1".into(),
                config: cmd("flag-dup"),
                tool_timeout: None,
            },
            ServerEntry {
                name: "inline".into(),
                scope: ConfigScope::Dynamic,
                origin: "--mcp-config argument 1".into(),
                config: ServerConfig::Stdio(StdioConfig {
                    command: "i".into(),
                    args: vec!["--x".into()],
                    env: Default::default()
                }),
                // An entry's `timeout` from 1,000 ms (dup's 999 is ignored).
                tool_timeout: Some(std::time::Duration::from_millis(1500)),
            },
        ]
    );
}

#[test]
fn bad_files_name_the_file_and_the_problem() {
    let d = dirs();
    let err = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(ToString::to_string).collect();
        load_config(
            &d.paths,
            LoadOptions {
                mcp_config: &args,
                strict: true,
                approvals: &ProjectApprovals::default(),
            },
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        err(&["{\"mcpServers\": {"]),
        "invalid MCP config --mcp-config argument 1: EOF while parsing an object at line 1 column 16"
    );
    assert_eq!(
        err(&["{\"servers\": {}}"]),
        "invalid MCP config --mcp-config argument 1: missing `mcpServers`"
    );
    assert_eq!(
        err(&["{\"mcpServers\": []}"]),
        "invalid MCP config --mcp-config argument 1: `mcpServers` must be an object, found an array"
    );
    let missing = d.paths.project_dir.join("nope.json");
    assert_eq!(
        err(&["nope.json"]),
        format!(
            "cannot read MCP config {}: No such file or directory (os error 2)",
            missing.display()
        )
    );
    // The repository's `.mcp.json` is skipped with a warning, not fatal.
    std::fs::write(d.paths.project_file(), "{\"mcpServers\": {\"a\": }").unwrap();
    let config = load_config(
        &d.paths,
        LoadOptions {
            mcp_config: &[],
            strict: false,
            approvals: &ProjectApprovals::default(),
        },
    )
    .unwrap();
    assert_eq!(
        config.warnings,
        [format!(
            "invalid MCP config {}: expected value at line 1 column 22; its MCP servers are skipped",
            d.paths.project_file().display()
        )]
    );
}

#[test]
fn bad_entries_are_reported_and_skipped() {
    let d = dirs();
    let args = vec![
        json!({"mcpServers": {
            "ok": {"command": "fine"},
            "remote": {"url": "https://x/mcp"},
            "ws": {"type": "ws", "url": "wss://x"},
            "nocmd": {"args": ["x"]},
        }})
        .to_string(),
    ];
    let config = load(&d.paths, &args, true, &ProjectApprovals::default());
    assert_eq!(
        summary(&config),
        vec![("ok".into(), ConfigScope::Dynamic, "fine".into())]
    );
    let issue = |server: &str, kind, message: &str| ConfigIssue {
        server: server.into(),
        origin: "--mcp-config argument 1".into(),
        kind,
        message: message.into(),
    };
    assert_eq!(
        config.issues,
        vec![
            issue(
                "remote",
                IssueKind::UrlMissingType,
                "has a `url` but no `type`: add \"type\": \"http\" (or \"sse\")"
            ),
            issue(
                "ws",
                IssueKind::UnknownType,
                "unknown transport type `ws`: tack supports \"stdio\", \"http\", \"sse\" and \"sdk\""
            ),
            issue("nocmd", IssueKind::InvalidConfig, "missing `command`"),
        ]
    );
    assert_eq!(
        config.issues[2].to_string(),
        "--mcp-config argument 1: MCP server \"nocmd\": missing `command`"
    );
}

#[test]
fn a_broken_claude_code_file_is_a_warning_not_an_error() {
    let d = dirs();
    std::fs::write(d.paths.claude_file.as_ref().unwrap(), "{not json").unwrap();
    write(
        d.paths.tack_file.as_ref().unwrap(),
        &json!({"mcpServers": {"t": {"command": "t"}}}),
    );
    let config = load(&d.paths, &[], false, &ProjectApprovals::default());
    assert_eq!(
        summary(&config),
        vec![("t".into(), ConfigScope::User, "t".into())]
    );
    assert_eq!(
        config.warnings,
        vec![format!(
            "ignoring MCP servers of Claude Code's config: invalid MCP config {}: key must be a string at line 1 column 2",
            d.paths.claude_file.as_ref().unwrap().display()
        )]
    );
}
