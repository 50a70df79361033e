//! A scratch repository built with the real `git` (fixed identity, no user
//! or system config) for the in-process readers' tests to compare against.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::files::{Fact, GitEnv, RepoDirs, discover};

pub(crate) struct Sandbox {
    _tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub root: PathBuf,
}

impl Sandbox {
    pub(crate) fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let root = tmp.path().to_path_buf();
        Sandbox {
            _tmp: tmp,
            home,
            root,
        }
    }

    /// `git` in `dir` with a fixed identity, no user or system config, and
    /// committer dates from `date` when given.
    pub(crate) fn git_at(&self, dir: &Path, date: Option<i64>, args: &[&str]) -> String {
        let out = self.git_output(dir, date, args);
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
    }

    /// [`Sandbox::git_at`] for a command that may fail (a conflicted merge).
    pub(crate) fn git_output(
        &self,
        dir: &Path,
        date: Option<i64>,
        args: &[&str],
    ) -> std::process::Output {
        let mut command = Command::new("git");
        command
            .current_dir(dir)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "C")
            .env("GIT_COMMITTER_EMAIL", "c@example.com")
            .args(args);
        if let Some(date) = date {
            command
                .env("GIT_COMMITTER_DATE", format!("@{date} +0000"))
                .env("GIT_AUTHOR_DATE", format!("@{date} +0000"));
        }
        command.output().unwrap()
    }

    pub(crate) fn init(&self, name: &str) -> PathBuf {
        let dir = self.root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        self.git_at(&dir, None, &["init", "-q", "-b", "main"]);
        dir
    }

    pub(crate) fn commit(&self, dir: &Path, date: i64, message: &str) {
        std::fs::write(dir.join("f.txt"), format!("{date}\n{message}")).unwrap();
        self.git_at(dir, None, &["add", "-A"]);
        self.git_at(
            dir,
            Some(date),
            &["commit", "-q", "--cleanup=verbatim", "-m", message],
        );
    }

    pub(crate) fn env(&self) -> GitEnv {
        GitEnv {
            home: Some(self.home.clone()),
            ..GitEnv::default()
        }
    }

    pub(crate) fn repo(&self, dir: &Path) -> RepoDirs {
        match discover(dir, &self.env()) {
            Fact::Known(Some(repo)) => repo,
            other => panic!("no repository at {}: {other:?}", dir.display()),
        }
    }
}
