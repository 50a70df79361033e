//! `--worktree`'s hooks, run before the session exists, from the settings
//! of the folder tack was started in (an untrusted project's hooks are
//! withheld as for the session; plugins' hooks are not read here):
//!
//! - WorktreeCreate (input `name`) makes the worktree instead of git: the
//!   hooks print the folder they made (the last line of stdout, or
//!   `hookSpecificOutput.worktreePath`). A hook that fails, blocks or prints
//!   no existing folder fails the creation, and the session does not start.
//! - WorktreeRemove (input `worktree_path`) runs when a worktree the session
//!   made is removed; it cannot block, and its failures are only reported.

use std::path::{Path, PathBuf};

use tack_hooks::{HookConfigError, HookEvent, HookRunner, HooksConfig};
use tokio_util::sync::CancellationToken;

use crate::config::LoadedSettings;

/// The WorktreeCreate and WorktreeRemove hooks of a session's settings.
pub struct WorktreeHooks {
    runner: HookRunner,
}

impl WorktreeHooks {
    /// The hooks `loaded` configures for the session started in `cwd`;
    /// `None` without any (or with `disableAllHooks`).
    pub fn new(
        cwd: &Path,
        loaded: &LoadedSettings,
    ) -> Result<Option<WorktreeHooks>, HookConfigError> {
        let settings = &loaded.settings;
        if settings.disable_all_hooks() {
            return Ok(None);
        }
        let mut config = HooksConfig::new();
        for (source, hooks) in settings.hooks_by_source() {
            config.merge_value(&source.to_string(), &hooks)?;
        }
        if !config.has_hooks("WorktreeCreate") && !config.has_hooks("WorktreeRemove") {
            return Ok(None);
        }
        let env = settings.env().iter();
        let runner = HookRunner::new(config, &loaded.locations.project_dir, "", Path::new(""))
            .with_cwd(cwd)
            .with_env(env.map(|(k, v)| (k.clone(), v.clone())).collect());
        Ok(Some(WorktreeHooks { runner }))
    }

    /// True when WorktreeCreate hooks make the worktree instead of git.
    pub fn creates(&self) -> bool {
        self.runner.has_hooks("WorktreeCreate")
    }

    /// Runs the WorktreeCreate hooks for the worktree `name`: the folder
    /// they made, or why there is none.
    pub async fn create(&self, name: &str) -> Result<PathBuf, String> {
        let event = HookEvent::WorktreeCreate {
            name: name.to_owned(),
        };
        let outcome = self.runner.run(&event, &CancellationToken::new()).await;
        let mut problems: Vec<String> = outcome.errors().to_vec();
        problems.extend(outcome.blocked());
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        let Some(path) = outcome.worktree_path() else {
            return Err("the WorktreeCreate hook printed no worktree path".to_owned());
        };
        let path = self.runner.cwd().join(path);
        match path.is_dir() {
            true => Ok(path),
            false => Err(format!(
                "the WorktreeCreate hook printed {}, which is not a folder",
                path.display()
            )),
        }
    }

    /// Runs the WorktreeRemove hooks for `path`: what went wrong, for the
    /// user.
    pub async fn remove(&self, path: &Path) -> Vec<String> {
        if !self.runner.has_hooks("WorktreeRemove") {
            return Vec::new();
        }
        let event = HookEvent::WorktreeRemove {
            worktree_path: path.to_string_lossy().into_owned(),
        };
        let outcome = self.runner.run(&event, &CancellationToken::new()).await;
        outcome.errors().to_vec()
    }
}
