//! Git worktrees as Claude Code makes them: `--worktree [name]` (a session
//! in `.claude/worktrees/<name>/` on branch `worktree-<name>`), an agent
//! definition's `isolation: worktree`, and each task of `tack batch`.
//!
//! Every git command runs through the hardened runner ([`crate::run`]):
//! creating a worktree checks files out, and a repository's smudge filters
//! and `post-checkout` hook must not run because tack made one (Claude
//! Code's `-w` runs neither). A file with a filter is checked out as stored.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::run::{GitCommand, GitError};

/// How long one git command may take (a checkout of a large repository).
const GIT_TIMEOUT: Duration = Duration::from_secs(300);
/// The most output one git command may give (the patch of a whole task).
const OUTPUT_CAP: usize = 512 << 20;

#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("{0} is not in a git repository")]
    NotARepository(PathBuf),
    #[error("`git {args}` failed: {error}")]
    Git { args: String, error: GitError },
    #[error("{0}")]
    Io(std::io::Error),
    #[error("worktree name {0:?}: use letters, digits, `.`, `_` and `-` (at most 64)")]
    BadName(String),
}

/// A worktree tack made, and what it needs to report and remove it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// The worktree's folder.
    pub path: PathBuf,
    /// The repository it belongs to (its main work tree's root).
    pub repo: PathBuf,
    /// The branch made for it; `None` for a detached worktree.
    pub branch: Option<String>,
    /// The commit it started from.
    pub base: String,
}

/// Where a named worktree goes and its branch, as Claude Code names them.
pub fn named_location(repo_root: &Path, name: &str) -> Result<(PathBuf, String), WorktreeError> {
    if !is_folder_name(name, 64) {
        return Err(WorktreeError::BadName(name.to_owned()));
    }
    let path = repo_root.join(".claude").join("worktrees").join(name);
    Ok((path, format!("worktree-{name}")))
}

