//! `tack respawn [id|name|--all]`: a background session whose process died
//! without ending (`kill -9`, a reboot, the OOM killer) is started again in
//! its own job folder as `tack [its flags] --bg-job DIR -r <sessionId>`
//! (the flags it was launched with, minus its prompt and session choice:
//! `args.json`, `kept_args.rs`) and its team variables (`env.json`,
//! `kept_env.rs`: a teammate rejoins its team), with no prompt: it resumes from its
//! transcript, where everything it wrote is, and waits for an attach. A turn
//! the kill cut short is not re-run (its prompt is in the transcript; the
//! model is not asked again until someone says so). Only a session killed
//! before its prompt reached the transcript gets its prompt again.

use std::path::{Path, PathBuf};

use anyhow::bail;
use tack_runtime::Place;

use super::job::{JobState, State, Status};
use super::launch;

/// Respawns `rows` (as `agents` sees them): with `all`, those that were
/// killed, others passed over; else each, or says why not.
pub fn run(place: &Place, rows: Vec<(PathBuf, JobState)>, all: bool) -> anyhow::Result<()> {
    let store = place.session_store();
    let mut respawned = 0;
    for (dir, state) in rows {
        match why_not(&state) {
            None => {
                let transcript = |id: &str| match store.find_session(&state.cwd, id) {
                    Ok(path) if has_a_prompt(&path) => Transcript::WithPrompt,
                    Ok(_) => Transcript::Empty,
                    Err(_) => Transcript::None,
                };
                respawn(&dir, &state, transcript)?;
                println!("respawned {}", state.id);
                respawned += 1;
            }
            // `--all` passes over live and ended sessions without a word.
            Some(_) if all => {}
            Some(why) => bail!("background session {} {why}: not respawned", state.id),
        }
    }
    if all && respawned == 0 {
        println!("No background session to respawn.");
    }
    Ok(())
}

/// What a session's transcript holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transcript {
    /// Its prompt at least: resumed, the prompt not sent again.
    WithPrompt,
    /// Made, nothing of the conversation in it yet.
    Empty,
    /// Not made.
    None,
}

/// Whether the transcript at `path` holds a user record: a session that had
/// none yet (its file is made empty at start) has nothing to resume.
fn has_a_prompt(path: &Path) -> bool {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    std::io::BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .any(|line| {
            serde_json::from_str::<serde_json::Value>(&line).is_ok_and(|r| r["type"] == "user")
        })
}

/// Why the session (as `agents` sees it) is not one to respawn.
fn why_not(state: &JobState) -> Option<&'static str> {
    match (state.status, &state.session_id) {
        (Status::Killed, Some(_)) => None,
        (Status::Killed, None) => Some("never started a conversation"),
        (Status::Busy | Status::Waiting | Status::Idle, _) => Some("is running"),
        (Status::Ended, _) => Some("ended (resume it with `tack -r` and its sessionId)"),
    }
}

/// Starts the session of `dir` again from its transcript and puts its new
/// pid in the row (unless the session has already written its own).
fn respawn(
    dir: &Path,
    state: &JobState,
    transcript: impl Fn(&str) -> Transcript,
) -> anyhow::Result<()> {
    let Some(session_id) = &state.session_id else {
        bail!("background session {} has no conversation", state.id);
    };
    let (mut args, prompt) = super::kept_args::kept(&super::kept_args::launched(dir));
    args.extend(["--bg-job".into(), dir.as_os_str().to_owned()]);
    let found = transcript(session_id);
    // A transcript is resumed (an empty one starts afresh under its id).
    let choice = if found == Transcript::None {
        "--session-id"
    } else {
        "-r"
    };
    args.extend([choice.into(), session_id.into()]);
    // Killed before its prompt was written: nothing of it was sent or kept,
    // so the prompt goes again.
    if found != Transcript::WithPrompt
        && let Some(prompt) = prompt
    {
        args.extend(["--".into(), prompt]);
    }
    // Its team variables: a teammate rejoins its team as itself.
    let team_vars = super::kept_env::launched(dir);
    let pid = launch::spawn_detached(&args, dir, &state.cwd, Some(team_vars.as_slice()))?;
    let on_disk = JobState::read(dir)?;
    if on_disk.pid == state.pid {
        waiting(on_disk, pid).write(dir)?;
    }
    super::LAUNCHED.store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// The row of a session that runs as `pid` and waits for a prompt: the work
/// it was doing when it died failed.
pub fn waiting(mut state: JobState, pid: u32) -> JobState {
    state.pid = pid;
    state.status = Status::Idle;
    if matches!(state.state, State::Working | State::Blocked) {
        state.state = State::Failed;
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_respawned_row_is_idle_and_its_cut_turn_failed() {
        let row = JobState::launched("0a1b2c3d", 10, PathBuf::from("/p"), Some("go"));
        assert_eq!(
            waiting(row.clone(), 20),
            JobState {
                pid: 20,
                status: Status::Idle,
                state: State::Failed,
                ..row.clone()
            }
        );
        let done = JobState {
            state: State::Done,
            ..row.clone()
        };
        assert_eq!(waiting(done.clone(), 20).state, State::Done);
    }

    #[test]
    fn only_a_killed_session_with_a_conversation_is_respawned() {
        let row = JobState {
            session_id: Some("8f0e0c2a-1111-4222-8333-444455556666".to_owned()),
            ..JobState::launched("0a1b2c3d", 10, PathBuf::from("/p"), Some("go"))
        };
        let with = |status| JobState {
            status,
            ..row.clone()
        };
        assert_eq!(why_not(&with(Status::Killed)), None);
        assert_eq!(why_not(&with(Status::Busy)), Some("is running"));
        assert_eq!(why_not(&with(Status::Idle)), Some("is running"));
        assert!(why_not(&with(Status::Ended)).is_some());
        let never = JobState {
            session_id: None,
            ..with(Status::Killed)
        };
        assert_eq!(why_not(&never), Some("never started a conversation"));
    }
}
