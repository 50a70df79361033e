//! `--worktree` with WorktreeCreate / WorktreeRemove hooks and the
//! `worktree.baseRef` setting, through the real binary and real git.

use crate::common;

use std::path::Path;

use common::{Env, git, stderr, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// A trusted git repository whose project settings are `settings`.
fn project(env: &Env, settings: Value) {
    common::git_repo_with(&env.cwd(), "a.txt", "a\n");
    write(env.cwd().join(".git/info/exclude"), ".claude/\n*.json\n");
    write(
        env.cwd().join(".claude/settings.json"),
        &settings.to_string(),
    );
    env.trust();
}

/// A trusted git repository whose settings have the WorktreeCreate hook
/// `create` and the WorktreeRemove hook `remove`.
fn hooked_project(env: &Env, create: &str, remove: &str) {
    project(
        env,
        json!({"hooks": {
            "WorktreeCreate": [{"hooks": [{"type": "command", "command": create}]}],
            "WorktreeRemove": [{"hooks": [{"type": "command", "command": remove}]}]}}),
    );
}

/// A WorktreeCreate hook's part that makes `$WT_DIR` a git worktree on
/// branch `hooked`.
const GIT_ADD: &str = "git -C \"$CLAUDE_PROJECT_DIR\" worktree add -q -b hooked \"$WT_DIR\" >&2";

/// A WorktreeRemove hook that logs its input and removes `$WT_DIR`.
const GIT_REMOVE: &str = "cat > \"$CLAUDE_PROJECT_DIR/remove.json\"; \
                          git -C \"$CLAUDE_PROJECT_DIR\" worktree remove --force \"$WT_DIR\"";

/// `-p go` with every tool allowed.
const BYPASSING: [&str; 4] = ["-p", "go", "--permission-mode", "bypassPermissions"];

/// `tack args` with `WT_DIR` (where the hooks make the worktree) `made`,
/// which must succeed.
fn run_in(env: &Env, made: &Path, args: &[&str]) {
    let out = env.tack().env("WT_DIR", made).args(args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The hook input logged at `path`, without the per-run fields.
fn logged(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let mut v: Value = serde_json::from_str(text.trim()).unwrap();
    for key in ["session_id", "transcript_path", "cwd"] {
        v.as_object_mut().unwrap().remove(key);
    }
    v
}

/// The remote's default branch (`origin/HEAD`) at the repository's first
/// commit, local HEAD one commit ahead: both commits.
fn ahead_of_origin(cwd: &Path) -> (String, String) {
    let pushed = git(cwd, &["rev-parse", "HEAD"]);
    git(cwd, &["update-ref", "refs/remotes/origin/main", &pushed]);
    git(
        cwd,
        &[
            "symbolic-ref",
            "refs/remotes/origin/HEAD",
            "refs/remotes/origin/main",
        ],
    );
    std::fs::write(cwd.join("b.txt"), "b\n").unwrap();
    git(cwd, &["add", "b.txt"]);
    let id = ["-c", "user.name=T", "-c", "user.email=t@example.com"];
    git(cwd, &[&id[..], &["commit", "-q", "-m", "local"]].concat());
    (pushed, git(cwd, &["rev-parse", "HEAD"]))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worktree_create_hook_makes_the_folder_the_session_runs_in() {
    let env = Env::new(Script::new([
        Reply::tool_use("b1", "Bash", json!({"command": "pwd > where.txt"})),
        Reply::text("Done."),
    ]))
    .await;
    let made = env.home.path().join("elsewhere");
    let create = "cat > \"$CLAUDE_PROJECT_DIR/create.json\"; mkdir -p \"$WT_DIR\"; \
                  echo 'making it' >&2; echo 'made:'; echo \"$WT_DIR\"";
    project(
        &env,
        json!({"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": create}]}]}}),
    );
    let out = env
        .tack()
        .env("WT_DIR", &made)
        .args(["-p", "go", "-w", "feat", "--dangerously-skip-permissions"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        logged(&env.cwd().join("create.json")),
        json!({"hook_event_name": "WorktreeCreate", "name": "feat"})
    );
    let made = made.canonicalize().unwrap();
    assert_eq!(
        std::fs::read_to_string(made.join("where.txt"))
            .unwrap()
            .trim(),
        made.display().to_string()
    );
    // git made nothing; the folder is not a git checkout, so it is kept.
    assert!(!env.cwd().join(".claude/worktrees/feat").exists());
    assert_eq!(git(&env.cwd(), &["branch", "--list", "worktree-*"]), "");
    let said = stderr(&out);
    assert!(
        said.contains(&format!("Worktree kept at {}", made.display())),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unchanged_hook_made_checkout_goes_to_the_worktree_remove_hook() {
    let env = Env::new(Script::new([Reply::text("Nothing to do.")])).await;
    let made = env.home.path().join("hooked");
    let create = format!("cat > /dev/null; {GIT_ADD}; echo \"$WT_DIR\"");
    hooked_project(&env, &create, GIT_REMOVE);
    run_in(&env, &made, &["-p", "look", "-w", "feat"]);
    assert_eq!(
        logged(&env.cwd().join("remove.json")),
        json!({"hook_event_name": "WorktreeRemove", "worktree_path": made})
    );
    assert!(!made.exists(), "the remove hook did not run");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_worktree_create_hook_starts_no_session() {
    let env = Env::new(Script::new([Reply::text("never")])).await;
    project(
        &env,
        json!({"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command",
            "command": "echo 'no space left' >&2; exit 1"}]}]}}),
    );
    let out = env
        .tack()
        .args(["-p", "go", "-w", "feat"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("cannot make the worktree feat") && said.contains("no space left"),
        "{said}"
    );
    assert_eq!(env.server.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn base_ref_head_branches_from_local_head_and_fresh_from_origin() {
    let touch = |id: &str| Reply::tool_use(id, "Bash", json!({"command": "echo x > made.txt"}));
    let env = Env::new(Script::new([
        touch("b1"),
        Reply::text("Made."),
        touch("b2"),
        Reply::text("Made."),
    ]))
    .await;
    project(&env, json!({}));
    let cwd = env.cwd();
    let (pushed, local) = ahead_of_origin(&cwd);
    let run = |name: &str| {
        let out = env
            .tack()
            .args(["-p", "go", "-w", name, "--dangerously-skip-permissions"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        git(
            &cwd.join(".claude/worktrees").join(name),
            &["rev-parse", "HEAD"],
        )
    };
    assert_eq!(run("fresh"), pushed);
    write(
        cwd.join(".claude/settings.json"),
        &json!({"worktree": {"baseRef": "head"}}).to_string(),
    );
    assert_eq!(run("head"), local);
}

/// The content of the tool result for `id` among every request's messages.
fn tool_result(env: &Env, id: &str) -> Value {
    let bodies = env.request_bodies();
    let found = (bodies.iter())
        .flat_map(|b| b["messages"].as_array().cloned().unwrap_or_default())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id);
    found.unwrap()["content"].clone()
}

/// An Agent call that runs its sub-agent in a worktree of its own.
fn isolated_agent(id: &str) -> Reply {
    Reply::tool_use(
        id,
        "Agent",
        json!({"description": "work", "prompt": "work", "isolation": "worktree"}),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn an_isolated_agent_works_where_the_worktree_create_hook_says() {
    let env = Env::new(Script::new([
        isolated_agent("a1"),
        Reply::tool_use("b1", "Bash", json!({"command": "pwd"})),
        Reply::text("looked"),
        Reply::text("Done."),
    ]))
    .await;
    let made = env.home.path().canonicalize().unwrap().join("agent-wt");
    let create = format!(
        "cat > \"$CLAUDE_PROJECT_DIR/create.json\"; {GIT_ADD}; echo 'made:'; echo \"$WT_DIR\""
    );
    hooked_project(&env, &create, GIT_REMOVE);
    run_in(&env, &made, &BYPASSING);
    let created = logged(&env.cwd().join("create.json"));
    let name = created["name"].as_str().unwrap_or_default().to_owned();
    assert!(name.starts_with("agent-"), "{created}");
    assert_eq!(
        created,
        json!({"hook_event_name": "WorktreeCreate", "name": name,
               "permission_mode": "bypassPermissions"})
    );
    // The sub-agent's Bash ran in the hook's folder.
    assert_eq!(tool_result(&env, "b1"), json!(made.display().to_string()));
    // Unchanged: handed to the WorktreeRemove hook, which removed it; git
    // made nothing of its own.
    assert_eq!(
        logged(&env.cwd().join("remove.json")),
        json!({"hook_event_name": "WorktreeRemove", "worktree_path": made,
               "permission_mode": "bypassPermissions"})
    );
    assert!(!made.exists(), "the remove hook did not run");
    assert!(!env.cwd().join(".claude/worktrees").exists());
    assert_eq!(git(&env.cwd(), &["branch", "--list", "worktree-*"]), "");
    let result = tool_result(&env, "a1").to_string();
    assert!(
        result.contains("looked") && !result.contains("kept"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_isolated_agents_hook_made_folder_outside_git_is_kept_and_named() {
    let env = Env::new(Script::new([
        isolated_agent("a1"),
        Reply::tool_use("b1", "Bash", json!({"command": "echo x > made.txt"})),
        Reply::text("wrote"),
        Reply::text("Done."),
    ]))
    .await;
    let made = env.home.path().canonicalize().unwrap().join("plain");
    let create = "cat > /dev/null; mkdir -p \"$WT_DIR\"; echo \"$WT_DIR\"";
    let remove = "cat > \"$CLAUDE_PROJECT_DIR/remove.json\"";
    hooked_project(&env, create, remove);
    run_in(&env, &made, &BYPASSING);
    assert_eq!(
        std::fs::read_to_string(made.join("made.txt")).unwrap(),
        "x\n"
    );
    assert!(!env.cwd().join("made.txt").exists());
    assert!(
        !env.cwd().join("remove.json").exists(),
        "removed a kept one"
    );
    let result = tool_result(&env, "a1").to_string();
    assert!(
        result.contains(&format!(
            "The agent worked in a worktree its WorktreeCreate hook made, kept: {}.",
            made.display()
        )),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_isolated_agent_branches_from_origin_unless_base_ref_is_head() {
    let touch = |id: &str| Reply::tool_use(id, "Bash", json!({"command": "echo x > made.txt"}));
    let env = Env::new(Script::new([
        isolated_agent("a1"),
        touch("b1"),
        Reply::text("Made."),
        Reply::text("Done."),
        isolated_agent("a2"),
        touch("b2"),
        Reply::text("Made."),
        Reply::text("Done."),
    ]))
    .await;
    project(&env, json!({}));
    let cwd = env.cwd();
    let (pushed, local) = ahead_of_origin(&cwd);
    let worktrees = cwd.join(".claude/worktrees");
    let listed = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&worktrees)
            .map(|d| d.map(|e| e.unwrap().file_name().into_string().unwrap()))
            .into_iter()
            .flatten()
            .collect();
        names.sort();
        names
    };
    // Each run's sub-agent keeps the worktree it changed: where it started.
    let run = || {
        let before = listed();
        let out = env
            .tack()
            .args(["-p", "go", "--permission-mode", "bypassPermissions"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let new: Vec<String> = listed()
            .into_iter()
            .filter(|n| !before.contains(n))
            .collect();
        assert_eq!(new.len(), 1, "{new:?}");
        let branch = git(&worktrees.join(&new[0]), &["branch", "--show-current"]);
        assert_eq!(branch, format!("worktree-{}", new[0]));
        git(&worktrees.join(&new[0]), &["rev-parse", "HEAD"])
    };
    assert_eq!(run(), pushed);
    write(
        cwd.join(".claude/settings.json"),
        &json!({"worktree": {"baseRef": "head"}}).to_string(),
    );
    assert_eq!(run(), local);
}
