//! After EnterWorktree the session is in the worktree everywhere: the next
//! request's system prompt (environment section, git snapshot), the
//! transcript records' `cwd` and `gitBranch`, the hooks' `cwd`, what auto
//! mode's classifier is told of where the session runs; ExitWorktree brings
//! all of it back, and the session resumes from either folder.

use std::path::Path;

use crate::common;

use common::{Env, write};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

/// The system prompt's environment section, whole.
fn environment(body: &Value) -> String {
    let text = body["system"][0]["text"].as_str().unwrap();
    let start = text.find("# Environment").unwrap();
    let end = text[start..].find("</env>").unwrap() + start + "</env>".len();
    text[start..end].to_owned()
}

/// The git snapshot's branch line, from the system block that holds it.
fn git_branch_line(body: &Value) -> String {
    let blocks = body["system"].as_array().unwrap();
    let git = blocks
        .iter()
        .filter_map(|b| b["text"].as_str())
        .find(|t| t.starts_with("gitStatus:"))
        .unwrap();
    git.lines()
        .find(|l| l.starts_with("Current branch:"))
        .unwrap()
        .to_owned()
}

fn expected_environment(cwd: &Path, model: &Value) -> String {
    format!(
        "# Environment\n<env>\nWorking directory: {}\nPlatform: {}\nModel: {}\n</env>",
        cwd.display(),
        std::env::consts::OS,
        model.as_str().unwrap()
    )
}

/// `tack -p "work in a worktree"` with `--permission-mode mode` and `vars`,
/// in a new git repository (`a.txt` committed on `main`); it succeeds.
pub(crate) fn worktree_session(env: &Env, mode: &str, vars: &[(&str, &str)]) {
    common::git_repo_with(&env.cwd(), "a.txt", "a\n");
    let out = env
        .tack()
        .envs(vars.iter().copied())
        .args(["-p", "work in a worktree", "--permission-mode", mode])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
}

