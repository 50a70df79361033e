use std::path::Path;
use std::process::Command;

use pretty_assertions::assert_eq;

use super::*;

/// `git` in `dir` with a fixed identity and no user or system config.
fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn repo_with_a_commit(dir: &Path) -> String {
    git_ok(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.txt"), "one\n").unwrap();
    git_ok(dir, &["add", "-A"]);
    git_ok(dir, &["commit", "-q", "-m", "first"]);
    git_ok(dir, &["rev-parse", "HEAD"]).trim().to_owned()
}

#[tokio::test]
async fn a_named_worktree_is_made_on_its_branch_and_removed_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let head = repo_with_a_commit(&repo);
    let root = repo_root(&repo).await.unwrap();
    let (path, branch) = named_location(&root, "feature-x").unwrap();
    assert_eq!(path, root.join(".claude/worktrees/feature-x"));
    assert_eq!(branch, "worktree-feature-x");

    let wt = create(&root, &path, "HEAD", Some(&branch)).await.unwrap();
    assert_eq!(wt.base, head);
    assert_eq!(
        std::fs::read_to_string(path.join("a.txt")).unwrap(),
        "one\n"
    );
    assert!(!wt.has_changes().await.unwrap());
    let branches = git_ok(&root, &["branch", "--list", "worktree-feature-x"]);
    assert_eq!(branches.trim(), "+ worktree-feature-x");

    wt.remove(true).await.unwrap();
    assert!(!path.exists());
    assert_eq!(
        git_ok(&root, &["branch", "--list", "worktree-feature-x"]),
        ""
    );
    let listed = git_ok(&root, &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");
}

#[tokio::test]
async fn the_diff_holds_edits_and_new_files_and_applies_to_the_base() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    repo_with_a_commit(&repo);
    let wt = create(&repo, &tmp.path().join("wt"), "HEAD", None)
        .await
        .unwrap();
    std::fs::write(wt.path.join("a.txt"), "two\n").unwrap();
    std::fs::create_dir(wt.path.join("sub")).unwrap();
    std::fs::write(wt.path.join("sub/new.txt"), "new\n").unwrap();
    assert!(wt.has_changes().await.unwrap());

    let patch = wt.diff().await.unwrap();
    assert!(patch.contains("+two"), "{patch}");
    assert!(patch.contains("sub/new.txt"), "{patch}");
    // The patch applies to a fresh checkout of the base.
    std::fs::write(tmp.path().join("p.diff"), &patch).unwrap();
    git_ok(
        &repo,
        &[
            "apply",
            "--check",
            tmp.path().join("p.diff").to_str().unwrap(),
        ],
    );
    git_ok(
        &repo,
        &["apply", tmp.path().join("p.diff").to_str().unwrap()],
    );
    assert_eq!(
        std::fs::read_to_string(repo.join("sub/new.txt")).unwrap(),
        "new\n"
    );
    wt.remove(false).await.unwrap();
    assert!(!wt.path.exists());
}

#[tokio::test]
async fn a_commit_in_the_worktree_is_a_change() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    repo_with_a_commit(&repo);
    let wt = create(&repo, &tmp.path().join("wt"), "HEAD", Some("b1"))
        .await
        .unwrap();
    std::fs::write(wt.path.join("c.txt"), "c\n").unwrap();
    git_ok(&wt.path, &["add", "-A"]);
    git_ok(&wt.path, &["commit", "-q", "-m", "in the worktree"]);
    assert!(wt.has_changes().await.unwrap());
    assert!(wt.diff().await.unwrap().contains("c.txt"));
}

#[tokio::test]
async fn a_folder_outside_git_and_a_bad_name_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let err = repo_root(tmp.path()).await.unwrap_err();
    assert!(matches!(err, WorktreeError::NotARepository(_)), "{err}");
    for bad in ["", "../x", "a/b", ".hidden", &"x".repeat(65)] {
        assert!(named_location(tmp.path(), bad).is_err(), "{bad:?}");
    }
    let name = generated_name();
    assert!(named_location(tmp.path(), &name).is_ok(), "{name}");
}

