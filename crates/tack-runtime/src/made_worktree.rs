//! The worktrees tack makes, one way for both: `--worktree [name]`'s for the
//! session and an `isolation: worktree` sub-agent's (`agent-<id>`).
//!
//! - Made by the WorktreeCreate hooks when there are any (whatever folder
//!   they print is the worktree; they may work in any version control),
//!   else by git: `.claude/worktrees/<name>/` at the repository's root, on
//!   branch `worktree-<name>`, from the settings' `worktree.baseRef`:
//!   `fresh` (the default) is the remote's default branch when the
//!   repository knows it (`origin/HEAD`, not fetched: nothing is sent) or
//!   else HEAD; `head` is local HEAD. The ignored files `.worktreeinclude`
//!   names (a `.env`) are copied into a git-made one.
//! - At the end, a worktree with no change (no edit, no new file, no commit)
//!   is removed: git's with its branch, then the WorktreeRemove hooks are
//!   told; a hook-made one that is a git checkout is handed to the
//!   WorktreeRemove hooks alone (tack removes nothing it did not make). One
//!   with changes, a hook-made one that is not a git checkout, and one that
//!   cannot be checked or removed are kept (nothing is lost).

use std::path::{Path, PathBuf};

use tack_config::WorktreeBase;
use tack_git::worktree::{self, Worktree, WorktreeError};

use crate::worktree_hooks::WorktreeHooks;

/// A worktree tack made, until it is settled.
pub struct MadeWorktree {
    worktree: Worktree,
    /// Made by WorktreeCreate hooks, not by git.
    by_hook: bool,
    hooks: Option<WorktreeHooks>,
    /// Where to work: the worktree's copy of the folder it was made from
    /// (a hook-made worktree's own folder).
    pub cwd: PathBuf,
    /// The `.worktreeinclude` files could not all be copied in (the
    /// worktree is usable without them).
    pub include_error: Option<String>,
}

/// Why no worktree was made.
#[derive(Debug, thiserror::Error)]
pub enum MakeWorktreeError {
    /// A WorktreeCreate hook failed, blocked, or printed no folder.
    #[error("{0}")]
    Hook(String),
    /// No hook makes it, and the folder is not in a git repository.
    #[error(transparent)]
    NotARepository(WorktreeError),
    #[error("the worktree {} exists already", .0.display())]
    Exists(PathBuf),
    /// The name, or git's `worktree add`.
    #[error(transparent)]
    Git(WorktreeError),
}

/// A worktree kept at its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptWorktree {
    pub path: PathBuf,
    /// `None` for a hook-made worktree.
    pub branch: Option<String>,
}

/// What became of a worktree at its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// `None`: it was removed.
    pub kept: Option<KeptWorktree>,
    /// What went wrong on the way (a check or a removal that failed, a
    /// WorktreeRemove hook's failures), for the user.
    pub problems: Vec<String>,
}

/// Makes the worktree `name` for work in `from`, with `base` and `hooks`.
pub async fn make_worktree(
    from: &Path,
    name: &str,
    base: WorktreeBase,
    hooks: Option<WorktreeHooks>,
) -> Result<MadeWorktree, MakeWorktreeError> {
    if let Some(h) = hooks.as_ref().filter(|h| h.creates()) {
        let path = h.create(name).await.map_err(MakeWorktreeError::Hook)?;
        // What a git checkout's changes are measured from (none: not git).
        let base = worktree::resolve_commit(&path, "HEAD").await.ok();
        let worktree = Worktree {
            repo: path.clone(),
            path: path.clone(),
            branch: None,
            base: base.unwrap_or_default(),
        };
        return Ok(MadeWorktree {
            worktree,
            by_hook: true,
            hooks,
            cwd: path,
            include_error: None,
        });
    }
    let root = worktree::repo_root(from)
        .await
        .map_err(MakeWorktreeError::NotARepository)?;
    let (path, branch) = worktree::named_location(&root, name).map_err(MakeWorktreeError::Git)?;
    if path.exists() {
        return Err(MakeWorktreeError::Exists(path));
    }
    let fresh = match base {
        WorktreeBase::Fresh => worktree::resolve_commit(&root, "refs/remotes/origin/HEAD")
            .await
            .ok(),
        WorktreeBase::Head => None,
    };
    let base = fresh.unwrap_or_else(|| "HEAD".to_owned());
    let worktree = worktree::create(&root, &path, &base, Some(&branch))
        .await
        .map_err(MakeWorktreeError::Git)?;
    let include_error = worktree::copy_included(&root, &path)
        .await
        .err()
        .map(|e| format!(".worktreeinclude: {e}"));
    Ok(MadeWorktree {
        cwd: worktree::matching_folder(&path, &root, from),
        worktree,
        by_hook: false,
        hooks,
        include_error,
    })
}

impl MadeWorktree {
    /// The worktree's folder.
    pub fn path(&self) -> &Path {
        &self.worktree.path
    }

    /// The git worktree tack made (`None`: WorktreeCreate hooks made it, and
    /// only they remove it): what a record of it needs to settle it later.
    pub fn git_worktree(&self) -> Option<&Worktree> {
        (!self.by_hook).then_some(&self.worktree)
    }

    /// Removes it whatever it holds (git's with its branch), then tells the
    /// WorktreeRemove hooks; what went wrong, for the user. ExitWorktree's
    /// `remove` once the model has been told what would be lost.
    pub async fn remove(self) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.by_hook
            && let Err(e) = self.worktree.remove(true).await
        {
            problems.push(format!("cannot remove it: {e}"));
        }
        if let Some(hooks) = &self.hooks {
            problems.extend(hooks.remove(&self.worktree.path).await);
        }
        problems
    }

    /// At its end: removed if unchanged, else kept. Whoever works in it has
    /// left it already.
    pub async fn settle(self) -> Settled {
        let wt = &self.worktree;
        let kept = |problems: Vec<String>| Settled {
            kept: Some(KeptWorktree {
                path: wt.path.clone(),
                branch: wt.branch.clone(),
            }),
            problems,
        };
        if self.by_hook && wt.base.is_empty() {
            return kept(Vec::new());
        }
        match wt.has_changes().await {
            Ok(false) => {}
            Ok(true) => return kept(Vec::new()),
            Err(e) => return kept(vec![format!("cannot tell whether it changed: {e}")]),
        }
        if !self.by_hook
            && let Err(e) = wt.remove(true).await
        {
            return kept(vec![format!("cannot remove it: {e}")]);
        }
        let problems = match &self.hooks {
            Some(hooks) => hooks.remove(&wt.path).await,
            None => Vec::new(),
        };
        Settled {
            kept: None,
            problems,
        }
    }
}
