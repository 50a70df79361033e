//! Plugins end to end (`--plugin-dir`): a plugin built here with every
//! component kind, seen by the model through the real binary: a command
//! whose `` !`git …` `` lines ran (and one not allowed, which did not), a
//! SessionStart hook's `additionalContext` (with `${CLAUDE_PLUGIN_ROOT}`), a
//! `plugin:agent` run through the Agent tool, a `plugin:skill` listed and
//! loaded, a plugin MCP server's tool called; `system/init` and `initialize`
//! list them, the terminal UI runs a plugin command as `-p` does, and a broken
//! plugin is a warning. Also for every custom command:
//! a deny rule or an untrusted project keeps a `!` line from running, and an
//! `@file` in a body is attached as a typed mention is.

use std::path::{Path, PathBuf};

use crate::common;
use crate::mcp::fixture;

use common::{Env, STREAM_JSON, git, last_texts, lines, stderr, stdout, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

const COMMIT: &str = "---
description: Commit the changes
argument-hint: <message>
allowed-tools: Bash(echo:*)
---
Status: !`git status --short`
Branch: !`git branch --show-current`
Refused: !`touch made-by-command`
Said: !`echo allowed by allowed-tools`
Commit: $ARGUMENTS
";

/// The `kit` plugin under the home folder (outside the project's git
/// repository), with every component; `mcp`: the MCP fixture to link in.
fn kit(env: &Env, mcp: Option<&Path>) -> PathBuf {
    let root = env.home.path().join("plugins/kit");
    write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit", "version": "1.2.0", "description": "Everything"}"#,
    );
    write(root.join("commands/commit.md"), COMMIT);
    write(
        root.join("agents/code-explorer.md"),
        "---\nname: code-explorer\ndescription: Explores the code\ntools: Read\n---\nYou are EXPLORER-PROMPT.\n",
    );
    write(
        root.join("skills/review/SKILL.md"),
        "---\ndescription: Reviews code\n---\nREVIEW-BODY at ${CLAUDE_SKILL_DIR}\n",
    );
    write(
        root.join("hooks/start.sh"),
        r#"printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Explain as you go. root=%s data=%s"}}' "$CLAUDE_PLUGIN_ROOT" "$CLAUDE_PLUGIN_DATA""#,
    );
    write(
        root.join("hooks/hooks.json"),
        r#"{"description": "start", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/hooks/start.sh"}]}]}}"#,
    );
    if let Some(fixture) = mcp {
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::os::unix::fs::symlink(fixture, root.join("bin/fix")).unwrap();
        write(
            root.join(".mcp.json"),
            r#"{"mcpServers": {"fix": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/fix", "args": ["--name", "fix"]}}}"#,
        );
    }
    root
}

