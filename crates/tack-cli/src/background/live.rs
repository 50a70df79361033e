//! A session a background process is running is not resumed by another
//! process: two writers would interleave one transcript (Claude Code
//! refuses the same way and names the commands that reach it).

use std::path::Path;

use super::job;

/// Refuses `--resume session_id` while a live background session holds it.
pub fn check_resume(claude_dir: &Path, session_id: &str) -> anyhow::Result<()> {
    match holder(claude_dir, session_id) {
        Some(id) => anyhow::bail!(
            "Session {session_id} is running as a background session ({id}). \
             Run `tack attach {id}` to open it, or `tack stop {id}` first."
        ),
        None => Ok(()),
    }
}

/// The job id of the live background session that holds `session_id`.
fn holder(claude_dir: &Path, session_id: &str) -> Option<String> {
    job::list(&job::jobs_dir(claude_dir))
        .into_iter()
        .find(|(dir, state)| {
            state.session_id.as_deref() == Some(session_id) && job::alive(state.pid, dir)
        })
        .map(|(_, state)| state.id)
}
