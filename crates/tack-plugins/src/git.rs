//! Cloning a marketplace or a plugin with the real `git`, treating the
//! repository as hostile: tack-git's runner (no hooks, no filters, no
//! `ext::` transport, only the file, git, http(s) and ssh protocols, no
//! terminal prompt for credentials, a timeout that stops the whole process
//! group), no submodules, and the URL after `--` so it is never read as an
//! option.

use std::path::Path;
use std::time::Duration;

use tack_git::run::{GitCommand, GitError, GitOutput};

use crate::error::InstallError;

/// How long one git command may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// Output kept per stream (a clone's progress is on stderr).
const OUTPUT_CAP: usize = 64 * 1024;

/// Clones `url` into `dest` (which must not exist) at `git_ref` (a branch or
/// tag; default: the remote's HEAD), then checks out `sha` when given.
/// Returns the commit checked out.
pub fn clone(
    url: &str,
    git_ref: Option<&str>,
    sha: Option<&str>,
    dest: &Path,
    timeout: Duration,
) -> Result<String, InstallError> {
    if url.starts_with('-') {
        return Err(InstallError::refused(format!("`{url}` is not a git URL")));
    }
    let dest_text = dest.to_string_lossy().into_owned();
    let mut args = vec!["clone", "--no-recurse-submodules", "--quiet"];
    if sha.is_none() {
        args.extend(["--depth", "1"]);
    }
    if let Some(r) = git_ref {
        args.extend(["--branch", r]);
    }
    args.extend(["--", url, dest_text.as_str()]);
    let cwd = dest.parent().unwrap_or(Path::new("/"));
    run(&format!("clone {url}"), &args, cwd, timeout)?;
    if let Some(sha) = sha {
        if !sha.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(InstallError::refused(format!(
                "`{sha}` is not a commit SHA"
            )));
        }
        run(
            "checkout",
            &["checkout", "--quiet", "--detach", sha],
            dest,
            timeout,
        )?;
    }
    head(dest, timeout)
}

/// The commit checked out in `repo`, if it is a git repository.
pub fn head(repo: &Path, timeout: Duration) -> Result<String, InstallError> {
    run("rev-parse", &["rev-parse", "HEAD"], repo, timeout).map(|out| out.trim().to_owned())
}

/// `git <args>` in `cwd` through tack-git's hardened runner (no hooks, no
/// filters, no `ext::`, only the usual protocols, no prompt, a timeout);
/// its stdout. `action` is what a failure names (`clone <url>`).
fn run(action: &str, args: &[&str], cwd: &Path, timeout: Duration) -> Result<String, InstallError> {
    GitCommand::new(cwd, args, timeout)
        .output_cap(OUTPUT_CAP)
        .run_blocking()
        .and_then(GitOutput::success)
        .map_err(|e| InstallError::Git {
            action: action.to_owned(),
            message: match e {
                GitError::TimedOut(after) => format!("timed out after {after:?}"),
                other => other.to_string(),
            },
        })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// A server that takes connections and never answers; its URL.
    fn stalling() -> (std::net::TcpListener, String) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/market.git", listener.local_addr().unwrap());
        (listener, url)
    }

    #[test]
    fn a_clone_that_stalls_says_what_timed_out_and_after_how_long() {
        let (_listener, url) = stalling();
        let dir = tempfile::tempdir().unwrap();
        let started = std::time::Instant::now();
        let error = clone(
            &url,
            None,
            None,
            &dir.path().join("repo"),
            Duration::from_millis(500),
        )
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(
            error.to_string(),
            format!("git clone {url} failed: timed out after 500ms")
        );
    }
}
