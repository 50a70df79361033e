//! Issue 35: everything tack writes under the user's config dirs
//! (`~/.claude`, `~/.tack`, `~/.claude.json`) is the user's alone: files
//! 0600, the folders it creates 0700, whatever the umask. Driven under
//! umask 022 (the common default, which alone would give 0644 / 0755): a
//! plugin installed from a directory marketplace, the project trusted, then
//! one session with a todo, a large Bash output and a large Grep result
//! (both kept beside the transcript), a background shell, a checkpointed
//! Write and a sub-agent.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Output, Stdio};

use crate::common;

use common::Env;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_testkit::{Reply, Script};

/// `tack args` run by `sh` after `umask 022`, with the test environment.
fn tack_under_umask_022(env: &Env, args: &[&str]) -> Output {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("umask 022; exec \"$0\" \"$@\"")
        .arg(assert_cmd::cargo::cargo_bin("tack"))
        .args(args)
        .env_clear()
        .envs(env.vars())
        .env("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "1")
        .current_dir(env.cwd())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tack {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A directory marketplace with one plugin (a command).
fn marketplace(root: &Path) {
    write(
        &root.join(".claude-plugin/marketplace.json"),
        &json!({"name": "modes-market", "owner": {"name": "Tests"},
                "plugins": [{"name": "kit", "source": "./plugins/kit"}]})
        .to_string(),
    );
    write(
        &root.join("plugins/kit/.claude-plugin/plugin.json"),
        &json!({"name": "kit", "version": "1.0.0"}).to_string(),
    );
    write(
        &root.join("plugins/kit/commands/hello.md"),
        "---\ndescription: Hello\n---\nSay hello.\n",
    );
}

/// Every entry under `root` (not following symlinks): its path relative
/// to `home` with the names that change between runs replaced, and its mode.
fn entries(home: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let Ok(meta) = std::fs::symlink_metadata(root) else {
        return;
    };
    let mode = format!("{:o}", meta.permissions().mode() & 0o777);
    let kind = if meta.is_dir() { "/" } else { "" };
    let rel = root.strip_prefix(home).unwrap().to_string_lossy();
    out.push((format!("{}{kind}", normal_name(&rel)), mode));
    if meta.is_dir() {
        for entry in std::fs::read_dir(root).unwrap().flatten() {
            entries(home, &entry.path(), out);
        }
    }
}

/// Session ids, task ids, pids, hashes and the project's folder name
/// replaced by what they are.
fn normal_name(rel: &str) -> String {
    rel.split('/')
        .map(|part| {
            let (stem, ext) = match part.split_once('.') {
                Some((s, e)) if !s.is_empty() => (s, format!(".{e}")),
                _ => (part, String::new()),
            };
            let is_hex = |s: &str| s.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
            let name = if stem.len() == 36 && is_hex(stem) {
                "[session]".to_owned()
            } else if stem.starts_with("-tmp-") {
                "[project]".to_owned()
            } else if stem.len() == 9 && (stem.starts_with('a') || stem.starts_with('b')) {
                format!("[{}-task]", &stem[..1])
            } else if stem.starts_with("agent-a") {
                "agent-[a-task]".to_owned()
            } else if ext.is_empty() && stem.chars().all(|c| c.is_ascii_digit()) {
                "[pid]".to_owned()
            } else if let Some((hash, version)) = stem.split_once('@') {
                format!("[{}-hex]@{version}", hash.len())
            } else {
                stem.to_owned()
            };
            format!("{name}{ext}")
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test(flavor = "multi_thread")]
async fn everything_under_the_config_dirs_is_private_under_umask_022() {
    let big = "seq 1 20000";
    let script = Script::new([
        Reply::message()
            .tool_use(
                "toolu_todo",
                "TodoWrite",
                json!({"todos": [{"content": "Count", "status": "in_progress",
                                   "activeForm": "Counting"}]}),
            )
            .tool_use("toolu_big", "Bash", json!({"command": big}))
            .tool_use(
                "toolu_grep",
                "Grep",
                json!({"pattern": "x", "path": "big.txt", "output_mode": "content",
                       "head_limit": 0}),
            )
            .tool_use(
                "toolu_bg",
                "Bash",
                json!({"command": "echo background", "run_in_background": true}),
            )
            .tool_use(
                "toolu_write",
                "Write",
                json!({"file_path": "notes.txt", "content": "new\n"}),
            )
            .into(),
        Reply::tool_use(
            "toolu_agent",
            "Agent",
            json!({"description": "count", "prompt": "Count the files.",
                   "subagent_type": "counter"}),
        ),
        Reply::text("1 file"),
        Reply::text("Done."),
    ]);
    let env = Env::new(script).await;
    let market = env.project.path().join("market");
    marketplace(&market);
    std::fs::write(env.cwd().join("notes.txt"), "old\n").unwrap();
    // Grep's 3,000 lines are over a tool result's 50,000 characters: the
    // result is saved beside the transcript.
    std::fs::write(
        env.cwd().join("big.txt"),
        format!("{}\n", "x".repeat(60)).repeat(3000),
    )
    .unwrap();
    let market = market.to_string_lossy().into_owned();
    tack_under_umask_022(&env, &["plugin", "marketplace", "add", &market]);
    tack_under_umask_022(&env, &["plugin", "install", "kit@modes-market"]);
    tack_under_umask_022(&env, &["trust"]);
    let agents = r#"{"counter": {"description": "Counts", "prompt": "Count.", "tools": ["Glob"]}}"#;
    tack_under_umask_022(
        &env,
        &[
            "-p",
            "do it all",
            "--output-format",
            "json",
            "--allowedTools",
            "Bash,Write,TodoWrite,Grep",
            "--agents",
            agents,
        ],
    );

    let home = env.home.path();
    let mut found = Vec::new();
    for root in [".claude", ".tack", ".claude.json"] {
        entries(home, &home.join(root), &mut found);
    }
    found.sort();
    let open: Vec<&(String, String)> = found
        .iter()
        .filter(|(path, mode)| mode != if path.ends_with('/') { "700" } else { "600" })
        .collect();
    assert_eq!(open, Vec::<&(String, String)>::new(), "{found:#?}");
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            ".claude.json",
            ".claude/",
            ".claude/.tack-last-cleanup",
            ".claude/plugins/",
            ".claude/plugins/cache/",
            ".claude/plugins/cache/modes-market/",
            ".claude/plugins/cache/modes-market/kit/",
            ".claude/plugins/cache/modes-market/kit/1.0.0/",
            ".claude/plugins/cache/modes-market/kit/1.0.0/.claude-plugin/",
            ".claude/plugins/cache/modes-market/kit/1.0.0/.claude-plugin/plugin.json",
            ".claude/plugins/cache/modes-market/kit/1.0.0/commands/",
            ".claude/plugins/cache/modes-market/kit/1.0.0/commands/hello.md",
            ".claude/plugins/installed_plugins.json",
            ".claude/plugins/known_marketplaces.json",
            ".claude/projects/",
            ".claude/projects/[project]/",
            ".claude/projects/[project]/[session].jsonl",
            ".claude/projects/[project]/[session]/",
            ".claude/projects/[project]/[session]/bash-output/",
            ".claude/projects/[project]/[session]/bash-output/[b-task].stdout",
            ".claude/projects/[project]/[session]/subagents/",
            ".claude/projects/[project]/[session]/subagents/agent-[a-task].jsonl",
            ".claude/projects/[project]/[session]/subagents/agent-[a-task].meta.json",
            ".claude/projects/[project]/[session]/tasks/",
            ".claude/projects/[project]/[session]/tasks/[b-task].output",
            ".claude/projects/[project]/[session]/tool-results/",
            ".claude/projects/[project]/[session]/tool-results/toolu_grep.txt",
            ".claude/settings.json",
            ".tack/",
            ".tack/config.json",
            ".tack/file-history/",
            ".tack/file-history/[session]/",
            ".tack/file-history/[session]/[16-hex]@v1",
            ".tack/pending-writes/",
            ".tack/pending-writes/[pid]",
        ]
    );
}
