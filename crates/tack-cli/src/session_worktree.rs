//! `--worktree [name]`: the session runs in a new git worktree of the
//! repository, as Claude Code's `-w` does: `.claude/worktrees/<name>/` at the
//! repository's root, on branch `worktree-<name>`, from the settings'
//! `worktree.baseRef`, or in the folder the settings' WorktreeCreate hooks
//! make. When the session ends, a worktree with no change is removed (and
//! the WorktreeRemove hooks told); one with changes is kept and named on
//! stderr. How it is made and removed is the runtime's
//! ([`tack_runtime::make_worktree`]), the same for sub-agents'.

use std::path::{Path, PathBuf};

use tack_git::worktree;
use tack_runtime::{Env, MadeWorktree, MakeWorktreeError, Place, WorktreeHooks, make_worktree};

use crate::cli::Cli;
use crate::flags;

pub struct SessionWorktree {
    made: MadeWorktree,
    /// Its name (`-w <name>`, or the one made up).
    name: String,
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
    let base = loaded.settings.worktree_base();
    let made = runtime
        .block_on(make_worktree(cwd, &name, base, hooks))
        .map_err(|e| match e {
            MakeWorktreeError::NotARepository(e) => {
                anyhow::Error::new(e).context("--worktree needs a git repository")
            }
            e => anyhow::anyhow!("cannot make the worktree {name}: {e}"),
        })?;
    if let Some(e) = &made.include_error {
        eprintln!("tack: {e}");
    }
    Ok(SessionWorktree {
        cwd: made.cwd.clone(),
        made,
        name,
        started_in: cwd.to_path_buf(),
    })
}

impl SessionWorktree {
    /// The worktree as made.
    pub fn made(&self) -> &MadeWorktree {
        &self.made
    }

    /// The worktree as the `statusLine` command is told it: name, folder,
    /// branch, and the folder and branch the session was started in.
    pub fn status(&self) -> tack_tui::status::Worktree {
        let branch = |dir: &Path| tack_git::head::head(dir).map(|h| h.name().to_owned());
        tack_tui::status::Worktree {
            name: self.name.clone(),
            path: self.made.path().to_string_lossy().into_owned(),
            branch: branch(self.made.path()),
            original_cwd: self.started_in.to_string_lossy().into_owned(),
            original_branch: branch(&self.started_in),
        }
    }

    /// At the session's end: removed if unchanged, else kept and named.
    pub fn leave(self) {
        let path = self.made.path().to_path_buf();
        // Out of the folder before it goes.
        if let Err(e) = std::env::set_current_dir(&self.started_in) {
            eprintln!("tack: the worktree {}: {e}", path.display());
            return;
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        let settled = match runtime {
            Ok(rt) => rt.block_on(self.made.settle()),
            Err(e) => {
                eprintln!("tack: the worktree {}: {e}", path.display());
                return;
            }
        };
        for problem in &settled.problems {
            eprintln!("tack: the worktree {}: {problem}", path.display());
        }
        if let Some(kept) = settled.kept {
            match kept.branch {
                Some(branch) => {
                    eprintln!("Worktree kept at {} (branch {branch})", kept.path.display())
                }
                None => eprintln!("Worktree kept at {}", kept.path.display()),
            }
        }
    }
}
