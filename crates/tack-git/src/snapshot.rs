//! The git snapshot in the system context: current branch, main branch, short
//! status and recent commits, taken once at the start of a session.
//!
//! Read in-process where the files say for certain ([`crate::files`],
//! [`crate::status`], [`crate::log`]); else each `git` command runs through
//! [`crate::run`] (hardened: no repo-configured program runs) with a
//! timeout, so a huge repository or a stuck lock never holds up the first
//! request. No `git` binary, or a cwd outside any work tree, gives `None`.

use std::path::Path;
use std::time::Duration;

use crate::files::{self, Fact, GitEnv};
use crate::log;
use crate::run::{GitCommand, GitError, GitOutput, drivers_in_config, filter_drivers};
use crate::status;

/// Most characters of `git status --short` that are included.
pub const MAX_STATUS_CHARS: usize = 2_000;
/// The default bound on each `git` command of the snapshot.
pub const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(3);
/// How many recent commits are listed.
const RECENT_COMMITS: usize = 5;

/// A snapshot of the repository the session runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSnapshot {
    /// The checked-out branch; `None` on a detached HEAD.
    pub branch: Option<String>,
    /// The branch PRs usually target: `origin/HEAD`'s target, else `main` or
    /// `master` if one exists, else `main`.
    pub main_branch: String,
    /// `git status --short`, capped at [`MAX_STATUS_CHARS`] with a note.
    pub status: String,
    /// `git log --oneline -n 5` (empty in a repository without commits).
    pub recent_commits: String,
}

impl GitSnapshot {
    /// The snapshot as the system context block shows it.
    pub fn to_context(&self) -> String {
        let branch = self.branch.as_deref().unwrap_or("(detached HEAD)");
        let main = &self.main_branch;
        let status = if self.status.is_empty() {
            "(clean)"
        } else {
            &self.status
        };
        let commits = if self.recent_commits.is_empty() {
            "(no commits yet)"
        } else {
            &self.recent_commits
        };
        format!(
            "gitStatus: This is the git status at the start of the conversation. Note that \
             this status is a snapshot in time, and will not update during the conversation.\n\
             Current branch: {branch}\n\n\
             Main branch (you will usually use this for PRs): {main}\n\n\
             Status:\n{status}\n\n\
             Recent commits:\n{commits}"
        )
    }
}

/// Takes the snapshot of the repository containing `cwd`, running the `git`
/// commands concurrently, each bounded by `timeout`.
///
/// No process at all where git's files can be read in-process for certain
/// ([`crate::files`]: none outside a repository; config, filter drivers and
/// the main branch; [`crate::status`]: the short status; [`crate::log`]:
/// the recent commits), up to four where they cannot: the filter listing
/// (which every command waits for), then `status`, `log` and
/// `for-each-ref`. `status --branch` also gives the branch.
pub async fn git_snapshot(cwd: &Path, timeout: Duration) -> Option<GitSnapshot> {
    if let Fact::Known(snapshot) = snapshot_in_process(cwd) {
        return snapshot;
    }
    let env = GitEnv::from_process();
    let repo = match files::discover(cwd, &env) {
        Fact::Known(None) => return None,
        Fact::Known(Some(repo)) => Some(repo),
        Fact::Unsure => None,
    };
    // Every config file read once, for all the in-process facts.
    let known = repo
        .as_ref()
        .and_then(|r| match files::config_text(r, &env) {
            Fact::Known(config) => Some((r, config)),
            Fact::Unsure => None,
        });
    // Listed once for every command; unlisted, no git runs.
    let drivers = match known.as_ref().map(|(_, config)| drivers_in_config(config)) {
        Some(Fact::Known(drivers)) => drivers,
        _ => filter_drivers(cwd, timeout).await.ok()?,
    };
    let git = |args: &[&str]| GitCommand::new(cwd, args, timeout).drivers(drivers.clone());
    let status = async {
        if let Some((repo, config)) = &known
            && let Fact::Known(status) = status::short_status(repo, &env, config, cwd)
        {
            return Some((status.branch, status.files));
        }
        // `dirty`: do not run `git status` inside submodules (their own
        // config would apply there).
        let args = &["status", "--short", "--branch", "--ignore-submodules=dirty"];
        let text = stdout_of(git(args).run().await)?;
        let (header, files) = text.split_once('\n').unwrap_or((text.as_str(), ""));
        Some((branch_from_status_header(header), files.to_owned()))
    };
    let known_main = repo.as_ref().map(files::main_branch);
    let main_branch = async {
        if let Some(Fact::Known(branch)) = known_main {
            return branch;
        }
        let refs = git(&[
            "for-each-ref",
            "--format=%(refname:short) %(symref:short)",
            "refs/remotes/origin/HEAD",
            "refs/heads/main",
            "refs/heads/master",
        ]);
        main_branch_from_refs(&stdout_of(refs.run().await).unwrap_or_default())
    };
    let log = async {
        // Read in-process after `status` has been spawned (it is polled
        // first below), so the process starts without waiting for this.
        let commits = known
            .as_ref()
            .map(|(repo, config)| log::recent_commits(repo, config, RECENT_COMMITS));
        if let Some(Fact::Known(commits)) = commits {
            return Some(commits);
        }
        let count = RECENT_COMMITS.to_string();
        run_beside(git(&[
            "log",
            "--oneline",
            "--no-show-signature",
            "-n",
            &count,
        ]))
        .await
    };
    let (status, log, main_branch) = tokio::join!(status, log, main_branch);
    let (branch, files) = status?;
    Some(GitSnapshot {
        branch,
        main_branch,
        status: cap_status(files),
        recent_commits: log.unwrap_or_default(),
    })
}

