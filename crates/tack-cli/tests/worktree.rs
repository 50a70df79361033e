//! `--worktree [name]` (issue 26): the session runs in
//! `.claude/worktrees/<name>/` on branch `worktree-<name>`; kept when it
//! changed something, removed with its branch when it did not.

use crate::common;

use common::{Env, git};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

fn repo(env: &Env) {
    common::git_repo_with(&env.cwd(), "a.txt", "a\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worktree_that_changed_is_kept_on_its_branch() {
    let env = Env::new(Script::new([
        Reply::tool_use("b1", "Bash", json!({"command": "pwd; echo new > made.txt"})),
        Reply::text("Made it."),
    ]))
    .await;
    repo(&env);
    std::fs::write(env.cwd().join(".env"), "KEY=1\n").unwrap();
    std::fs::write(env.cwd().join(".worktreeinclude"), ".env\n").unwrap();
    std::fs::write(env.cwd().join(".git/info/exclude"), ".env\n").unwrap();
    let out = env
        .tack()
        .args([
            "-p",
            "make it",
            "-w",
            "feat",
            "--permission-mode",
            "bypassPermissions",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let wt = env.cwd().join(".claude/worktrees/feat");
    assert_eq!(
        std::fs::read_to_string(wt.join("made.txt")).unwrap(),
        "new\n"
    );
    assert!(!env.cwd().join("made.txt").exists());
    // `.worktreeinclude` brought the ignored `.env` along.
    assert_eq!(std::fs::read_to_string(wt.join(".env")).unwrap(), "KEY=1\n");
    assert_eq!(
        git(&env.cwd(), &["branch", "--list", "worktree-feat"]),
        "+ worktree-feat"
    );
    let said = common::stderr(&out);
    assert!(
        said.contains(&format!(
            "Worktree kept at {} (branch worktree-feat)",
            wt.display()
        )),
        "{said}"
    );
    // The session ran there: the command's output and the transcript's cwd.
    let bodies = env.request_bodies();
    let result = bodies[1]["messages"].to_string();
    assert!(result.contains(&wt.display().to_string()), "{result}");
    assert_eq!(env.store().list_sessions(&wt).unwrap().len(), 1);
    assert_eq!(env.transcripts().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unchanged_worktree_goes_with_its_branch() {
    let env = Env::new(Script::new([Reply::text("Nothing to do.")])).await;
    repo(&env);
    let out = env
        .tack()
        .args(["-p", "look", "--worktree"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(common::stdout(&out), "Nothing to do.\n");
    let left: Vec<_> = std::fs::read_dir(env.cwd().join(".claude/worktrees"))
        .unwrap()
        .collect();
    assert_eq!(left.len(), 0);
    assert_eq!(git(&env.cwd(), &["branch", "--list", "worktree-*"]), "");
    assert_eq!(
        git(&env.cwd(), &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn outside_git_or_with_a_bad_name_nothing_runs() {
    let env = Env::new(Script::new([])).await;
    let out = env.tack().args(["-p", "x", "-w", "feat"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        common::stderr(&out).contains("--worktree needs a git repository"),
        "{}",
        common::stderr(&out)
    );
    repo(&env);
    let out = env
        .tack()
        .args(["-p", "x", "-w", "../up"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        common::stderr(&out).contains("worktree name \"../up\""),
        "{}",
        common::stderr(&out)
    );
    assert_eq!(env.server.requests().len(), 0);
}

/// The `gitBranch` of every record that has one.
fn recorded_branches(transcript: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            Some(record.get("gitBranch")?.as_str()?.to_owned())
        })
        .collect()
}

/// Inside `-w x` the work tree's `.git` is a file naming its own git dir;
/// the repository around it is on `main`. The transcript records what git
/// says there: `worktree-x`.
#[tokio::test(flavor = "multi_thread")]
async fn the_transcript_of_a_worktree_session_names_its_branch() {
    let env = Env::new(Script::new([Reply::text("Looked.")])).await;
    repo(&env);
    let out = env.tack().args(["-p", "look", "-w", "x"]).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let wt = env.cwd().join(".claude/worktrees/x");
    let sessions = env.store().list_sessions(&wt).unwrap();
    assert_eq!(sessions.len(), 1);
    let branches = recorded_branches(&sessions[0].path);
    assert!(branches.len() >= 2, "{branches:?}");
    assert_eq!(branches, vec!["worktree-x".to_owned(); branches.len()]);
}

/// The terminal UI of `tack -w x`: the built-in status line shows the
/// worktree's branch, and a `statusLine` command runs in the worktree, so
/// git tells it the same branch; its JSON names the worktree session
/// (`worktree`, as Claude Code's documents it) and `-n`'s `session_name`.
#[tokio::test(flavor = "multi_thread")]
async fn the_status_line_of_a_worktree_session_shows_its_branch() {
    use tack_tui::testing::{CommandBuilder, PtySession, keys};
    let wait = std::time::Duration::from_secs(30);
    let env = Env::new(Script::new([])).await;
    repo(&env);
    env.trust();
    let pty = |args: &[&str]| {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_tack"));
        cmd.env_clear();
        for (key, value) in env.vars() {
            cmd.env(key, value);
        }
        cmd.env("TERM", "xterm-256color");
        cmd.args(args);
        cmd.cwd(env.cwd());
        PtySession::spawn(cmd, 120, 30).unwrap()
    };
    let mut built_in = pty(&["-w", "x"]);
    built_in.wait_for_text("⎇ worktree-x", wait).unwrap();
    built_in.send(keys::CTRL_D).unwrap();
    assert!(built_in.wait_exit(wait).unwrap().success());

    // What the command is told, outside the worktree (removed at the end).
    let told = env.claude_dir().join("told.json");
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(
        env.claude_dir().join("settings.json"),
        json!({"statusLine": {"type": "command",
        "command": format!(
            "cat > {}; printf 'on-branch:%s' \"$(git branch --show-current)\"",
            told.display()
        )}})
        .to_string(),
    )
    .unwrap();
    let mut command = pty(&["-w", "y", "-n", "named"]);
    command.wait_for_text("on-branch:worktree-y", wait).unwrap();
    command.send(keys::CTRL_D).unwrap();
    assert!(command.wait_exit(wait).unwrap().success());
    let told: Value = serde_json::from_str(&std::fs::read_to_string(&told).unwrap()).unwrap();
    let root = env.cwd().display().to_string();
    assert_eq!(
        (&told["session_name"], &told["worktree"]),
        (
            &json!("named"),
            &json!({
                "name": "y",
                "path": format!("{root}/.claude/worktrees/y"),
                "branch": "worktree-y",
                "original_cwd": root,
                "original_branch": "main"
            })
        )
    );
    // Vim mode is off (no `editorMode`) and no `--agent` or `agent` setting:
    // neither object is sent.
    assert_eq!((told.get("vim"), told.get("agent")), (None, None));
}

/// The worktree the model entered with EnterWorktree is the status line's
/// `worktree` (Claude Code's object, from the session's snapshot), and
/// ExitWorktree takes it away again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_line_names_the_worktree_the_model_entered() {
    use tack_tui::testing::keys;
    let wait = std::time::Duration::from_secs(30);
    let env = Env::new(Script::new([
        Reply::tool_use("w1", "EnterWorktree", json!({"name": "z"})),
        Reply::text("In z."),
        Reply::tool_use("x1", "ExitWorktree", json!({"action": "keep"})),
        Reply::text("Back."),
    ]))
    .await;
    repo(&env);
    env.trust();
    let told = env.claude_dir().join("told.json");
    std::fs::create_dir_all(env.claude_dir()).unwrap();
    std::fs::write(
        env.claude_dir().join("settings.json"),
        json!({
            "permissions": {"allow": ["EnterWorktree", "ExitWorktree"]},
            "statusLine": {"type": "command", "command": format!(
                "j=$(cat); printf '%s' \"$j\" > {}; printf 'wt:%s' \"$(printf '%s' \"$j\" | jq -r '.worktree.name // \"none\"')\"",
                told.display()
            )}
        })
        .to_string(),
    )
    .unwrap();
    // The main session runs as an agent of the user's: the command is told.
    let agents = env.home.path().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("mover.md"),
        "---\nname: mover\ndescription: Moves.\n---\nYou move between worktrees.\n",
    )
    .unwrap();
    let mut cmd = crate::interactive::tack_command(&env);
    cmd.args(["--agent", "mover"]);
    let mut pty = tack_tui::testing::PtySession::spawn(cmd, 120, 30).unwrap();
    pty.wait_for_text("wt:none", wait).unwrap();
    pty.send(b"work in a worktree\r").unwrap();
    pty.wait_for_text("In z.", wait).unwrap();
    pty.wait_for_text("wt:z", wait).unwrap();
    let root = env.cwd().display().to_string();
    let mut shown: Value = serde_json::from_str(&std::fs::read_to_string(&told).unwrap()).unwrap();
    // What changes from run to run: the session, its times and its cost.
    for (object, key) in [
        (None, "session_id"),
        (None, "transcript_path"),
        (Some("cost"), "total_duration_ms"),
        (Some("cost"), "total_api_duration_ms"),
    ] {
        let at = match object {
            Some(o) => &mut shown[o][key],
            None => &mut shown[key],
        };
        assert!(!at.is_null(), "{key}");
        *at = json!("…");
    }
    let wt = format!("{root}/.claude/worktrees/z");
    // The session's folder is the worktree now: `cwd` and
    // `workspace.current_dir` say so, `git_worktree` names it.
    let want = json!({
        "hook_event_name": "Status",
        "session_id": "…",
        "transcript_path": "…",
        "cwd": wt,
        "model": {"id": "claude-opus-5-5", "display_name": "claude-opus-5-5"},
        "workspace": {
            "current_dir": wt,
            "project_dir": root,
            "added_dirs": [],
            "git_worktree": "z"
        },
        "version": env!("CARGO_PKG_VERSION"),
        "output_style": {"name": "default"},
        "cost": {
            "total_cost_usd": shown["cost"]["total_cost_usd"],
            "total_duration_ms": "…",
            "total_api_duration_ms": "…",
            "total_lines_added": 0,
            "total_lines_removed": 0
        },
        "context_window": shown["context_window"],
        "exceeds_200k_tokens": false,
        "fast_mode": false,
        "thinking": {"enabled": false},
        "agent": {"name": "mover"},
        "worktree": {
            "name": "z",
            "path": wt,
            "branch": "worktree-z",
            "original_cwd": root,
            "original_branch": "main"
        }
    });
    assert_eq!(shown, want);
    assert!(shown["context_window"]["used_percentage"].is_number());
    // The agent's body is the system prompt.
    let system = env.request_bodies()[0]["system"].to_string();
    assert!(system.contains("You move between worktrees."), "{system}");
    pty.send(b"leave it\r").unwrap();
    pty.wait_for_text("Back.", wait).unwrap();
    pty.wait_for_text("wt:none", wait).unwrap();
    pty.send(keys::CTRL_D).unwrap();
    assert!(pty.wait_exit(wait).unwrap().success());
}

/// A repository whose `*.txt` files have a smudge (and clean) filter that
/// leaves `marker` behind: `tack -w` and `tack batch` check the files out
/// without running it, as Claude Code's `-w` does (issue 35). Plain `git`
/// runs it, so the repository is as hostile as it looks.
#[tokio::test(flavor = "multi_thread")]
async fn worktrees_and_batch_tasks_run_no_smudge_filter() {
    let env = Env::new(Script::routed([
        ("MARK-WORKTREE".to_owned(), vec![Reply::text("Looked.")]),
        ("MARK-BATCH".to_owned(), vec![Reply::text("Done.")]),
    ]))
    .await;
    let repo = env.cwd().join("repo");
    std::fs::create_dir(&repo).unwrap();
    common::git_repo_with(&repo, ".gitattributes", "*.txt filter=evil\n");
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "a.txt"]);
    let id = ["-c", "user.name=T", "-c", "user.email=t@example.com"];
    git(&repo, &[&id[..], &["commit", "-q", "-m", "a"]].concat());
    let tools = tempfile::tempdir().unwrap();
    let marker = tools.path().join("filtered");
    let filter = common::marker_script(tools.path(), "filter", &marker);
    for key in ["smudge", "clean"] {
        let name = format!("filter.evil.{key}");
        git(&repo, &["config", &name, &filter.to_string_lossy()]);
    }

    let out = env
        .tack()
        .current_dir(&repo)
        .args(["-p", "MARK-WORKTREE look", "-w", "x"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(common::stdout(&out), "Looked.\n");
    assert!(!marker.exists(), "tack -w ran the smudge filter");

    let line = json!({"id": "t", "prompt": "MARK-BATCH look", "cwd": "repo"});
    std::fs::write(env.cwd().join("tasks.jsonl"), format!("{line}\n")).unwrap();
    let results = env.cwd().join("results.jsonl");
    let out = env
        .tack()
        .args(["batch", "tasks.jsonl", "--out"])
        .arg(&results)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let result: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&results).unwrap().trim()).unwrap();
    assert_eq!(result["status"], "success", "{result}");
    assert!(!marker.exists(), "tack batch ran the smudge filter");

    std::fs::remove_file(repo.join("a.txt")).unwrap();
    git(&repo, &["checkout", "--", "a.txt"]);
    assert!(marker.exists(), "plain git runs the filter");
}
