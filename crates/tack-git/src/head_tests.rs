//! The branch read in-process against what the real `git` says.

use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;
use crate::sandbox::Sandbox;

/// Ours and `git rev-parse --abbrev-ref HEAD`'s, side by side.
fn both(s: &Sandbox, dir: &Path) -> (String, String) {
    let git = s.git_at(dir, None, &["rev-parse", "--abbrev-ref", "HEAD"]);
    (branch_name(dir), git)
}

fn same(name: &str) -> (String, String) {
    (name.to_owned(), name.to_owned())
}

#[test]
fn a_plain_repository_from_its_root_and_a_folder_below() {
    let s = Sandbox::new();
    let repo = s.init("repo");
    s.commit(&repo, 1_700_000_000, "first");
    std::fs::create_dir(repo.join("sub")).unwrap();
    assert_eq!(head(&repo), Some(Head::Branch("main".to_owned())));
    assert_eq!(both(&s, &repo.join("sub")), same("main"));
    s.git_at(&repo, None, &["checkout", "-q", "-b", "feature/x"]);
    assert_eq!(both(&s, &repo), same("feature/x"));
}

#[test]
fn a_detached_head_is_named_head() {
    let s = Sandbox::new();
    let repo = s.init("repo");
    s.commit(&repo, 1_700_000_000, "first");
    s.git_at(&repo, None, &["checkout", "-q", "--detach"]);
    assert_eq!(head(&repo), Some(Head::Detached));
    assert_eq!(both(&s, &repo), same("HEAD"));
}

/// `tack -w x`: the worktree's `.git` is a file naming
/// `.git/worktrees/x`, inside the main work tree whose `.git/HEAD` says
/// `main`.
#[test]
fn a_linked_worktree_has_its_own_branch() {
    let s = Sandbox::new();
    let repo = s.init("repo");
    s.commit(&repo, 1_700_000_000, "first");
    let wt = repo.join(".claude/worktrees/x");
    let wt_arg = wt.to_string_lossy().into_owned();
    s.git_at(
        &repo,
        None,
        &["worktree", "add", "-q", "-b", "worktree-x", &wt_arg],
    );
    assert!(wt.join(".git").is_file());
    std::fs::create_dir(wt.join("deeper")).unwrap();
    assert_eq!(both(&s, &wt), same("worktree-x"));
    assert_eq!(both(&s, &wt.join("deeper")), same("worktree-x"));
    assert_eq!(both(&s, &repo), same("main"));
}

/// A submodule's `.git` is a file with a relative `gitdir:` into the
/// superproject's `.git/modules/`; it starts detached, then may be on a
/// branch of its own.
#[test]
fn a_submodule_reads_its_own_gitdir() {
    let s = Sandbox::new();
    let lib = s.init("lib");
    s.commit(&lib, 1_700_000_000, "lib");
    let sup = s.init("super");
    s.commit(&sup, 1_700_000_001, "super");
    s.git_at(
        &sup,
        None,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            "../lib",
            "vendor/lib",
        ],
    );
    let sub = sup.join("vendor/lib");
    let dot_git = std::fs::read_to_string(sub.join(".git")).unwrap();
    assert_eq!(dot_git.trim_end(), "gitdir: ../../.git/modules/vendor/lib");
    assert_eq!(both(&s, &sub), same("main"));
    s.git_at(&sub, None, &["checkout", "-q", "--detach"]);
    assert_eq!(both(&s, &sub), same("HEAD"));
    s.git_at(&sub, None, &["checkout", "-q", "-b", "patched"]);
    assert_eq!(both(&s, &sub), same("patched"));
    assert_eq!(both(&s, &sup), same("main"));
}

#[test]
fn outside_a_repository_or_with_a_reftable_stub_there_is_none() {
    let s = Sandbox::new();
    let plain = s.root.join("plain");
    std::fs::create_dir(&plain).unwrap();
    assert_eq!(head(&plain), None);
    assert_eq!(branch_name(&plain), "");

    let repo = s.root.join("reftable");
    std::fs::create_dir_all(repo.join(".git/objects")).unwrap();
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/.invalid\n").unwrap();
    assert_eq!(head(&repo), None);
}
