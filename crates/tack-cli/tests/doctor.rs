//! `tack doctor` end to end: what it reports about a folder.

use crate::common;

use common::Env;
use common::write;
use pretty_assertions::assert_eq;
use tack_testkit::Script;

#[tokio::test(flavor = "multi_thread")]
async fn doctor_reports_settings_trust_credentials_and_hooks_and_runs_nothing() {
    let env = Env::new(Script::new([])).await;
    let cwd = env.cwd();
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    let marker = cwd.join("hook-ran");
    write(
        cwd.join(".claude/settings.json"),
        &format!(
            r#"{{"permissions": {{"allow": ["Bash(*)"], "deny": ["Read(.env)"]}},
                "hooks": {{"SessionStart": [{{"hooks": [{{"type": "command", "command": "touch {}"}}]}}]}}}}"#,
            marker.display()
        ),
    );
    let out = env.tack().arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}");
    let project = cwd.display().to_string();
    let config = env.config_dir().display().to_string();
    let base = env.server.base_url();
    let expected = format!(
        "tack {version}
config dir: {config}
project: {project}
  trust: not trusted: its settings cannot allow tools, run hooks or set the environment (`tack trust` to trust it)
settings files (lowest first):
  {project}/.claude/settings.json (projectSettings)
  warning: Ignoring 1 permissions.allow entry, 1 hooks entry from .claude/settings.json: this workspace has not been trusted. Run `tack trust` in {project} to trust it.
credentials: ANTHROPIC_API_KEY (…)
API: {base}
model: claude-opus-5-5 (from default; 1000k context, 128k output)
  provider: anthropic (the default)
hooks: none
permissions: mode default; 0 allow, 0 ask, 1 deny rules
sessions in this folder: 0
",
        version = env!("CARGO_PKG_VERSION"),
    );
    assert!(stdout.starts_with(&expected), "{stdout}");
    assert!(
        stdout.ends_with("ok: a session can start here\n"),
        "{stdout}"
    );
    assert!(!marker.exists(), "doctor ran a hook");

    // Trusted, the hooks and rules count; a broken file is reported, exit 1.
    env.trust();
    let out = env.tack().arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(stdout.contains("  trust: trusted\n"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "hooks:\n  {project}/.claude/settings.json: SessionStart ×1\n"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("permissions: mode default; 1 allow, 0 ask, 1 deny rules"));
    // The user's own file (a broken one of the repository's is skipped).
    write(env.config_dir().join("settings.json"), "{ broken");
    let out = env.tack().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        stdout.contains("settings: ERROR invalid settings in "),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("problems above would stop a session\n"),
        "{stdout}"
    );
    assert!(!marker.exists());
}

