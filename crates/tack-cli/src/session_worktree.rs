//! `--worktree [name]`: the session runs in a new git worktree of the
//! repository, as Claude Code's `-w` does: `.claude/worktrees/<name>/` at the
//! repository's root, on branch `worktree-<name>`, from the remote's default
//! branch when the repository knows it (`origin/HEAD`, not fetched: opening a
//! repository sends nothing) or else HEAD. When the session ends, a worktree
//! with no change (no edit, no new file, no commit) is removed with its
//! branch; one with changes is kept and named on stderr. The ignored files
//! `.worktreeinclude` names (a `.env`) are copied in first.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tack_git::worktree::{self, Worktree};

pub struct SessionWorktree {
    worktree: Worktree,
    /// Where the session runs: the worktree's copy of the folder tack was
    /// started in.
    pub cwd: PathBuf,
}

/// Makes the worktree for a session started in `cwd`.
pub fn enter(cwd: &Path, name: &str) -> anyhow::Result<SessionWorktree> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let root = worktree::repo_root(cwd)
            .await
            .context("--worktree needs a git repository")?;
        let name = match name {
            "" => worktree::generated_name(),
            name => name.to_owned(),
        };
        let (path, branch) = worktree::named_location(&root, &name)?;
        if path.exists() {
            anyhow::bail!("the worktree {} exists already", path.display());
        }
        let base = match worktree::resolve_commit(&root, "refs/remotes/origin/HEAD").await {
            Ok(commit) => commit,
            Err(_) => "HEAD".to_owned(),
        };
        let worktree = worktree::create(&root, &path, &base, Some(&branch))
            .await
            .with_context(|| format!("cannot make the worktree {}", path.display()))?;
        if let Err(e) = worktree::copy_included(&root, &path).await {
            eprintln!("tack: .worktreeinclude: {e}");
        }
        let cwd = worktree::matching_folder(&path, &root, cwd);
        Ok(SessionWorktree { worktree, cwd })
    })
}

impl SessionWorktree {
    /// At the session's end: removed if unchanged, else kept and named.
    pub fn leave(self) {
        let result = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(anyhow::Error::from)
            .and_then(|rt| rt.block_on(self.settle()));
        if let Err(e) = result {
            eprintln!("tack: the worktree {}: {e:#}", self.worktree.path.display());
        }
    }

    async fn settle(&self) -> anyhow::Result<()> {
        let wt = &self.worktree;
        if wt.has_changes().await? {
            let branch = wt.branch.as_deref().unwrap_or("");
            eprintln!("Worktree kept at {} (branch {branch})", wt.path.display());
        } else {
            // Out of the folder before it goes.
            std::env::set_current_dir(&wt.repo)?;
            wt.remove(true).await?;
        }
        Ok(())
    }
}
