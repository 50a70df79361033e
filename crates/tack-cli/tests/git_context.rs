//! The git context runs as few `git` processes as it can (each is time before
//! the first request) and never one that a repository's config could turn
//! into running its code: none outside a repository, `status` and `log` in
//! one (the filter drivers and main branch read from git's own files), the
//! `git config` listing again when a config file has `include`s.

use crate::common::{self, Env, git, marker_script};

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use tack_testkit::{Reply, Script};

/// A `git` on `PATH` ahead of the real one: logs its subcommand (the first
/// argument that is not an option or a `-c` value) to `log`, then runs git.
fn logging_git(dir: &Path, log: &Path) -> PathBuf {
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_owned();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(
        bin.join("git"),
        format!(
            "#!/bin/sh\nskip=0\nfor a in \"$@\"; do\n  if [ $skip = 1 ]; then skip=0; continue; fi\n  \
             case \"$a\" in -c) skip=1;; -*) ;; *) echo \"$a\" >> '{}'; break;; esac\ndone\n\
             exec '{real}' \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        bin.join("git"),
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    bin
}

fn subcommands(log: &Path) -> Vec<String> {
    let mut ran: Vec<String> = std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    ran.sort();
    ran
}

/// `git init -b <branch>` in `repo` and one commit of `a.txt`.
fn init_with_one_commit(repo: &Path, branch: &str, text: &str) {
    git(repo, &["init", "-q", "-b", branch]);
    std::fs::write(repo.join("a.txt"), text).unwrap();
    git(repo, &["add", "."]);
    git(
        repo,
        &[
            "-c",
            "user.email=d@e",
            "-c",
            "user.name=D",
            "commit",
            "-qm",
            "one",
        ],
    );
}

async fn run_with_logging_git(env: &Env) -> Vec<String> {
    let tools = tempfile::tempdir().unwrap();
    let log = tools.path().join("git.log");
    let bin = logging_git(tools.path(), &log);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = env
        .tack()
        .env("PATH", path)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    subcommands(&log)
}

#[tokio::test(flavor = "multi_thread")]
async fn outside_a_repository_no_git_runs() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    assert_eq!(run_with_logging_git(&env).await, Vec::<String>::new());
    let system = env.request_bodies()[0]["system"].to_string();
    assert!(!system.contains("Current branch"), "{system}");
}

#[tokio::test(flavor = "multi_thread")]
async fn in_a_repository_no_git_runs_either() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let repo = env.cwd();
    init_with_one_commit(&repo, "trunk", "a\n");
    git(
        &repo,
        &["config", "filter.lfs.clean", "git-lfs clean -- %f"],
    );
    git(&repo, &["branch", "master"]);
    std::fs::write(repo.join("a.txt"), "changed\n").unwrap();
    std::fs::write(repo.join("b.txt"), "new\n").unwrap();
    // The filter drivers, the main branch, the status and the recent
    // commits are read from the repository's files.
    assert_eq!(run_with_logging_git(&env).await, Vec::<String>::new());
    let head = git(&repo, &["rev-parse", "--short=7", "HEAD"]);
    let system = env.request_bodies()[0]["system"].to_string();
    assert!(
        system.contains("Current branch: trunk")
            && system.contains("Main branch (you will usually use this for PRs): master")
            && system.contains("Status:\\n M a.txt\\n?? b.txt\\n")
            && system.contains(&format!("Recent commits:\\n{} one", head.trim())),
        "{system}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_filter_in_an_included_config_file_is_blanked_too() {
    let env = Env::new(Script::new([Reply::text("ok")])).await;
    let repo = env.cwd();
    let evil = tempfile::tempdir().unwrap();
    let marker = evil.path().join("clean-ran");
    init_with_one_commit(&repo, "main", "hello\n");
    let clean = marker_script(evil.path(), "clean", &marker);
    let included = evil.path().join("extra.conf");
    std::fs::write(
        &included,
        format!("[filter \"evil\"]\n\tclean = {}\n", clean.display()),
    )
    .unwrap();
    git(
        &repo,
        &["config", "include.path", &included.to_string_lossy()],
    );
    std::fs::write(repo.join(".gitattributes"), "*.txt filter=evil\n").unwrap();
    std::fs::write(repo.join("a.txt"), "HELLO\n").unwrap();

    let ran = run_with_logging_git(&env).await;
    assert!(!marker.exists(), "the included filter ran");
    // The include sends the filter listing back to `git config`.
    assert_eq!(ran, ["config", "log", "status"]);
    let system = env.request_bodies()[0]["system"].to_string();
    assert!(system.contains("M a.txt"), "{system}");
}