/// The lines of `report` from `MCP servers` to the verdict.
fn mcp_section(report: &str) -> Vec<&str> {
    report
        .lines()
        .skip_while(|l| !l.starts_with("MCP servers"))
        .take_while(|l| {
            !l.starts_with("keybindings:")
                && !l.starts_with("ok: ")
                && !l.starts_with("problems above")
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_reports_mcp_servers_and_their_approval_without_starting_them() {
    let env = Env::new(Script::new([])).await;
    let cwd = env.cwd();
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    let out = env.tack().arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(mcp_section(&stdout), vec!["MCP servers: none"]);

    let marker = cwd.join("server-ran");
    write(
        cwd.join(".mcp.json"),
        &format!(
            r#"{{"mcpServers": {{
                "files": {{"command": "touch", "args": ["{}"]}},
                "search": {{"type": "http", "url": "http://127.0.0.1:9/mcp"}},
                "legacy": {{"type": "sse", "url": "http://127.0.0.1:9/sse"}},
                "broken": {{"type": "stdio"}}}}}}"#,
            marker.display()
        ),
    );
    write(
        cwd.join(".claude/settings.json"),
        r#"{"enabledMcpjsonServers": ["files"], "disabledMcpjsonServers": ["legacy"]}"#,
    );
    let user_file = env.config_dir().join("mcp.json");
    write(
        &user_file,
        &format!(
            r#"{{"mcpServers": {{"notes": {{"command": "notes-server"}}}},
                "projects": {{"{}": {{"mcpServers": {{"db": {{"type": "http", "url": "http://127.0.0.1:9/db"}}}}}}}}}}"#,
            cwd.display()
        ),
    );
    env.trust();
    let out = env.tack().arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}");
    let project_file = cwd.join(".mcp.json").display().to_string();
    let user_file = user_file.display().to_string();
    assert_eq!(
        mcp_section(&stdout),
        vec![
            "MCP servers (not started by doctor):".to_owned(),
            format!("  db: http http://127.0.0.1:9/db (local, {user_file}); needs no approval"),
            format!(
                "  files: stdio touch {} (project, {project_file}); approved",
                marker.display()
            ),
            format!("  notes: stdio notes-server (user, {user_file}); needs no approval"),
            format!(
                "  search: http (project, {project_file}); not approved (enabledMcpjsonServers or enableAllProjectMcpServers)"
            ),
            format!("  legacy: sse (project, {project_file}); disabled (disabledMcpjsonServers)"),
            format!("  error: {project_file}: MCP server \"broken\": missing `command`"),
        ]
    );
    assert!(!marker.exists(), "doctor started an MCP server");

    // A project's .mcp.json that cannot be read is skipped by a session
    // (a checkout cannot stop tack), and doctor says so.
    write(cwd.join(".mcp.json"), "{ broken");
    let out = env.tack().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let section = mcp_section(&stdout);
    let warning = section.last().copied().unwrap_or_default();
    assert!(
        warning.starts_with(&format!("  warning: invalid MCP config {project_file}: "))
            && warning.ends_with("; its MCP servers are skipped"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("ok: a session can start here\n"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_shows_the_provider_of_the_model_and_needs_no_anthropic_key_for_it() {
    let env = Env::new(Script::new([])).await;
    write(
        env.config_dir().join("settings.json"),
        r#"{"providers": {"local": {"api": "openai-chat", "baseUrl": "http://127.0.0.1:8080/v1", "apiKeyEnv": "LOCAL_KEY"}},
            "model": "local/qwen3-coder"}"#,
    );
    let out = env
        .tack()
        .env_remove("ANTHROPIC_API_KEY")
        .arg("doctor")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "model: local/qwen3-coder (from settings; not in tack's model table: limits and prices are estimates)\n  provider: local (openai-chat at http://127.0.0.1:8080/v1; no key)\n"
        ),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_names_a_malformed_openai_base_url_as_a_problem() {
    let env = Env::new(Script::new([])).await;
    let out = env
        .tack()
        .env("OPENAI_BASE_URL", "http//127.0.0.1:8080/v1")
        .arg("doctor")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "providers: OPENAI_BASE_URL: `http//127.0.0.1:8080/v1` is not a URL (relative URL without a base)\n"
        ) && stdout.ends_with("problems above would stop a session\n"),
        "{stdout}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_lists_the_keybindings_files_problems() {
    let env = Env::new(Script::new([])).await;
    let file = env.claude_dir().join("keybindings.json");
    let report = |env: &Env| {
        let out = env.tack().arg("doctor").output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        stdout
            .lines()
            .skip_while(|l| !l.starts_with("keybindings:"))
            .take_while(|l| !l.starts_with("ok: ") && !l.starts_with("problems above"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        report(&env),
        vec![format!(
            "keybindings: defaults ({} not found)",
            file.display()
        )]
    );
    write(
        file.clone(),
        r#"{"bindings": [{"context": "Chat", "bindings": {"ctrl+c": "chat:submit", "ctrl+e": "chat:externalEditor"}}]}"#,
    );
    assert_eq!(
        report(&env),
        vec![
            format!("keybindings: {}", file.display()),
            format!(
                "  warning: {}: Chat `ctrl+c`: reserved, it interrupts and cancels; not rebound",
                file.display()
            ),
        ]
    );
}