/// `command` run from a thread of its own: a spawn blocks its thread until
/// the child has exec'd, so `log` spawned there overlaps `status` spawned
/// by the caller instead of waiting for it.
async fn run_beside(command: GitCommand) -> Option<String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("git-spawn".into())
        .spawn(move || {
            let _ = tx.send(command.run_blocking());
        })
        .ok()?;
    stdout_of(rx.await.ok()?)
}

/// A successful command's stdout without its last newline.
fn stdout_of(ran: Result<GitOutput, GitError>) -> Option<String> {
    let stdout = ran.ok()?.success().ok()?;
    Some(stdout.trim_end().to_owned())
}

/// The whole snapshot read in-process, with no runtime and no process:
/// `Known(None)` outside a repository; `Unsure` if any part needs `git`.
pub(crate) fn snapshot_in_process(cwd: &Path) -> Fact<Option<GitSnapshot>> {
    let env = GitEnv::from_process();
    let repo = match files::discover(cwd, &env) {
        Fact::Known(None) => return Fact::Known(None),
        Fact::Known(Some(repo)) => repo,
        Fact::Unsure => return Fact::Unsure,
    };
    let Fact::Known(config) = files::config_text(&repo, &env) else {
        return Fact::Unsure;
    };
    let Fact::Known(status) = status::short_status(&repo, &env, &config, cwd) else {
        return Fact::Unsure;
    };
    let Fact::Known(main_branch) = files::main_branch(&repo) else {
        return Fact::Unsure;
    };
    let Fact::Known(recent_commits) = log::recent_commits(&repo, &config, RECENT_COMMITS) else {
        return Fact::Unsure;
    };
    Fact::Known(Some(GitSnapshot {
        branch: status.branch,
        main_branch,
        status: cap_status(status.files),
        recent_commits,
    }))
}

/// The branch from `git status --branch`'s first line: `## main...origin/main
/// [ahead 1]`, `## No commits yet on main`, or `## HEAD (no branch)` (detached).
fn branch_from_status_header(header: &str) -> Option<String> {
    let rest = header.strip_prefix("## ")?;
    let rest = rest
        .strip_prefix("No commits yet on ")
        .or_else(|| rest.strip_prefix("Initial commit on "))
        .unwrap_or(rest);
    if rest.starts_with("HEAD (no branch)") {
        return None;
    }
    let name = rest.split("...").next().unwrap_or(rest);
    let name = name.split(' ').next().unwrap_or(name);
    (!name.is_empty()).then(|| name.to_owned())
}

/// `origin/HEAD`'s target if the remote has one, else `main` or `master` if
/// such a branch exists, else `main`.
fn main_branch_from_refs(refs: &str) -> String {
    let mut local = None;
    for line in refs.lines() {
        let (name, target) = line.split_once(' ').unwrap_or((line, ""));
        if name == "origin/HEAD" || name == "origin" {
            if let Some((_, branch)) = target.split_once('/')
                && !branch.is_empty()
            {
                return branch.to_owned();
            }
        } else if local.is_none() && !name.is_empty() {
            local = Some(name.to_owned());
        }
    }
    local.unwrap_or_else(|| "main".to_owned())
}

fn cap_status(status: String) -> String {
    let Some((cut, _)) = status.char_indices().nth(MAX_STATUS_CHARS) else {
        return status;
    };
    format!(
        "{}\n... (truncated because it exceeds {MAX_STATUS_CHARS} characters; run `git status` \
         with the Bash tool for the full list)",
        &status[..cut]
    )
}
#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn branch_comes_from_the_status_header() {
        let cases = [
            ("## main...origin/main [ahead 1]", Some("main")),
            ("## feature/x", Some("feature/x")),
            ("## No commits yet on trunk", Some("trunk")),
            ("## Initial commit on master", Some("master")),
            ("## HEAD (no branch)", None),
            ("not a header", None),
        ];
        for (header, expected) in cases {
            assert_eq!(
                branch_from_status_header(header).as_deref(),
                expected,
                "{header}"
            );
        }
    }

    #[test]
    fn main_branch_prefers_origin_head_then_local_main_or_master() {
        assert_eq!(
            main_branch_from_refs("origin/HEAD origin/trunk\nmain \n"),
            "trunk"
        );
        assert_eq!(main_branch_from_refs("master \n"), "master");
        assert_eq!(main_branch_from_refs("main \nmaster \n"), "main");
        assert_eq!(main_branch_from_refs(""), "main");
    }

    #[test]
    fn long_status_is_capped_with_a_note() {
        let status = "?? some/untracked/file.txt\n".repeat(100);
        let capped = cap_status(status.clone());
        let expected = format!(
            "{}\n... (truncated because it exceeds 2000 characters; run `git status` with the \
             Bash tool for the full list)",
            &status[..MAX_STATUS_CHARS]
        );
        assert_eq!(capped, expected);
        assert_eq!(cap_status(" M a.rs".into()), " M a.rs");
    }
}
