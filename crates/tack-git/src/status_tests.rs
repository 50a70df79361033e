//! The in-process status against the real `git status --short --branch`, on
//! repositories the real `git` built: each kind of change, untracked
//! directories, ignores, a cwd below the root, index version 4, packed HEAD
//! trees; and the cases that must be left to git.

use std::path::Path;

use pretty_assertions::assert_eq;

use super::short_status;
use crate::files::{Fact, config_text};
use crate::sandbox::Sandbox;

/// What tack reads, as `git status --short --branch` would print it.
fn ours(s: &Sandbox, dir: &Path) -> Fact<String> {
    let repo = s.repo(dir);
    let Fact::Known(config) = config_text(&repo, &s.env()) else {
        return Fact::Unsure;
    };
    match short_status(&repo, &s.env(), &config, dir) {
        Fact::Known(status) => {
            let branch = status.branch.unwrap_or_else(|| "HEAD (no branch)".into());
            let mut text = format!("## {branch}");
            if !status.files.is_empty() {
                text = format!("{text}\n{}", status.files);
            }
            Fact::Known(text)
        }
        Fact::Unsure => Fact::Unsure,
    }
}

/// What git prints (without the header's upstream part: tack reads only the
/// branch from it).
fn git(s: &Sandbox, dir: &Path) -> Fact<String> {
    let text = s.git_at(dir, None, &["status", "--short", "--branch"]);
    let text = text.replace("No commits yet on ", "");
    Fact::Known(text)
}

