//! The worktree a background session made (`tack --bg -w NAME`), recorded
//! in its job folder (`worktree.json`) so that `rm` can settle it as the
//! session would have at its end, had it not been killed: removed with its
//! branch when nothing changed in it, kept (and said so) when something did.
//! A session that ends on its own (`stop`, its input's end) settles its
//! worktree itself; WorktreeCreate hooks' worktrees are theirs to remove.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use tack_git::worktree::Worktree;
use tack_runtime::MadeWorktree;

const FILE: &str = "worktree.json";

/// `worktree.json`: the worktree and where its changes are measured from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Record {
    path: PathBuf,
    repo: PathBuf,
    branch: Option<String>,
    base: String,
}

/// Records the worktree `made` in the job folder `job` (`--bg-job`), if
/// this process is a background session and git made it.
pub fn record(job: Option<&Path>, made: &MadeWorktree) -> anyhow::Result<()> {
    let (Some(job), Some(wt)) = (job, made.git_worktree()) else {
        return Ok(());
    };
    let dir = super::session::job_dir(job)?;
    let record = Record {
        path: wt.path.clone(),
        repo: wt.repo.clone(),
        branch: wt.branch.clone(),
        base: wt.base.clone(),
    };
    let text = serde_json::to_vec_pretty(&record)?;
    tack_sys::atomic_write::write_atomic_private(&dir.join(FILE), &text)
        .with_context(|| format!("cannot write {}", dir.join(FILE).display()))
}

/// What became of the job's worktree, for `rm` to say (`None`: it had
/// none, or it is gone already).
pub fn settle(job: &Path) -> Option<String> {
    let text = std::fs::read(job.join(FILE)).ok()?;
    let record: Record = serde_json::from_slice(&text).ok()?;
    if !record.path.exists() {
        return None;
    }
    let where_ = match &record.branch {
        Some(branch) => format!("{} (branch {branch})", record.path.display()),
        None => record.path.display().to_string(),
    };
    let wt = Worktree {
        path: record.path,
        repo: record.repo,
        branch: record.branch,
        base: record.base,
    };
    let settled = async {
        match wt.has_changes().await {
            Ok(false) => match wt.remove(true).await {
                Ok(()) => format!("removed worktree {where_}"),
                Err(e) => format!("kept worktree {where_}: cannot remove it: {e}"),
            },
            Ok(true) => format!("kept worktree {where_}: it has changes"),
            Err(e) => format!("kept worktree {where_}: cannot tell whether it changed: {e}"),
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    Some(match runtime {
        Ok(runtime) => runtime.block_on(settled),
        Err(e) => format!("kept worktree {where_}: {e}"),
    })
}
