//! The hardened runner against the real `git`: a repository's filters and
//! hooks do not run, however its config names them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pretty_assertions::assert_eq;

use super::*;
use crate::sandbox::Sandbox;

const TIMEOUT: Duration = Duration::from_secs(30);

#[test]
fn every_filter_driver_is_blanked_once() {
    let listed = "filter.lfs.clean\0filter.lfs.smudge\0filter.lfs.process\0\
                  filter.my.odd.name.clean\0filter.evil.required\0";
    let expected: Vec<String> = ["lfs", "my.odd.name", "evil"]
        .iter()
        .flat_map(|d| {
            [
                format!("filter.{d}.clean="),
                format!("filter.{d}.smudge="),
                format!("filter.{d}.process="),
                format!("filter.{d}.required=false"),
            ]
        })
        .collect();
    assert_eq!(blank_drivers(&listed_drivers(listed)), Ok(expected));
    assert_eq!(blank_drivers(&listed_drivers("")), Ok(Vec::new()));
    // A name `-c` would split wrongly: fail closed.
    assert_eq!(
        blank_drivers(&listed_drivers("filter.a=b.clean\0")),
        Err(GitError::FilterName("a=b".to_owned()))
    );
}

/// The first executable `git` of an absolute `PATH` entry; a relative
/// entry (a hostile repository's own `git`) and non-executables are
/// passed over.
#[test]
fn git_is_found_in_absolute_path_entries_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (plain, exe, repo) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("r"),
    );
    for d in [&plain, &exe, &repo] {
        std::fs::create_dir(d).unwrap();
        std::fs::write(d.join("git"), "#!/bin/sh\n").unwrap();
    }
    for d in [&exe, &repo] {
        std::fs::set_permissions(d.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let rel = repo
        .strip_prefix(std::env::current_dir().unwrap())
        .unwrap_or(Path::new("r"));
    let path = std::env::join_paths([rel, plain.as_path(), exe.as_path()]).unwrap();
    assert_eq!(find_git(&path), exe.join("git").into_os_string());
    let none = std::env::join_paths([plain.as_path()]).unwrap();
    assert_eq!(find_git(&none), std::ffi::OsString::from("git"));
}

/// A repository whose `*.txt` files have the `evil` filter (its smudge and
/// clean programs touch a marker) and whose `post-checkout` hook touches
/// another; `a.txt` is committed and then deleted, so a checkout smudges it.
/// Returns the repository and the two markers.
fn hostile_repo(s: &Sandbox, config_file: &str) -> (PathBuf, PathBuf, PathBuf) {
    let repo = s.init("repo");
    std::fs::write(repo.join(".gitattributes"), "*.txt filter=evil\n").unwrap();
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    s.commit(&repo, 1_700_000_000, "first");
    let (filtered, hooked) = (s.root.join("filtered"), s.root.join("hooked"));
    let touch = |marker: &Path| format!("touch {}; cat", marker.display());
    let config = repo.join(".git").join(config_file);
    let mut text = std::fs::read_to_string(&config).unwrap_or_default();
    text.push_str(&format!(
        "[filter \"evil\"]\n\tsmudge = {}\n\tclean = {}\n\trequired = true\n",
        touch(&filtered),
        touch(&filtered)
    ));
    std::fs::write(&config, text).unwrap();
    if config_file != "config" {
        let mut main = std::fs::read_to_string(repo.join(".git/config")).unwrap();
        main.push_str(&format!("[include]\n\tpath = {config_file}\n"));
        std::fs::write(repo.join(".git/config"), main).unwrap();
    }
    let hook = repo.join(".git/hooks/post-checkout");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", hooked.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(repo.join("a.txt")).unwrap();
    (repo, filtered, hooked)
}

/// The drivers are listed in-process from `.git/config`, and by `git
/// config` when an `include` hides them from the in-process reader; either
/// way the checkout writes the file unfiltered and runs no hook. Plain `git`
/// runs both, so the repository is as hostile as it looks.
#[test]
fn a_repository_s_filters_and_hooks_do_not_run() {
    for config_file in ["config", "evil.config"] {
        let s = Sandbox::new();
        let (repo, filtered, hooked) = hostile_repo(&s, config_file);
        let drivers = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(filter_drivers(&repo, TIMEOUT));
        assert_eq!(drivers, Ok(vec!["evil".to_owned()]), "{config_file}");
        let out = GitCommand::new(&repo, &["checkout", "HEAD", "--", "a.txt"], TIMEOUT)
            .run_blocking()
            .unwrap();
        assert_eq!(out.code, 0, "{out:?}");
        assert_eq!(std::fs::read_to_string(repo.join("a.txt")).unwrap(), "a\n");
        assert!(!filtered.exists(), "{config_file}: the smudge filter ran");
        assert!(!hooked.exists(), "{config_file}: the hook ran");

        s.git_at(&repo, None, &["checkout", "-q", "-b", "other"]);
        assert!(hooked.exists(), "{config_file}: plain git runs the hook");
        std::fs::remove_file(repo.join("a.txt")).unwrap();
        s.git_at(&repo, None, &["checkout", "HEAD", "--", "a.txt"]);
        assert!(
            filtered.exists(),
            "{config_file}: plain git runs the filter"
        );
    }
}

#[test]
fn stdin_exit_codes_and_the_output_cap_are_answers() {
    let s = Sandbox::new();
    let repo = s.init("repo");
    let out = GitCommand::new(&repo, &["hash-object", "--stdin"], TIMEOUT)
        .stdin(b"hello\n")
        .run_blocking()
        .unwrap();
    assert_eq!(
        out.success(),
        Ok("ce013625030ba8dba906f756967f9e9ca394464a\n".to_owned())
    );
    let failed = GitCommand::new(&repo, &["rev-parse", "--verify", "-q", "nope"], TIMEOUT)
        .run_blocking()
        .unwrap();
    assert_eq!(
        failed.success(),
        Err(GitError::Exited {
            code: 1,
            stderr: String::new()
        })
    );
    let capped = GitCommand::new(&repo, &["help", "-a"], TIMEOUT)
        .output_cap(10)
        .run_blocking();
    assert_eq!(capped, Err(GitError::OutputTooLarge(10)));
}