fn write(dir: &Path, path: &str, content: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A repository with one commit of a few files in nested directories.
fn committed(s: &Sandbox, name: &str) -> std::path::PathBuf {
    let dir = s.init(name);
    for (path, content) in [
        ("README.md", "hello\n"),
        ("src/lib.rs", "pub fn a() {}\n"),
        ("src/deep/mod.rs", "// deep\n"),
        ("docs/guide.md", "guide\n"),
        ("run.sh", "echo hi\n"),
    ] {
        write(&dir, path, content);
    }
    s.git_at(&dir, None, &["add", "-A"]);
    s.git_at(&dir, Some(1_700_000_000), &["commit", "-q", "-m", "init"]);
    dir
}

#[test]
fn a_clean_tree_and_every_kind_of_change_match_git() {
    use std::os::unix::fs::PermissionsExt;
    let s = Sandbox::new();
    let dir = committed(&s, "changes");
    assert_eq!(ours(&s, &dir), Fact::Known("## main".into()));

    // Unstaged: modified (same size too), deleted, mode, type change.
    write(&dir, "README.md", "HELLO\n");
    write(&dir, "src/lib.rs", "pub fn a() { changed }\n");
    std::fs::remove_file(dir.join("docs/guide.md")).unwrap();
    std::fs::set_permissions(dir.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(dir.join("src/deep/mod.rs")).unwrap();
    std::os::unix::fs::symlink("../lib.rs", dir.join("src/deep/mod.rs")).unwrap();
    // Untracked: a file beside tracked ones, a new directory (one line), an
    // empty directory and an ignored one (no line).
    write(&dir, "src/new.rs", "new\n");
    write(&dir, "notes/a/b.txt", "b\n");
    write(&dir, "notes/c.txt", "c\n");
    std::fs::create_dir_all(dir.join("empty/inner")).unwrap();
    write(&dir, ".gitignore", "target/\n*.log\n");
    write(&dir, "target/debug/x", "x\n");
    write(&dir, "src/trace.log", "log\n");
    assert_eq!(ours(&s, &dir), git(&s, &dir));

    // Staged: a modification, an addition, then on top unstaged edits.
    s.git_at(&dir, None, &["add", "README.md", "src/new.rs"]);
    write(&dir, "README.md", "again\n");
    let expected = git(&s, &dir);
    assert_eq!(ours(&s, &dir), expected);
    let Fact::Known(text) = expected else {
        unreachable!()
    };
    for line in [
        "MM README.md",
        "A  src/new.rs",
        " T src/deep/mod.rs",
        "?? notes/",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in {text}");
    }
}

#[test]
fn a_staged_deletion_and_racily_clean_files_match_git() {
    let s = Sandbox::new();
    let dir = committed(&s, "racy");
    s.git_at(&dir, None, &["rm", "-q", "--cached", "docs/guide.md"]);
    // Written right after the index with the same size: only the content
    // (hashed) tells.
    s.git_at(&dir, None, &["add", "README.md"]);
    write(&dir, "README.md", "HELLO\n");
    assert_eq!(ours(&s, &dir), git(&s, &dir));
}

#[test]
fn paths_are_relative_to_a_cwd_below_the_root() {
    let s = Sandbox::new();
    let dir = committed(&s, "sub");
    write(&dir, "README.md", "changed\n");
    write(&dir, "src/deep/mod.rs", "// changed\n");
    write(&dir, "src/deep/new/x.rs", "x\n");
    write(&dir, "top.txt", "t\n");
    let cwd = dir.join("src/deep");
    assert_eq!(ours(&s, &cwd), git(&s, &cwd));
}

#[test]
fn unborn_detached_packed_and_index_v4_repositories_match_git() {
    let s = Sandbox::new();
    let unborn = s.init("unborn");
    write(&unborn, "a.txt", "a\n");
    write(&unborn, "dir/b.txt", "b\n");
    assert_eq!(ours(&s, &unborn), git(&s, &unborn));
    s.git_at(&unborn, None, &["add", "a.txt"]);
    assert_eq!(ours(&s, &unborn), git(&s, &unborn));

    let dir = committed(&s, "packed");
    s.git_at(&dir, None, &["gc", "-q"]);
    s.git_at(&dir, None, &["update-index", "--index-version", "4"]);
    write(&dir, "src/extra.rs", "extra\n");
    s.git_at(&dir, None, &["add", "src/extra.rs"]);
    write(&dir, "docs/guide.md", "more guide\n");
    assert_eq!(ours(&s, &dir), git(&s, &dir));
    s.git_at(&dir, None, &["checkout", "-q", "--detach"]);
    assert_eq!(ours(&s, &dir), git(&s, &dir));
}

#[test]
fn excludes_and_nested_repositories_match_git() {
    let s = Sandbox::new();
    // Above the work tree: git reads no ignore file there.
    std::fs::write(s.root.join(".gitignore"), "*.md\n").unwrap();
    let dir = committed(&s, "excludes");
    write(&dir, "notes.md", "untracked, not ignored\n");
    write(&dir, ".git/info/exclude", "/secret.txt\n");
    write(&dir, "secret.txt", "s\n");
    write(&dir, "src/secret.txt", "not anchored here\n");
    std::fs::create_dir_all(s.home.join(".config/git")).unwrap();
    write(&s.home, ".config/git/ignore", "*.swp\n");
    write(&dir, "src/lib.rs.swp", "swap\n");
    let nested = dir.join("src/vendored");
    std::fs::create_dir_all(&nested).unwrap();
    s.git_at(&nested, None, &["init", "-q"]);
    assert_eq!(ours(&s, &dir), git(&s, &dir));
}

#[test]
fn what_git_would_print_otherwise_is_left_to_git() {
    let s = Sandbox::new();
    // A staged rename.
    let dir = committed(&s, "rename");
    s.git_at(&dir, None, &["mv", "docs/guide.md", "docs/manual.md"]);
    assert_eq!(ours(&s, &dir), Fact::Unsure);
    // A path git quotes.
    let dir = committed(&s, "quoted");
    write(&dir, "with space.txt", "x\n");
    assert_eq!(ours(&s, &dir), Fact::Unsure);
    // Attributes, when a content comparison is needed.
    let dir = committed(&s, "attributes");
    write(&dir, ".gitattributes", "*.md text eol=crlf\n");
    s.git_at(&dir, None, &["add", ".gitattributes"]);
    s.git_at(&dir, Some(1_700_000_100), &["commit", "-q", "-m", "attrs"]);
    write(&dir, "README.md", "HELLO\n");
    assert_eq!(ours(&s, &dir), Fact::Unsure);
    // A tracked directory replaced by a symlink to outside the work tree.
    let dir = committed(&s, "symlinked");
    std::fs::remove_dir_all(dir.join("docs")).unwrap();
    std::os::unix::fs::symlink(&s.home, dir.join("docs")).unwrap();
    assert_eq!(ours(&s, &dir), Fact::Unsure);
    // Config that changes status.
    let dir = committed(&s, "config");
    s.git_at(&dir, None, &["config", "status.showUntrackedFiles", "all"]);
    assert_eq!(ours(&s, &dir), Fact::Unsure);
    // A conflicted index.
    let dir = committed(&s, "conflict");
    s.git_at(&dir, None, &["checkout", "-q", "-b", "other"]);
    write(&dir, "README.md", "other\n");
    s.git_at(&dir, Some(1_700_000_200), &["commit", "-qam", "other"]);
    s.git_at(&dir, None, &["checkout", "-q", "main"]);
    write(&dir, "README.md", "main\n");
    s.git_at(&dir, Some(1_700_000_300), &["commit", "-qam", "main"]);
    let merge = s.git_output(&dir, None, &["merge", "-q", "other"]);
    assert!(!merge.status.success());
    let conflicted = s.git_at(&dir, None, &["status", "--short"]);
    assert_eq!(conflicted, "UU README.md");
    assert_eq!(ours(&s, &dir), Fact::Unsure);
}
