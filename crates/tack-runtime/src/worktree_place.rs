//! The session moved folder (EnterWorktree, ExitWorktree): it is in the new
//! folder everywhere, not only for its tools.
//!
//! Claude Code clears its cwd-dependent system prompt sections when it enters
//! a worktree and computes them again; tack does the same with the parts of
//! the prompt context that name the folder: the system prompt layers (the
//! environment section's working directory) and the git snapshot. The user
//! context (memory files, date) went with the first prompt and stays. The
//! transcript's records name the new folder and its branch from the next one
//! written (`transcript.rs` reads the move from the tool env), hooks run
//! there with it as their `cwd`, and auto mode's classifier is told the new
//! folder and its git state as the session's working directory.

use std::path::Path;

use tack_core::context::{ContextOptions, load_context};
use tack_tool::{EnteredWorktree, MovedPrompt, ToolEnv};

use crate::gate::Gate;
use crate::hooks::SessionHooks;

/// Moves the main session of `env` to `cwd` (in `worktree`, or back out of
/// it): its hooks, its prompt computed with the options its prompt context
/// was loaded with, and what auto mode's classifier (the gate's) reads of
/// where it runs; front ends read the worktree from the session's snapshot.
/// A sub-agent's worktree moves only its own tools (its prompt is its
/// definition's, its hooks the session's).
pub(crate) async fn session_moved(
    options: &ContextOptions,
    (hooks, gate): (Option<&SessionHooks>, Option<&Gate>),
    env: &ToolEnv,
    cwd: &Path,
    worktree: Option<EnteredWorktree>,
) {
    if env.agent().is_some() {
        return;
    }
    if let Some(hooks) = hooks {
        hooks.moved(cwd);
    }
    let mut options = options.clone();
    options.cwd = cwd.to_path_buf();
    options.system_prompt.cwd = cwd.to_path_buf();
    options.include_memory_files = false;
    options.git_prefetch = None;
    let context = load_context(&options).await.context;
    if let Some(gate) = gate {
        let git = context.system_context.as_deref();
        gate.tell_auto_environment(Some(cwd), git);
    }
    env.prompt_place().moved(MovedPrompt {
        cwd: cwd.to_path_buf(),
        system_prompt: context.system_prompt,
        system_context: context.system_context,
        worktree,
    });
}
