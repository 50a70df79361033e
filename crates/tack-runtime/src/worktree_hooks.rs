//! The WorktreeCreate and WorktreeRemove hooks, for the worktrees
//! [`crate::made_worktree`] makes: `--worktree`'s run before the session
//! exists, from the settings of the folder tack was started in (an untrusted
//! project's hooks are withheld as for the session; plugins' hooks are not
//! read there); an `isolation: worktree` sub-agent's are the session's own
//! hooks (plugins' included).
//!
//! - WorktreeCreate (input `name`) makes the worktree instead of git: the
//!   hooks print the folder they made (the last line of stdout, or
//!   `hookSpecificOutput.worktreePath`). A hook that fails, blocks or prints
//!   no existing folder fails the creation, and the session does not start.
//! - WorktreeRemove (input `worktree_path`) runs when a worktree the session
//!   made is removed; it cannot block, and its failures are only reported.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_hooks::{HookConfigError, HookEvent, HookOutcome, HookRunner, HooksConfig};
use tokio_util::sync::CancellationToken;

use crate::config::LoadedSettings;
use crate::hooks::SessionHooks;

/// The WorktreeCreate and WorktreeRemove hooks of a session's settings.
pub struct WorktreeHooks {
    runner: Runner,
}

/// Who runs the hooks.
enum Runner {
    /// Read from the settings before the session exists (`--worktree`).
    Settings(Box<HookRunner>),
    /// The session's (a sub-agent's worktree): its failures are the
    /// session's notices too.
    Session(Arc<SessionHooks>),
}

impl Runner {
    fn has(&self, event: &str) -> bool {
        match self {
            Runner::Settings(r) => r.has_hooks(event),
            Runner::Session(h) => h.has(event),
        }
    }

    /// The folder the hooks run in (a relative path they print is in it).
    fn cwd(&self) -> PathBuf {
        match self {
            Runner::Settings(r) => r.cwd().to_path_buf(),
            Runner::Session(h) => h.cwd(),
        }
    }

    async fn run(&self, event: &HookEvent) -> HookOutcome {
        let cancel = CancellationToken::new();
        match self {
            Runner::Settings(r) => r.run(event, &cancel).await,
            Runner::Session(h) => h.run(event, &cancel).await,
        }
    }
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
        Ok(Some(WorktreeHooks {
            runner: Runner::Settings(Box::new(runner)),
        }))
    }

    /// The session's own hooks, for its sub-agents' worktrees; `None` when
    /// it has neither event's.
    pub(crate) fn of_session(hooks: &Arc<SessionHooks>) -> Option<WorktreeHooks> {
        (hooks.has("WorktreeCreate") || hooks.has("WorktreeRemove")).then(|| WorktreeHooks {
            runner: Runner::Session(hooks.clone()),
        })
    }

    /// True when WorktreeCreate hooks make the worktree instead of git.
    pub fn creates(&self) -> bool {
        self.runner.has("WorktreeCreate")
    }

    /// Runs the WorktreeCreate hooks for the worktree `name`: the folder
    /// they made, or why there is none.
    pub async fn create(&self, name: &str) -> Result<PathBuf, String> {
        let event = HookEvent::WorktreeCreate {
            name: name.to_owned(),
        };
        let outcome = self.runner.run(&event).await;
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
    /// user (nothing for the session's hooks: it reports their failures
    /// itself).
    pub async fn remove(&self, path: &Path) -> Vec<String> {
        if !self.runner.has("WorktreeRemove") {
            return Vec::new();
        }
        let event = HookEvent::WorktreeRemove {
            worktree_path: path.to_string_lossy().into_owned(),
        };
        let outcome = self.runner.run(&event).await;
        match &self.runner {
            Runner::Settings(_) => outcome.errors().to_vec(),
            Runner::Session(_) => Vec::new(),
        }
    }
}
