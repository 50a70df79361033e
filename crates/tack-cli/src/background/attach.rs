//! The job-folder side of attaching and detaching: which live session
//! `tack attach <id|name>` connects to (the terminal UI itself is
//! `interactive::attach`), and `/bg`'s hand-off of a terminal's session to a
//! new background session that resumes it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use anyhow::bail;

use super::job::{self, JobState};

/// A live background session to attach to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The job's id.
    pub id: String,
    /// Its socket (`session.sock`).
    pub socket: PathBuf,
    /// Where the session runs.
    pub cwd: PathBuf,
    /// Its transcript's id, as its row says.
    pub session_id: Option<String>,
}

/// The live session `key` (as `commands::find` reads it); a session
/// whose process is gone is an error that says how to bring it back.
pub fn target(claude_dir: &Path, key: &str) -> anyhow::Result<Target> {
    let (dir, state) = super::commands::find(&job::jobs_dir(claude_dir), key)?;
    let id = &state.id;
    if !job::alive(state.pid, &dir) {
        match (state.status, &state.session_id) {
            (job::Status::Ended, Some(session)) => bail!(
                "background session {id} has ended: `tack logs {id}` shows it, `tack -r {session}` continues it"
            ),
            (job::Status::Ended, None) => bail!("background session {id} has ended"),
            (
                job::Status::Killed | job::Status::Busy | job::Status::Waiting | job::Status::Idle,
                _,
            ) => bail!(
                "background session {id} is not running (it was killed): `tack respawn {id}` resumes it"
            ),
        }
    }
    Ok(Target {
        id: state.id.clone(),
        socket: job::socket_path(&dir),
        cwd: state.cwd,
        session_id: state.session_id,
    })
}

/// `/bg`: starts a background session in `cwd` that resumes `session_id`
/// (its transcript complete: the terminal's session has ended), with
/// `flags` besides; no prompt is sent. Its row is named `name`. Returns the
/// job's id. The process that calls this leaves the new session running at
/// its exit (`super::launched`).
pub fn hand_off(
    claude_dir: &Path,
    cwd: &Path,
    session_id: &str,
    name: &str,
    flags: Vec<OsString>,
) -> anyhow::Result<String> {
    let (id, dir) = super::launch::new_job_dir(claude_dir)?;
    let mut args = flags;
    args.extend([
        // Its row's name even if the session writes it before this does.
        "--name".into(),
        job::label(name).into(),
        "--bg-job".into(),
        dir.clone().into_os_string(),
        "-r".into(),
        session_id.into(),
    ]);
    // What `respawn` starts it with again, as for `--bg`.
    super::kept_args::keep(&dir, &args)?;
    let child = super::launch::spawn_detached(&args, &dir, cwd, None)?;
    super::LAUNCHED.store(true, Ordering::Relaxed);
    let mut state = JobState::launched(&id, child, cwd.to_path_buf(), None);
    state.session_id = Some(session_id.to_owned());
    state.name = job::label(name);
    state.write_new(&dir)?;
    Ok(id)
}