/// Whether `name` is safe as one folder's name: 1 to `max` letters, digits,
/// `.`, `_` and `-`, not starting with `.` (no `..`, no hidden folder).
pub fn is_folder_name(name: &str, max: usize) -> bool {
    !name.is_empty()
        && name.len() <= max
        && !name.starts_with('.')
        && (name.chars()).all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The worktree's copy of `dir`, a folder of the repository rooted at
/// `repo_root` (the worktree's root itself for the root or a folder outside it).
pub fn matching_folder(worktree: &Path, repo_root: &Path, dir: &Path) -> PathBuf {
    match dir.strip_prefix(repo_root) {
        // `join("")` would add a trailing `/`, and the transcripts' folder
        // name is made from the path.
        Ok(below) if !below.as_os_str().is_empty() => worktree.join(below),
        _ => worktree.to_owned(),
    }
}

/// A name for an unnamed worktree: `<adjective>-<verb>-<animal>`, as Claude
/// Code's `bright-running-fox`.
pub fn generated_name() -> String {
    const FIRST: &[&str] = &["bright", "calm", "quick", "bold", "quiet", "keen", "brave"];
    const SECOND: &[&str] = &["running", "jumping", "flying", "diving", "walking"];
    const THIRD: &[&str] = &["fox", "owl", "otter", "heron", "lynx", "wren", "hare"];
    let bytes = uuid::Uuid::new_v4().into_bytes();
    let pick = |list: &[&'static str], b: u8| list[usize::from(b) % list.len()];
    format!(
        "{}-{}-{}-{:02x}",
        pick(FIRST, bytes[0]),
        pick(SECOND, bytes[1]),
        pick(THIRD, bytes[2]),
        bytes[3]
    )
}

/// The root of the work tree holding `dir`.
pub async fn repo_root(dir: &Path) -> Result<PathBuf, WorktreeError> {
    match git(dir, &["rev-parse", "--show-toplevel"]).await {
        Ok(out) => Ok(PathBuf::from(out.trim_end_matches('\n'))),
        Err(WorktreeError::Git {
            error: GitError::Exited { .. },
            ..
        }) => Err(WorktreeError::NotARepository(dir.to_owned())),
        Err(e) => Err(e),
    }
}

/// The commit `rev` names in `repo`.
pub async fn resolve_commit(repo: &Path, rev: &str) -> Result<String, WorktreeError> {
    let spec = format!("{rev}^{{commit}}");
    let out = git(
        repo,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    )
    .await?;
    Ok(out.trim().to_owned())
}

/// Adds a worktree of `repo` at `path`, at commit `base`, on a new `branch`
/// (or detached).
pub async fn create(
    repo: &Path,
    path: &Path,
    base: &str,
    branch: Option<&str>,
) -> Result<Worktree, WorktreeError> {
    let base = resolve_commit(repo, base).await?;
    let path_arg = path.to_string_lossy();
    let mut args = vec!["worktree", "add", "--quiet"];
    match branch {
        Some(branch) => args.extend(["-b", branch]),
        None => args.push("--detach"),
    }
    args.extend(["--", &path_arg, &base]);
    git(repo, &args).await?;
    Ok(Worktree {
        path: path.to_owned(),
        repo: repo.to_owned(),
        branch: branch.map(str::to_owned),
        base,
    })
}

/// A worktree `git worktree list` names: its folder and its branch
/// (`None` when detached).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub path: PathBuf,
    pub branch: Option<String>,
}

/// The worktrees of the repository holding `dir`, the main work tree first.
pub async fn list(dir: &Path) -> Result<Vec<Listed>, WorktreeError> {
    Ok(parse_list(
        &git(dir, &["worktree", "list", "--porcelain"]).await?,
    ))
}

/// `git worktree list --porcelain`: blocks of `worktree <path>`, `HEAD`,
/// `branch refs/heads/<name>` or `detached`, separated by blank lines.
fn parse_list(out: &str) -> Vec<Listed> {
    let mut listed: Vec<Listed> = Vec::new();
    for line in out.lines() {
        if let Some(path) = line.strip_prefix("worktree ") {
            listed.push(Listed {
                path: PathBuf::from(path),
                branch: None,
            });
        } else if let (Some(b), Some(last)) = (line.strip_prefix("branch "), listed.last_mut()) {
            last.branch = Some(b.strip_prefix("refs/heads/").unwrap_or(b).to_owned());
        }
    }
    listed
}

/// Makes `dir` (a copy of a folder outside git) a repository of its own with
/// everything in one commit, so its changes can be listed and diffed as a
/// worktree's are.
pub async fn snapshot(dir: &Path) -> Result<Worktree, WorktreeError> {
    git(dir, &["init", "--quiet"]).await?;
    git(dir, &["add", "-A"]).await?;
    let identity = ["-c", "user.name=tack", "-c", "user.email=tack@localhost"];
    let commit = [
        "commit",
        "--quiet",
        "--no-verify",
        "--allow-empty",
        "-m",
        "base",
    ];
    git(dir, &[&identity[..], &commit[..]].concat()).await?;
    let base = resolve_commit(dir, "HEAD").await?;
    Ok(Worktree {
        path: dir.to_owned(),
        repo: dir.to_owned(),
        branch: None,
        base,
    })
}

/// Clones `url` into `dest` as a bare repository (worktrees are added from it).
pub async fn clone_bare(url: &str, dest: &Path) -> Result<(), WorktreeError> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    let dest = dest.to_string_lossy();
    git(parent, &["clone", "--quiet", "--bare", "--", url, &dest]).await?;
    Ok(())
}

