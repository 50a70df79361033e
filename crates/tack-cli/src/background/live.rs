//! A session a background process is running is not resumed by another
//! process: two writers would interleave one transcript (Claude Code
//! refuses the same way and names the commands that reach it).

use std::path::Path;

use tack_runtime::Place;

use super::job;

/// Refuses `--resume session_id` (`None`: `--continue`, the newest session
/// of `cwd`) while a live background session holds it.
pub fn check_resume(place: &Place, cwd: &Path, session_id: Option<&str>) -> anyhow::Result<()> {
    let newest;
    let session_id = match session_id {
        Some(id) => id,
        None => match place.session_store().latest_session(cwd) {
            Ok(summary) => {
                newest = summary.session_id;
                &newest
            }
            // Nothing to continue: the session says so itself.
            Err(_) => return Ok(()),
        },
    };
    match holder(&place.claude_dir, session_id) {
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
