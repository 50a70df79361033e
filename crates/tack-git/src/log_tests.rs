//! The in-process log against the real `git log --oneline`, on repositories
//! built with the real `git`: loose, packed (deltas included), merges with
//! dates out of order, shallow, worktrees, and the cases that must be left
//! to git.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::recent_commits;
use crate::files::{Fact, RepoDirs, config_text};
use crate::sandbox::Sandbox;

/// What tack reads for `git log --oneline -n 5`.
fn ours(s: &Sandbox, repo: &RepoDirs) -> Fact<String> {
    match config_text(repo, &s.env()) {
        Fact::Known(config) => recent_commits(repo, &config, 5),
        Fact::Unsure => Fact::Unsure,
    }
}

/// What tack reads and what `git log --oneline -n 5` prints.
fn both(s: &Sandbox, dir: &Path) -> (Fact<String>, Fact<String>) {
    let ours = ours(s, &s.repo(dir));
    let git = s.git_at(dir, None, &["log", "--oneline", "--no-decorate", "-n", "5"]);
    (ours, Fact::Known(git))
}

#[test]
fn loose_history_with_paragraph_subjects_matches_git() {
    let s = Sandbox::new();
    let dir = s.init("loose");
    for i in 0..7 {
        s.commit(
            &dir,
            1_700_000_000 + i,
            &format!("subject {i}\nsame para  \n\nbody {i}\n"),
        );
    }
    s.commit(
        &dir,
        1_700_000_100,
        "\n\n  leading blanks, then spaces kept\n",
    );
    let (ours, git) = both(&s, &dir);
    assert_eq!(ours, git);
    let Fact::Known(text) = ours else {
        unreachable!()
    };
    assert_eq!(text.lines().count(), 5);
    assert!(text.contains("subject 6 same para"), "{text}");
}

#[test]
fn merges_walk_by_committer_date_and_packs_read_like_loose_objects() {
    let s = Sandbox::new();
    let dir = s.init("merge");
    s.commit(&dir, 1_000, "base");
    s.git_at(&dir, None, &["checkout", "-q", "-b", "side"]);
    s.commit(&dir, 5_000, "side newest");
    s.commit(&dir, 1_500, "side older than main's");
    s.git_at(&dir, None, &["checkout", "-q", "main"]);
    std::fs::write(dir.join("g.txt"), "main").unwrap();
    s.git_at(&dir, None, &["add", "-A"]);
    s.git_at(&dir, Some(3_000), &["commit", "-q", "-m", "main work"]);
    s.git_at(
        &dir,
        Some(6_000),
        &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
    );
    let (ours, git) = both(&s, &dir);
    assert_eq!(ours, git);

    // Long, similar messages, repacked hard: some commits become deltas.
    let long: String = "a long shared paragraph of text\n".repeat(40);
    for i in 0..12 {
        s.commit(&dir, 7_000 + i, &format!("delta {i}\n\n{long}{i}\n"));
    }
    s.git_at(
        &dir,
        None,
        &["repack", "-adfq", "--window=250", "--depth=50"],
    );
    s.git_at(&dir, None, &["pack-refs", "--all"]);
    s.git_at(&dir, None, &["prune"]);
    let verify = s.git_at(&dir, None, &["verify-pack", "-v", &pack_idx(&dir)]);
    let deltified_commits = verify
        .lines()
        .filter(|l| l.contains(" commit ") && l.split_whitespace().count() > 5)
        .count();
    assert!(
        deltified_commits > 0,
        "no commit was stored as a delta:\n{verify}"
    );
    let (ours, git) = both(&s, &dir);
    assert_eq!(ours, git);
}

fn pack_idx(dir: &Path) -> String {
    let pack = dir.join(".git/objects/pack");
    let idx = std::fs::read_dir(&pack)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .unwrap();
    idx.to_string_lossy().into_owned()
}

#[test]
fn unborn_detached_shallow_and_worktree_heads() {
    let s = Sandbox::new();
    let dir = s.init("shapes");
    assert_eq!(ours(&s, &s.repo(&dir)), Fact::Known(String::new()));
    for i in 0..4 {
        s.commit(&dir, 2_000 + i, &format!("c{i}"));
    }
    let first = s.git_at(&dir, None, &["rev-list", "--max-parents=0", "HEAD"]);
    s.git_at(&dir, None, &["checkout", "-q", "--detach", "HEAD~1"]);
    let (ours, git) = both(&s, &dir);
    assert_eq!(ours, git);
    s.git_at(&dir, None, &["checkout", "-q", "main"]);

    let url = format!("file://{}", dir.display());
    let shallow = s.root.join("shallow");
    s.git_at(
        &s.root,
        None,
        &["clone", "-q", "--depth", "2", &url, "shallow"],
    );
    let (ours, git) = both(&s, &shallow);
    assert_eq!(ours, git);
    assert_eq!(
        ours.clone(),
        Fact::Known(s.git_at(&shallow, None, &["log", "--oneline", "-n", "5"]))
    );

    let linked = s.root.join("linked");
    s.git_at(
        &dir,
        None,
        &["worktree", "add", "-q", "-b", "wt", "../linked", &first],
    );
    let (ours, git) = both(&s, &linked);
    assert_eq!(ours, git);
}

#[test]
fn config_and_history_rewrites_are_left_to_git() {
    let s = Sandbox::new();
    let dir = s.init("left");
    s.commit(&dir, 3_000, "one");
    s.commit(&dir, 3_001, "two");
    let repo = s.repo(&dir);
    assert!(matches!(ours(&s, &repo), Fact::Known(_)));

    s.git_at(&dir, None, &["config", "core.abbrev", "12"]);
    assert_eq!(ours(&s, &repo), Fact::Unsure);
    s.git_at(&dir, None, &["config", "--unset", "core.abbrev"]);
    assert!(matches!(ours(&s, &repo), Fact::Known(_)));

    let head = s.git_at(&dir, None, &["rev-parse", "HEAD"]);
    let parent = s.git_at(&dir, None, &["rev-parse", "HEAD~1"]);
    s.git_at(&dir, None, &["replace", &head, &parent]);
    assert_eq!(ours(&s, &repo), Fact::Unsure);
}

#[test]
fn damaged_packs_and_indexes_are_unsure_not_a_panic() {
    let s = Sandbox::new();
    let dir = s.init("damaged");
    for i in 0..3 {
        s.commit(&dir, 4_000 + i, &format!("c{i}"));
    }
    s.git_at(&dir, None, &["repack", "-adq"]);
    s.git_at(&dir, None, &["prune"]);
    let repo = s.repo(&dir);
    assert!(matches!(ours(&s, &repo), Fact::Known(_)));

    let idx = PathBuf::from(pack_idx(&dir));
    let pack = idx.with_extension("pack");
    // git writes packs read-only.
    for file in [&idx, &pack] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let original = std::fs::read(&pack).unwrap();
    let mut garbage = original.clone();
    for byte in garbage.iter_mut().skip(12) {
        *byte = 0xa5;
    }
    std::fs::write(&pack, &garbage).unwrap();
    assert_eq!(ours(&s, &repo), Fact::Unsure);
    std::fs::write(&pack, &original).unwrap();

    let index = std::fs::read(&idx).unwrap();
    std::fs::write(&idx, &index[..100]).unwrap();
    assert_eq!(ours(&s, &repo), Fact::Unsure);
}