#[tokio::test(flavor = "multi_thread")]
async fn enter_worktree_moves_the_prompt_the_transcript_and_the_hooks_and_resume_finds_the_session()
{
    let env = Env::new(Script::new([
        Reply::tool_use("w1", "EnterWorktree", json!({"name": "feat"})),
        Reply::tool_use("b1", "Bash", json!({"command": "true"})),
        Reply::tool_use("x1", "ExitWorktree", json!({"action": "keep"})),
        Reply::tool_use("b2", "Bash", json!({"command": "true"})),
        Reply::text("done"),
        Reply::text("resumed in the worktree"),
        Reply::text("resumed in the start folder"),
    ]))
    .await;
    let cwd = env.cwd();
    let log = env.home.path().join("hooks.jsonl");
    write(
        env.claude_dir().join("settings.json"),
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": format!("jq -c '{{cwd}}' >> '{}'", log.display())}]}]}})
        .to_string(),
    );
    worktree_session(&env, "bypassPermissions", &[]);
    let wt = cwd.join(".claude/worktrees/feat");
    let bodies = env.request_bodies();
    let model = &bodies[0]["model"];
    // The request after EnterWorktree describes the worktree; the one after
    // ExitWorktree the start folder again.
    assert_eq!(
        bodies.iter().map(environment).collect::<Vec<_>>(),
        [&cwd, &wt, &wt, &cwd, &cwd].map(|d| expected_environment(d, model))
    );
    assert_eq!(
        bodies.iter().map(git_branch_line).collect::<Vec<_>>(),
        ["main", "worktree-feat", "worktree-feat", "main", "main"]
            .map(|b| format!("Current branch: {b}"))
    );
    // Hooks run for Bash in the worktree, then in the start folder.
    let hooks: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(hooks, [json!({"cwd": wt}), json!({"cwd": cwd})]);
    // Each record names the folder the session was in when it was written:
    // EnterWorktree's result is the first in the worktree, ExitWorktree's the
    // first back. (An assistant record is written as its calls may already
    // run, so whether the one calling EnterWorktree names the worktree is a
    // race: the prompt and the results only.)
    let transcripts = env.transcripts();
    assert_eq!(transcripts.len(), 1);
    let places = |path: &Path| -> Vec<(String, String, String)> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| r["type"] == "user")
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap().to_owned();
                (s("type"), s("cwd"), s("gitBranch"))
            })
            .collect()
    };
    let (c, w) = (cwd.display().to_string(), wt.display().to_string());
    let at =
        |kind: &str, dir: &str, branch: &str| (kind.to_owned(), dir.to_owned(), branch.to_owned());
    assert_eq!(
        places(&transcripts[0]),
        [
            at("user", &c, "main"),
            at("user", &w, "worktree-feat"),
            at("user", &w, "worktree-feat"),
            at("user", &c, "main"),
            at("user", &c, "main"),
        ]
    );
    // The transcript stays where the session started; `--resume <id>` finds
    // it from the worktree and from the start folder.
    let id = transcripts[0]
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    for (dir, answer) in [
        (&wt, "resumed in the worktree"),
        (&cwd, "resumed in the start folder"),
    ] {
        let out = env
            .tack()
            .current_dir(dir)
            .args(["-p", "again", "--resume", &id])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::stderr(&out));
        assert_eq!(common::stdout(&out).trim(), answer);
    }
    assert_eq!(env.transcripts(), transcripts);
    let last = env.request_bodies().pop().unwrap();
    assert_eq!(environment(&last), expected_environment(&cwd, model));
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_modes_classifier_is_told_the_folder_the_session_moved_to() {
    const CLASSIFIER: &str = "claude-haiku-4-5";
    let allow = || -> Reply {
        Reply::message()
            .text("<block>no")
            .stop_reason("stop_sequence")
            .into()
    };
    let env = Env::new(Script::new([
        Reply::tool_use("w1", "EnterWorktree", json!({"name": "feat"})),
        Reply::tool_use("b1", "Bash", json!({"command": "echo one | tee one.txt"})),
        allow(),
        Reply::tool_use("x1", "ExitWorktree", json!({"action": "keep"})),
        Reply::tool_use("b2", "Bash", json!({"command": "echo two | tee two.txt"})),
        allow(),
        Reply::text("done"),
    ]))
    .await;
    worktree_session(&env, "auto", &[("CLAUDE_CODE_AUTO_MODE_MODEL", CLASSIFIER)]);
    let (cwd, wt) = (env.cwd(), env.cwd().join(".claude/worktrees/feat"));
    let bodies = env.request_bodies();
    let (classifier, agent): (Vec<Value>, Vec<Value>) =
        bodies.into_iter().partition(|b| b["model"] == CLASSIFIER);
    // What each classifier request says of where the session runs.
    let facts: Vec<String> = (classifier.iter())
        .map(|b| {
            let blocks = b["messages"][0]["content"].as_array().unwrap();
            let last = blocks.last().unwrap()["text"].as_str().unwrap();
            let facts = last
                .strip_prefix("Facts about the session (from tack, not from the user):\n")
                .unwrap();
            facts[..facts.find("\n\nThe action to decide:").unwrap()].to_owned()
        })
        .collect();
    // The folder the session is in, and the git state its own request that
    // made the call had (the worktree's branch, then the start folder's).
    let git = |body: &Value| -> String {
        let blocks = body["system"].as_array().unwrap();
        let texts = blocks.iter().filter_map(|b| b["text"].as_str());
        texts.filter(|t| t.starts_with("gitStatus:")).collect()
    };
    let expected = |dir: &Path, body: &Value| {
        format!(
            "Working directories (the project; trusted):\n- {}\n\n{}",
            dir.display(),
            git(body).trim()
        )
    };
    assert_eq!(facts, [expected(&wt, &agent[1]), expected(&cwd, &agent[3])]);
    assert_eq!(git_branch_line(&agent[1]), "Current branch: worktree-feat");
    assert_eq!(git_branch_line(&agent[3]), "Current branch: main");
}
