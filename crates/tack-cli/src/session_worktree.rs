//! `--worktree [name]`: the session runs in a new git worktree of the
//! repository, as Claude Code's `-w` does: `.claude/worktrees/<name>/` at the
//! repository's root, on branch `worktree-<name>`. Its base is the settings'
//! `worktree.baseRef`: `fresh` (the default) is the remote's default branch
//! when the repository knows it (`origin/HEAD`, not fetched: opening a
//! repository sends nothing) or else HEAD; `head` is local HEAD. When the
//! session ends, a worktree with no change (no edit, no new file, no commit)
//! is removed with its branch; one with changes is kept and named on stderr.
//! The ignored files `.worktreeinclude` names (a `.env`) are copied in first.
//!
//! WorktreeCreate hooks in the settings make the worktree instead of git
//! (whatever they print is the session's folder; they may work in any
//! version control); WorktreeRemove hooks run when a worktree is removed.
//! A hook-made worktree that is a git checkout with no change is handed to
//! the WorktreeRemove hooks at the end (tack removes nothing it did not
//! make); any other is kept and named.

use std::path::{Path, PathBuf};

use anyhow::Context;
use tack_config::WorktreeBase;
use tack_git::worktree::{self, Worktree};
use tack_runtime::{Env, Place, WorktreeHooks};

use crate::cli::Cli;
use crate::flags;

pub struct SessionWorktree {
    worktree: Worktree,
    /// Made by WorktreeCreate hooks, not by git.
    by_hook: bool,
    hooks: Option<WorktreeHooks>,
    /// The folder tack was started in (left for at the end, before removal).
    started_in: PathBuf,
    /// Where the session runs: the worktree's copy of the folder tack was
    /// started in.
    pub cwd: PathBuf,
}

/// Makes the worktree for a session started in `cwd`, under the settings
/// `cli` names.
pub fn enter(cwd: &Path, name: &str, cli: &Cli) -> anyhow::Result<SessionWorktree> {
    let place = Place::new(cwd.to_path_buf(), Env::from_process())?;
    let sources = flags::setting_sources(cli)?;
    let loaded =
        tack_runtime::load_settings_from(&place, cli.settings.as_deref(), sources.as_deref())?;
    let hooks = WorktreeHooks::new(cwd, &loaded)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let name = match name {
        "" => worktree::generated_name(),
        name => name.to_owned(),
    };
    runtime.block_on(async {
        if let Some(h) = hooks.as_ref().filter(|h| h.creates()) {
            let path = h
                .create(&name)
                .await
                .map_err(|e| anyhow::anyhow!("cannot make the worktree {name}: {e}"))?;
            // What a git checkout's changes are measured from (none: not git).
            let base = worktree::resolve_commit(&path, "HEAD").await.ok();
            let worktree = Worktree {
                repo: path.clone(),
                path: path.clone(),
                branch: None,
                base: base.unwrap_or_default(),
            };
            return Ok(SessionWorktree {
                worktree,
                by_hook: true,
                hooks,
                started_in: cwd.to_path_buf(),
                cwd: path,
            });
        }
        let root = worktree::repo_root(cwd)
            .await
            .context("--worktree needs a git repository")?;
        let (path, branch) = worktree::named_location(&root, &name)?;
        if path.exists() {
            anyhow::bail!("the worktree {} exists already", path.display());
        }
        let fresh = match loaded.settings.worktree_base() {
            WorktreeBase::Fresh => worktree::resolve_commit(&root, "refs/remotes/origin/HEAD")
                .await
                .ok(),
            WorktreeBase::Head => None,
        };
        let base = fresh.unwrap_or_else(|| "HEAD".to_owned());
        let worktree = worktree::create(&root, &path, &base, Some(&branch))
            .await
            .with_context(|| format!("cannot make the worktree {}", path.display()))?;
        if let Err(e) = worktree::copy_included(&root, &path).await {
            eprintln!("tack: .worktreeinclude: {e}");
        }
        let cwd = worktree::matching_folder(&path, &root, cwd);
        Ok(SessionWorktree {
            worktree,
            by_hook: false,
            hooks,
            started_in: cwd.to_path_buf(),
            cwd,
        })
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
        let unchanged = match (self.by_hook, wt.base.is_empty()) {
            (true, true) => false,
            (true, false) | (false, _) => !wt.has_changes().await?,
        };
        if !unchanged {
            match &wt.branch {
                Some(branch) => {
                    eprintln!("Worktree kept at {} (branch {branch})", wt.path.display())
                }
                None => eprintln!("Worktree kept at {}", wt.path.display()),
            }
            return Ok(());
        }
        // Out of the folder before it goes.
        std::env::set_current_dir(&self.started_in)?;
        if !self.by_hook {
            wt.remove(true).await?;
        }
        if let Some(hooks) = &self.hooks {
            for problem in hooks.remove(&wt.path).await {
                eprintln!("tack: {problem}");
            }
        }
        Ok(())
    }
}
