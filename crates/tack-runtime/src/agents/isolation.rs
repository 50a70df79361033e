//! `isolation: worktree` (an agent definition's, or an Agent call's): the
//! sub-agent works in a git worktree of its own,
//! `.claude/worktrees/agent-<id>/` on branch `worktree-agent-<id>` from
//! HEAD, so agents running side by side never edit the same files. When it
//! ends, a worktree it left unchanged is removed with its branch; one it
//! changed is kept, and its path and branch are in the Agent call's result.
//! The ignored files `.worktreeinclude` names are copied in, as for
//! `--worktree`.

use std::path::PathBuf;

use tack_tool::ToolEnv;

use tack_git::worktree::{self, Worktree};

/// A sub-agent's worktree while it runs.
pub(crate) struct Isolated {
    worktree: Worktree,
    /// The worktree's copy of the parent's folder: the sub-agent's cwd.
    pub cwd: PathBuf,
}

/// A worktree kept because its agent changed something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptWorktree {
    pub path: PathBuf,
    pub branch: String,
}

/// Makes the worktree for agent `agent_id` of a session running in `parent`'s
/// folder.
pub(crate) async fn enter(parent: &ToolEnv, agent_id: &str) -> Result<Isolated, String> {
    let cwd = parent.cwd();
    let made = async {
        let root = worktree::repo_root(&cwd).await?;
        let (path, branch) = worktree::named_location(&root, &format!("agent-{agent_id}"))?;
        let worktree = worktree::create(&root, &path, "HEAD", Some(&branch)).await?;
        // Best effort, as Claude Code: the agent can work without a `.env`.
        let _ = worktree::copy_included(&root, &path).await;
        let cwd = worktree::matching_folder(&path, &root, &cwd);
        Ok::<_, worktree::WorktreeError>(Isolated { worktree, cwd })
    };
    made.await
        .map_err(|e| format!("cannot give the agent a worktree (isolation: worktree): {e}"))
}

impl Isolated {
    /// Removes the worktree and its branch if nothing changed; else keeps it.
    /// A worktree that cannot be checked is kept (nothing is lost).
    pub(crate) async fn settle(self) -> Option<KeptWorktree> {
        let kept = KeptWorktree {
            path: self.worktree.path.clone(),
            branch: self.worktree.branch.clone().unwrap_or_default(),
        };
        match self.worktree.has_changes().await {
            Ok(false) => match self.worktree.remove(true).await {
                Ok(()) => None,
                Err(_) => Some(kept),
            },
            Ok(true) | Err(_) => Some(kept),
        }
    }
}

/// The agent's final text, with where its changes are when it kept a worktree.
pub(crate) fn with_worktree_note(text: &str, kept: Option<&KeptWorktree>) -> String {
    match kept {
        None => text.to_owned(),
        Some(k) => format!(
            "{text}\n\nThe agent worked in a git worktree, kept because it changed files: {} \
             (branch {}).",
            k.path.display(),
            k.branch
        ),
    }
}
