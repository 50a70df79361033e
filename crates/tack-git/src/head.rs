//! The checked-out branch, read in-process (no `git` process at start-up):
//! the terminal UI's status line and the transcripts' `gitBranch`.
//!
//! It is the HEAD of the work tree's own git dir: in a linked worktree
//! (`tack -w`) and a submodule, `.git` is a file whose `gitdir:` names that
//! dir (`<repo>/.git/worktrees/<name>`, `<super>/.git/modules/<name>`), and
//! the repository around it has a HEAD of its own that is not this one's.

use std::path::Path;

use crate::files::{self, Fact, GitEnv};
use crate::objects::from_hex;

/// What a work tree has checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// A branch (also one with no commit yet).
    Branch(String),
    /// A commit, on no branch.
    Detached,
}

impl Head {
    /// As `git rev-parse --abbrev-ref HEAD` prints it, which is what Claude
    /// Code records: the branch, or `HEAD` when detached.
    pub fn name(&self) -> &str {
        match self {
            Head::Branch(branch) => branch,
            Head::Detached => "HEAD",
        }
    }
}

/// The HEAD of the work tree holding `cwd`; `None` outside a repository and
/// where the files cannot tell (reftable refs, a HEAD git would not read,
/// `cwd` inside a git dir). The environment's `GIT_DIR` is not followed.
pub fn head(cwd: &Path) -> Option<Head> {
    let Fact::Known(Some(repo)) = files::discover(cwd, &GitEnv::default()) else {
        return None;
    };
    match branch_in(&repo.git_dir) {
        Fact::Known(Some(branch)) => Some(Head::Branch(branch)),
        Fact::Known(None) => Some(Head::Detached),
        Fact::Unsure => None,
    }
}

/// [`head`] as the transcripts' `gitBranch` and the status line show it:
/// [`Head::name`], empty when there is none.
pub fn branch_name(cwd: &Path) -> String {
    head(cwd).map_or_else(String::new, |head| head.name().to_owned())
}

/// The branch the `HEAD` file of `git_dir` names, `None` when detached.
pub(crate) fn branch_in(git_dir: &Path) -> Fact<Option<String>> {
    let Ok(head) = std::fs::read_to_string(git_dir.join("HEAD")) else {
        return Fact::Unsure;
    };
    let head = head.trim_end();
    match head.strip_prefix("ref: ") {
        Some(name) => match name.strip_prefix("refs/heads/") {
            // A reftable repository's HEAD file is a stub naming `.invalid`.
            Some(branch) if !branch.is_empty() && branch != ".invalid" => {
                Fact::Known(Some(branch.to_owned()))
            }
            _ => Fact::Unsure,
        },
        None if from_hex(head).is_some() => Fact::Known(None),
        None => Fact::Unsure,
    }
}

#[cfg(test)]
#[path = "head_tests.rs"]
mod tests;
