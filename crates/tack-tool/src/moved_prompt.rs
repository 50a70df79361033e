//! Where the session moved to (EnterWorktree, ExitWorktree) and what the
//! system prompt says there: the parts of the prompt context that depend on
//! the working directory, recomputed for the new one.
//!
//! The tool that moves the session computes them and sets them on the
//! session's [`ToolEnv`](crate::ToolEnv); the loop reads them before each
//! request, so the request right after the move already describes the new
//! folder; the transcript's records name its folder from then on. A `cd` in
//! Bash moves the cwd but none of these (the prompt's cache prefix stays), as
//! Claude Code's prompt sections are recomputed only when cleared.

use std::sync::{Arc, Mutex, PoisonError};

/// The folder the session moved to, and the cwd-dependent parts of the
/// prompt context there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedPrompt {
    /// The session's folder (the worktree's copy of the one it started in).
    pub cwd: std::path::PathBuf,
    /// The system prompt layers (the environment section names the folder).
    pub system_prompt: Vec<String>,
    /// The git snapshot of the folder (`None`: not a repository, or git off).
    pub system_context: Option<String>,
    /// The worktree EnterWorktree moved the session into; `None` once
    /// ExitWorktree moved it back.
    pub worktree: Option<EnteredWorktree>,
}

/// A worktree the session is in by EnterWorktree, as a statusLine command
/// is told it (Claude Code's `worktree` object).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EnteredWorktree {
    /// The name given to EnterWorktree, or the folder's name of one it
    /// switched into.
    pub name: String,
    pub path: std::path::PathBuf,
    /// `None` where git has none (detached, or a hook's folder).
    pub branch: Option<String>,
    /// Where the session was before.
    pub original_cwd: std::path::PathBuf,
    pub original_branch: Option<String>,
}

/// The latest [`MovedPrompt`], shared by the tools that move the session and
/// the loop that sends its requests. Empty until the first move.
#[derive(Debug, Clone, Default)]
pub struct PromptPlace(Arc<Mutex<Option<Arc<MovedPrompt>>>>);

impl PromptPlace {
    /// The prompt for the folder the session moved to last, if it moved.
    pub fn current(&self) -> Option<Arc<MovedPrompt>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The session moved: requests from now on carry `prompt`.
    pub fn moved(&self, prompt: MovedPrompt) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(prompt));
    }
}