/// `.worktreeinclude` (Claude Code's file at the repository's root,
/// `.gitignore` syntax): the files of `root` that match it and that git
/// ignores (a `.env`, a local config) are copied to the same place in the
/// new worktree at `into`. Regular files only (never a link, which could
/// point outside), never over a file the worktree has. Returns how many.
pub async fn copy_included(root: &Path, into: &Path) -> Result<usize, WorktreeError> {
    let list = root.join(".worktreeinclude");
    if !list.is_file() {
        return Ok(0);
    }
    let exclude_from = format!("--exclude-from={}", list.display());
    let matched = git(
        root,
        &["ls-files", "-z", "--others", "--ignored", &exclude_from],
    )
    .await?;
    if matched.is_empty() {
        return Ok(0);
    }
    let ignored = git_with_input(root, &["check-ignore", "-z", "--stdin"], &matched).await?;
    let mut copied = 0;
    for name in ignored.split('\0').filter(|n| !n.is_empty()) {
        let (from, to) = (root.join(name), into.join(name));
        let regular = std::fs::symlink_metadata(&from).is_ok_and(|m| m.file_type().is_file());
        if !regular || std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(WorktreeError::Io)?;
        }
        std::fs::copy(&from, &to).map_err(WorktreeError::Io)?;
        copied += 1;
    }
    Ok(copied)
}

impl Worktree {
    /// Whether anything changed: a file (tracked or not) or a commit.
    pub async fn has_changes(&self) -> Result<bool, WorktreeError> {
        let status = git(
            &self.path,
            &["status", "--porcelain", "--untracked-files=all"],
        )
        .await?;
        if !status.trim().is_empty() {
            return Ok(true);
        }
        let head = resolve_commit(&self.path, "HEAD").await?;
        Ok(head != self.base)
    }

    /// Everything the worktree changed since its base, new files included, as
    /// a patch `git apply` takes (`--binary`). Stages the changes to list the
    /// new files; the worktree is about to be reported or removed.
    pub async fn diff(&self) -> Result<String, WorktreeError> {
        git(&self.path, &["add", "-A"]).await?;
        // The safe configuration blanks `diff.external`, which `diff` would
        // then try to run: no external diff, no textconv filter.
        let args = [
            "diff",
            "--cached",
            "--binary",
            "--no-ext-diff",
            "--no-textconv",
        ];
        git(&self.path, &[&args[..], &[&self.base]].concat()).await
    }

    /// Removes the worktree (and its branch when `delete_branch`).
    pub async fn remove(&self, delete_branch: bool) -> Result<(), WorktreeError> {
        let path = self.path.to_string_lossy();
        let removed = git(&self.repo, &["worktree", "remove", "--force", "--", &path]).await;
        if removed.is_err() {
            // Half-made or already gone: drop the folder, then git's record.
            let _ = std::fs::remove_dir_all(&self.path);
            git(&self.repo, &["worktree", "prune"]).await?;
        }
        if delete_branch && let Some(branch) = &self.branch {
            git(&self.repo, &["branch", "-D", "--", branch]).await?;
        }
        Ok(())
    }
}

/// Clears what a killed run may have left at `path`, a worktree of `repo`:
/// the folder, then git's record of it (even a locked one, as a `worktree
/// add` killed half-way leaves it). Nothing there is not an error.
pub async fn clear_leftover(repo: &Path, path: &Path) -> Result<(), WorktreeError> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(WorktreeError::Io(e));
        }
        _ => {}
    }
    let path_arg = path.to_string_lossy();
    let args = ["worktree", "remove", "--force", "--force", "--", &path_arg];
    // Fails when git has no record of it, which is what is wanted.
    let _ = git(repo, &args).await;
    Ok(())
}

/// Runs `git` in `dir`, hardened; its stdout on success.
async fn git(dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
    git_with_input(dir, args, "").await
}

/// [`git`] with `input` on its stdin.
async fn git_with_input(dir: &Path, args: &[&str], input: &str) -> Result<String, WorktreeError> {
    let mut command = GitCommand::new(dir, args, GIT_TIMEOUT).output_cap(OUTPUT_CAP);
    if !input.is_empty() {
        command = command.stdin(input.as_bytes());
    }
    let fail = |error| WorktreeError::Git {
        args: args.join(" "),
        error,
    };
    let out = command.run().await.map_err(fail)?;
    // `check-ignore` exits 1 when it matched nothing: an empty answer.
    if args.first() == Some(&"check-ignore") && out.code == 1 {
        return Ok(out.stdout);
    }
    out.success().map_err(fail)
}

#[cfg(test)]
#[path = "worktree_tests.rs"]
mod tests;
