//! `isolation: worktree` (an agent definition's, or an Agent call's): the
//! sub-agent works in a worktree of its own, `agent-<id>`, made and removed
//! as `--worktree`'s is ([`crate::made_worktree`]): by the session's
//! WorktreeCreate hooks if it has any, else by git at
//! `.claude/worktrees/agent-<id>/` on branch `worktree-agent-<id>` from the
//! settings' `worktree.baseRef`; so agents running side by side never edit
//! the same files. When it ends, a worktree it left unchanged is removed
//! (and the WorktreeRemove hooks told); one it changed is kept, and its path
//! (and branch) are in the Agent call's result.

use tack_tool::ToolEnv;

use super::AgentsShared;
use crate::event::Notice;
use crate::made_worktree::{KeptWorktree, MadeWorktree, make_worktree};
use crate::worktree_hooks::WorktreeHooks;

/// Makes the worktree for agent `agent_id` of a session running in `parent`'s
/// folder.
pub(crate) async fn enter(
    shared: &AgentsShared,
    parent: &ToolEnv,
    agent_id: &str,
) -> Result<MadeWorktree, String> {
    let hooks = shared.hooks.as_ref().and_then(WorktreeHooks::of_session);
    let name = format!("agent-{agent_id}");
    // A `.worktreeinclude` that cannot be copied is best effort, as in
    // Claude Code: the agent can work without a `.env`.
    make_worktree(&parent.cwd(), &name, shared.worktree_base, hooks)
        .await
        .map_err(|e| format!("cannot give the agent a worktree (isolation: worktree): {e}"))
}

/// Removes the worktree if nothing changed; else keeps it. What went wrong
/// is the session's notice.
pub(crate) async fn settle(shared: &AgentsShared, made: MadeWorktree) -> Option<KeptWorktree> {
    let path = made.path().to_path_buf();
    let settled = made.settle().await;
    for problem in settled.problems {
        shared.emit.notice(Notice::warning(format!(
            "warning: the agent's worktree {}: {problem}",
            path.display()
        )));
    }
    settled.kept
}

/// The agent's final text, with where its changes are when it kept a worktree.
pub(crate) fn with_worktree_note(text: &str, kept: Option<&KeptWorktree>) -> String {
    match kept {
        None => text.to_owned(),
        Some(KeptWorktree {
            path,
            branch: Some(branch),
        }) => format!(
            "{text}\n\nThe agent worked in a git worktree, kept because it changed files: {} \
             (branch {branch}).",
            path.display()
        ),
        // A hook-made worktree: tack cannot always tell what changed in it.
        Some(KeptWorktree { path, branch: None }) => format!(
            "{text}\n\nThe agent worked in a worktree its WorktreeCreate hook made, kept: {}.",
            path.display()
        ),
    }
}
