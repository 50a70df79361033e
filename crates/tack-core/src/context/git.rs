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
pub async fn git_snapshot(cwd: &Path, timeout: Duration) -> Option<GitSnapshot> {
    let git = |args: &'static [&'static str]| run_git(cwd, args, timeout);
    let (inside, branch, origin_head, local_mains, status, log) = tokio::join!(
        git(&["rev-parse", "--is-inside-work-tree"]),
        git(&["branch", "--show-current"]),
        git(&[
            "symbolic-ref",
            "--quiet",
            "--short",
            "refs/remotes/origin/HEAD"
        ]),
        git(&[
            "for-each-ref",
            "--format=%(refname:short)",
            "refs/heads/main",
            "refs/heads/master"
        ]),
        git(&["status", "--short"]),
        git(&["log", "--oneline", "-n", RECENT_COMMITS]),
    );
    if inside.as_deref() != Some("true") {
        return None;
    }
    let local_mains = local_mains.unwrap_or_default();
    let main_branch = origin_head
        .and_then(|head| head.split_once('/').map(|(_, name)| name.to_owned()))
        .filter(|name| !name.is_empty())
        .or_else(|| local_mains.lines().next().map(str::to_owned))
        .unwrap_or_else(|| "main".to_owned());
    Some(GitSnapshot {
        branch: branch.filter(|b| !b.is_empty()),
        main_branch,
        status: cap_status(status.unwrap_or_default()),
        recent_commits: log.unwrap_or_default(),
    })
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