#[tokio::test]
async fn worktreeinclude_copies_the_ignored_files_it_names_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    repo_with_a_commit(&repo);
    std::fs::write(repo.join(".gitignore"), ".env\nbuild/\nsecret-link\n").unwrap();
    std::fs::write(
        repo.join(".worktreeinclude"),
        ".env\nconf/*.local\n*.txt\nsecret-link\n",
    )
    .unwrap();
    git_ok(&repo, &["add", ".gitignore", ".worktreeinclude"]);
    git_ok(&repo, &["commit", "-q", "-m", "ignore"]);
    std::fs::write(repo.join(".env"), "KEY=1\n").unwrap();
    std::fs::create_dir_all(repo.join("build")).unwrap();
    std::fs::write(repo.join("build/out"), "o").unwrap();
    // Untracked but not ignored: matched by `*.txt`, yet not copied.
    std::fs::write(repo.join("notes.txt"), "n").unwrap();
    // Ignored and matched, but a link (it could point anywhere): not copied.
    std::os::unix::fs::symlink("/etc/hostname", repo.join("secret-link")).unwrap();
    // Ignored through a nested rule, and matched.
    std::fs::create_dir(repo.join("conf")).unwrap();
    std::fs::write(repo.join("conf/.gitignore"), "*.local\n").unwrap();
    git_ok(&repo, &["add", "conf/.gitignore"]);
    git_ok(&repo, &["commit", "-q", "-m", "conf"]);
    std::fs::write(repo.join("conf/db.local"), "db").unwrap();

    let wt = create(&repo, &tmp.path().join("wt"), "HEAD", None)
        .await
        .unwrap();
    assert_eq!(copy_included(&repo, &wt.path).await.unwrap(), 2);
    assert_eq!(
        std::fs::read_to_string(wt.path.join(".env")).unwrap(),
        "KEY=1\n"
    );
    assert_eq!(
        std::fs::read_to_string(wt.path.join("conf/db.local")).unwrap(),
        "db"
    );
    for absent in ["build/out", "notes.txt", "secret-link"] {
        assert!(
            std::fs::symlink_metadata(wt.path.join(absent)).is_err(),
            "{absent}"
        );
    }
    // A second copy finds everything there already.
    assert_eq!(copy_included(&repo, &wt.path).await.unwrap(), 0);
    // Copied files are ignored, so they are not part of the worktree's changes.
    assert!(!wt.has_changes().await.unwrap());
}

#[tokio::test]
async fn clearing_a_leftover_takes_a_locked_record_a_stray_folder_and_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    repo_with_a_commit(&repo);
    let listed = || git_ok(&repo, &["worktree", "list", "--porcelain"]);

    // A `worktree add` killed half-way: its record locked, its folder gone
    // (`prune` keeps a locked record, and `add` then refuses the path).
    let half = tmp.path().join("half");
    create(&repo, &half, "HEAD", None).await.unwrap();
    git_ok(
        &repo,
        &["worktree", "lock", "--reason", "initializing", "../half"],
    );
    std::fs::remove_dir_all(&half).unwrap();
    clear_leftover(&repo, &half).await.unwrap();
    assert_eq!(listed().matches("worktree ").count(), 1, "{}", listed());
    create(&repo, &half, "HEAD", None)
        .await
        .unwrap()
        .remove(false)
        .await
        .unwrap();

    // A folder git never recorded, and then nothing at all.
    let stray = tmp.path().join("stray");
    std::fs::create_dir_all(stray.join("sub")).unwrap();
    std::fs::write(stray.join("sub/f.txt"), "x").unwrap();
    clear_leftover(&repo, &stray).await.unwrap();
    assert!(!stray.exists());
    clear_leftover(&repo, &stray).await.unwrap();
    assert_eq!(listed().matches("worktree ").count(), 1, "{}", listed());
}