/// A plugin whose manifest is not one.
fn broken(env: &Env) -> PathBuf {
    let root = env.home.path().join("plugins/broken");
    write(root.join(".claude-plugin/plugin.json"), r#"{"name": 5}"#);
    root
}

/// The project: a git repository on branch `trunk` with one untracked file.
fn repo(env: &Env) {
    git(&env.cwd(), &["init", "-q", "-b", "trunk"]);
    write(env.cwd().join("new.txt"), "x\n");
}

/// Marketplace `m` in `market`, its plugin `kit` 1.0.0 with the command
/// `hello` (`body`).
pub(crate) fn market_m(market: &Path, body: &str) {
    write(
        market.join(".claude-plugin/marketplace.json"),
        &json!({"name": "m", "owner": {"name": "t"},
                "plugins": [{"name": "kit", "source": "./kit"}]})
        .to_string(),
    );
    write(
        market.join("kit/.claude-plugin/plugin.json"),
        r#"{"name": "kit", "version": "1.0.0"}"#,
    );
    write(market.join("kit/commands/hello.md"), body);
}

/// A command's expanded body in a request: the block after its tags.
fn command_body(body: &Value) -> String {
    let texts = last_texts(body);
    let tags = texts
        .iter()
        .position(|t| t.starts_with("<command-message>"))
        .unwrap();
    texts[tags + 1].clone()
}

/// The first tool_result of a request's last message, as text.
fn result_text(body: &Value) -> String {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    let content = &last["content"][0]["content"];
    match content {
        Value::String(s) => s.clone(),
        other => other
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect(),
    }
}

fn expanded_commit(refusal: &str) -> String {
    format!(
        "Status: ?? new.txt\nBranch: trunk\nRefused: [`touch made-by-command` was not run: {refusal}]\nSaid: allowed by allowed-tools\nCommit: fix typo\n"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn every_component_reaches_the_model_in_print_mode() {
    let Some(fixture) = fixture() else {
        println!("skipped: tack-mcp-fixture is not built (run the whole workspace's tests)");
        return;
    };
    let env = Env::new(Script::new([
        Reply::tool_use(
            "a1",
            "Agent",
            json!({"description": "explore", "prompt": "Look around", "subagent_type": "kit:code-explorer"}),
        ),
        Reply::text("explored"),
        Reply::tool_use("s1", "Skill", json!({"skill": "kit:review"})),
        Reply::tool_use("m1", "mcp__plugin_kit_fix__echo", json!({"text": "hi plugin"})),
        Reply::text("committed"),
    ]))
    .await;
    repo(&env);
    let root = kit(&env, Some(&fixture));
    let broken = broken(&env);
    let out = env
        .tack()
        .args(["-p", "/kit:commit fix typo"])
        .arg("--plugin-dir")
        .arg(&root)
        .arg("--plugin-dir")
        .arg(&broken)
        .args(["--allowedTools", "mcp__plugin_kit_fix"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "committed\n");
    let err = stderr(&out);
    let manifest = broken.join(".claude-plugin/plugin.json");
    assert!(
        err.contains(&format!(
            "warning: plugin inline[1]: {}: invalid manifest",
            manifest.display()
        )),
        "{err}"
    );
    assert!(!env.cwd().join("made-by-command").exists());

    let bodies = env.request_bodies();
    assert_eq!(bodies.len(), 5);
    let root_s = root.display().to_string();
    let data = env.claude_dir().join("plugins/data/kit-inline");
    let prompt = last_texts(&bodies[0]);
    assert_eq!(
        prompt[1..],
        [
            "<command-message>kit:commit</command-message>\n<command-name>/kit:commit</command-name>\n<command-args>fix typo</command-args>".to_owned(),
            expanded_commit("Bash: `touch made-by-command` is not allowed by any rule; a command's `allowed-tools` or a permission rule must allow it"),
            "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- kit:review: Reviews code\n</system-reminder>".to_owned(),
            format!("<system-reminder>\nExplain as you go. root={root_s} data={}\n</system-reminder>", data.display()),
        ]
    );
    // The sub-agent ran with the plugin agent's prompt.
    assert!(
        bodies[1]["system"].to_string().contains("EXPLORER-PROMPT"),
        "{}",
        bodies[1]["system"]
    );
    assert!(result_text(&bodies[2]).contains("explored"));
    let skill = root.join("skills/review").display().to_string();
    assert_eq!(
        result_text(&bodies[3]),
        format!("Base directory for this skill: {skill}\n\nREVIEW-BODY at {skill}\n")
    );
    assert!(
        result_text(&bodies[4]).contains("hi plugin"),
        "{}",
        result_text(&bodies[4])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_json_lists_plugins_and_runs_a_command_by_its_plain_name() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    repo(&env);
    let root = kit(&env, None);
    let broken = broken(&env);
    let input = [
        json!({"type": "control_request", "request_id": "init",
            "request": {"subtype": "initialize"}}),
        json!({"type": "user", "session_id": "", "parent_tool_use_id": null,
            "message": {"role": "user", "content": "/commit fix typo"}}),
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    let out = env
        .tack()
        .args(STREAM_JSON)
        .arg("--plugin-dir")
        .arg(&root)
        .arg("--plugin-dir")
        .arg(&broken)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let records = lines(&out.stdout);
    let init = records.iter().find(|r| r["subtype"] == "init").unwrap();
    let manifest = broken.join(".claude-plugin/plugin.json");
    assert_eq!(
        (
            &init["plugins"],
            &init["plugin_errors"],
            &init["skills"],
            &init["slash_commands"]
        ),
        (
            &json!([{"name": "kit", "path": root, "source": "kit@inline", "version": "1.2.0"}]),
            &json!([{"plugin": "inline[1]", "type": "manifest-validation-error", "path": broken,
                "message": format!("{}: invalid manifest: invalid type: integer `5`, expected a string", manifest.display())}]),
            &json!(["kit:review"]),
            &json!(["clear", "compact", "init", "kit:commit", "kit:review"]),
        )
    );
    let agents = init["agents"].as_array().unwrap();
    assert!(agents.contains(&json!("kit:code-explorer")), "{agents:?}");
    let answer = records
        .iter()
        .find(|r| r["type"] == "control_response")
        .unwrap();
    assert_eq!(
        answer["response"]["response"]["commands"]
            .as_array()
            .unwrap()[3],
        json!({"name": "kit:commit", "argumentHint": "<message>", "description": "Commit the changes"})
    );
    assert_eq!(
        command_body(&env.request_bodies()[0]),
        expanded_commit(
            "Bash: `touch made-by-command` is not allowed by any rule; a command's `allowed-tools` or a permission rule must allow it"
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deny_rule_keeps_a_command_line_from_running() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    repo(&env);
    let root = kit(&env, None);
    let out = env
        .tack()
        .args([
            "-p",
            "/kit:commit x",
            "--disallowedTools",
            "Bash(git status:*)",
        ])
        .arg("--plugin-dir")
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let body = &command_body(&env.request_bodies()[0]);
    assert!(
        body.starts_with("Status: [`git status --short` was not run: ")
            && body.contains("Bash(git status:*)")
            && body.contains("\nBranch: trunk\n"),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_projects_command_runs_none_of_its_lines() {
    let env = Env::new(Script::new([Reply::text("a"), Reply::text("b")])).await;
    write(
        env.cwd().join(".claude/commands/hello.md"),
        "Said: !`echo from the project`\n",
    );
    let run = || {
        let out = env.tack().args(["-p", "/hello"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    run();
    env.trust();
    run();
    let bodies = env.request_bodies();
    assert_eq!(
        [command_body(&bodies[0]), command_body(&bodies[1])],
        [
            "Said: [`echo from the project` was not run: the project is not trusted, so its commands run nothing (tack trust)]\n".to_owned(),
            "Said: from the project\n".to_owned(),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plugin_dir_no_mcp_leaves_the_servers_out() {
    let env = Env::new(Script::new([Reply::text("a"), Reply::text("b")])).await;
    let root = kit(&env, None);
    write(
        root.join(".mcp.json"),
        r#"{"mcpServers": {"fix": {"command": "${CLAUDE_PLUGIN_ROOT}/missing"}}}"#,
    );
    let init = |flag: &str| {
        let out = env
            .tack()
            .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
            .arg(flag)
            .arg(&root)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let records = lines(&out.stdout);
        let init = records.iter().find(|r| r["subtype"] == "init").unwrap();
        (init["mcp_servers"].clone(), init["slash_commands"].clone())
    };
    let commands = json!(["clear", "compact", "init", "kit:commit", "kit:review"]);
    assert_eq!(
        init("--plugin-dir"),
        (
            json!([{"name": "plugin:kit:fix", "status": "failed"}]),
            commands.clone()
        )
    );
    assert_eq!(init("--plugin-dir-no-mcp"), (json!([]), commands));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_commands_file_mention_is_attached_under_the_rules() {
    let env = Env::new(Script::new([Reply::text("a")])).await;
    let root = kit(&env, None);
    write(
        root.join("commands/notes.md"),
        "Summarise @notes.md please.\n",
    );
    write(env.cwd().join("notes.md"), "NOTES-CONTENT\n");
    let out = env
        .tack()
        .args(["-p", "/kit:notes"])
        .arg("--plugin-dir")
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let sent = env.request_bodies()[0]["messages"].to_string();
    assert!(sent.contains("NOTES-CONTENT"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_terminal_ui_runs_a_plugin_command_with_its_hook_context() {
    let env = Env::new(Script::new([Reply::text("Committed from the UI.")])).await;
    repo(&env);
    env.trust();
    let root = kit(&env, None);
    let mut cmd = tack_tui::testing::CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
    cmd.env_clear();
    for (key, value) in env.vars() {
        cmd.env(key, value);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(env.cwd());
    cmd.arg("--plugin-dir");
    cmd.arg(&root);
    let mut pty = tack_tui::testing::PtySession::spawn(cmd, 100, 30).unwrap();
    let wait = std::time::Duration::from_secs(30);
    pty.wait_for_text("? for shortcuts", wait).unwrap();
    pty.send(b"/kit:commit fix typo").unwrap();
    pty.wait_for_text("> /kit:commit fix typo", wait).unwrap();
    pty.send(tack_tui::testing::keys::ENTER).unwrap();
    crate::interactive::turn_over(&mut pty, "Committed from the UI.");
    let body = &env.request_bodies()[0];
    assert_eq!(
        command_body(body),
        expanded_commit(
            "Bash: `touch made-by-command` is not allowed by any rule; a command's `allowed-tools` or a permission rule must allow it"
        )
    );
    let data = env.claude_dir().join("plugins/data/kit-inline");
    let context = format!(
        "<system-reminder>\nExplain as you go. root={} data={}\n</system-reminder>",
        root.display(),
        data.display()
    );
    assert!(last_texts(body).contains(&context), "{body}");
}

/// A plugin installed as a user installs it (`tack plugin marketplace add`,
/// `tack plugin install`) loads in the next session: its command expands and
/// its output style can be picked; disabled, it is gone.
#[tokio::test(flavor = "multi_thread")]
async fn an_installed_plugin_loads_in_the_next_session_and_a_disabled_one_does_not() {
    let env = Env::new(Script::new([Reply::text("hello"), Reply::text("again")])).await;
    let market = tempfile::tempdir().unwrap();
    let market = market.path();
    market_m(market, "Say HELLO-FROM-KIT to $ARGUMENTS.\n");
    write(
        market.join("kit/output-styles/terse.md"),
        "---\nname: Terse\n---\nOne line.\n",
    );
    let run = |args: &[&str]| {
        let out = env.tack().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    run(&["plugin", "marketplace", "add", market.to_str().unwrap()]);
    run(&["plugin", "install", "kit@m"]);
    write(
        env.claude_dir().join("settings.json"),
        &json!({"enabledPlugins": {"kit@m": true}, "outputStyle": "kit:Terse"}).to_string(),
    );

    assert_eq!(run(&["-p", "/kit:hello world"]), "hello\n");
    let body = &env.request_bodies()[0];
    assert_eq!(command_body(body), "Say HELLO-FROM-KIT to world.\n");
    let system = body["system"].to_string();
    assert!(
        system.contains("# Output Style: kit:Terse\\nOne line."),
        "{system}"
    );

    run(&["plugin", "disable", "kit@m"]);
    let out = env
        .tack()
        .args(["-p", "/kit:hello world"])
        .output()
        .unwrap();
    assert_eq!(env.request_bodies().len(), 1, "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_skill_runs_by_its_plain_name_while_no_other_has_that_name() {
    let env = Env::new(Script::new([Reply::text("ok"), Reply::text("ok")])).await;
    let root = kit(&env, None);
    let run = |extra: &[&Path]| {
        let mut cmd = env.tack();
        cmd.args(["-p", "/review now", "--plugin-dir"]).arg(&root);
        for dir in extra {
            cmd.arg("--plugin-dir").arg(dir);
        }
        cmd.output().unwrap()
    };
    let out = run(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let texts = last_texts(&env.request_bodies()[0]);
    assert_eq!(
        texts[1..3],
        [
            "<command-message>kit:review</command-message>\n<command-name>/kit:review</command-name>\n<command-args>now</command-args>".to_owned(),
            format!(
                "REVIEW-BODY at {}\n\nARGUMENTS: now",
                root.join("skills/review").display()
            ),
        ]
    );

    // A second plugin with a `review` skill: `/review` names neither.
    let other = env.home.path().join("plugins/other");
    write(
        other.join(".claude-plugin/plugin.json"),
        r#"{"name": "other"}"#,
    );
    write(
        other.join("skills/review/SKILL.md"),
        "---\ndescription: Reviews too\n---\nOTHER-REVIEW\n",
    );
    let out = run(&[&other]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "Error: Unknown slash command: review\n");
    assert_eq!(env.request_bodies().len(), 1);

    // The user's own `review` skill is `/review`.
    write(
        env.home.path().join(".claude/skills/review/SKILL.md"),
        "---\ndescription: Mine\n---\nMY-REVIEW\n",
    );
    let out = run(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        command_body(&env.request_bodies()[1]),
        "MY-REVIEW\n\nARGUMENTS: now"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_projects_plugins_and_marketplaces_wait_for_trust() {
    let env = Env::new(Script::new([Reply::text("hello")])).await;
    let market = tempfile::tempdir().unwrap();
    let market = market.path();
    market_m(market, "Say HELLO to $ARGUMENTS.\n");
    for args in [
        vec!["plugin", "marketplace", "add", market.to_str().unwrap()],
        vec!["plugin", "install", "kit@m", "--scope", "project"],
    ] {
        let out = env.tack().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let settings = env.cwd().join(".claude/settings.json");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(value["enabledPlugins"], json!({"kit@m": true}));
    value["extraKnownMarketplaces"] =
        json!({"team": {"source": {"source": "directory", "path": "/nowhere/team"}}});
    write(&settings, &value.to_string());

    let out = env
        .tack()
        .args(["-p", "/kit:hello world"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let file = settings.display();
    assert_eq!(
        stderr(&out),
        format!(
            "warning: {file} names marketplace team but this folder is not trusted: ignored (trust it with `tack trust`)\n\
             warning: plugin kit@m is enabled by {file} but this folder is not trusted: not loaded (trust it with `tack trust`)\n\
             Error: Unknown slash command: kit:hello\n"
        )
    );
    assert_eq!(env.request_bodies().len(), 0);

    env.trust();
    let out = env
        .tack()
        .args(["-p", "/kit:hello world"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "warning: marketplace team (Directory (/nowhere/team)) is named in the settings but not added: `tack plugin install <plugin>@team` adds it\n"
    );
    assert_eq!(
        command_body(&env.request_bodies()[0]),
        "Say HELLO to world.\n"
    );
}
