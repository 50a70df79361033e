//! The git snapshot in the system context: current branch, main branch, short
//! status and recent commits, taken once at the start of a session.
//!
//! Each `git` invocation runs with a timeout and is killed if it overruns, so a
//! huge repository or a stuck lock never holds up the first request. No `git`
//! binary, or a cwd outside any work tree, gives `None`.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// Most characters of `git status --short` that are included.
pub const MAX_STATUS_CHARS: usize = 2_000;
/// How many recent commits are listed.
const RECENT_COMMITS: &str = "5";

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
/// Three processes, not one per fact: spawning blocks the calling thread until
/// the child has exec'd, so each extra `git` adds to the time before the first
/// request. `status --branch` also tells whether `cwd` is in a work tree (it
/// fails outside one), and one `for-each-ref` answers the main-branch question.
pub async fn git_snapshot(cwd: &Path, timeout: Duration) -> Option<GitSnapshot> {
    let git = |args: &'static [&'static str]| run_git(cwd, args, timeout);
    let (status, refs, log) = tokio::join!(
        git(&["status", "--short", "--branch"]),
        git(&[
            "for-each-ref",
            "--format=%(refname:short) %(symref:short)",
            "refs/remotes/origin/HEAD",
            "refs/heads/main",
            "refs/heads/master"
        ]),
        git(&["log", "--oneline", "-n", RECENT_COMMITS]),
    );
    let status = status?;
    let (header, files) = status.split_once('\n').unwrap_or((status.as_str(), ""));
    Some(GitSnapshot {
        branch: branch_from_status_header(header),
        main_branch: main_branch_from_refs(&refs.unwrap_or_default()),
        status: cap_status(files.to_owned()),
        recent_commits: log.unwrap_or_default(),
    })
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

/// Runs `git <args>` in `cwd`; its trimmed stdout on success, `None` on failure,
/// timeout (the child is killed) or a missing binary.
async fn run_git(cwd: &Path, args: &[&str], timeout: Duration) -> Option<String> {
    let child = Command::new("git")
        .arg("--no-optional-locks")
        .args(args)
        .current_dir(cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(timeout, child).await.ok()?.ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Some(text.trim_end().to_owned())
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
