//! The background session process (`tack --bg-job DIR`, started by
//! `--bg`): the session served on the job's socket as `--serve` serves one,
//! its prompt submitted at once, and `state.json` kept by this process from
//! the session's own events (no model call to classify it). SIGTERM (what
//! `tack stop` sends) interrupts the turn, ends the session's input and lets
//! the server's handle go, so the session ends as any session does: transcript flushed, tools' process
//! groups killed, then every descendant (`main`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use tack_runtime::{
    LoadedSettings, Notifier, Place, RuntimeEvent, SessionChoice, SessionOptions, SessionState,
    UserInput,
};

use super::job::{self, JobState, State, Status};

/// Runs the job in `dir` with `prompt` (none: it waits for an attach).
pub async fn run(
    place: Place,
    loaded: LoadedSettings,
    options: SessionOptions,
    dir: PathBuf,
    prompt: Option<String>,
    name: Option<String>,
) -> anyhow::Result<ExitCode> {
    let id = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    // The launcher's row, or this one if the session is first.
    let launchers = JobState::read(&dir).ok();
    let first = launchers.is_none();
    let fresh = || {
        let state = JobState::launched(&id, 0, place.cwd.clone(), prompt.as_deref());
        match &name {
            Some(name) => state.named(name),
            None => state,
        }
    };
    let own = |state| owned_by_this_process(state, &place, &options, prompt.is_none());
    let mut tracker = Tracker {
        state: own(launchers.unwrap_or_else(fresh)),
        dir: dir.clone(),
        notifier: None,
        logged: None,
    };
    // Watched from here on (before, SIGTERM ends the process and `stop`
    // writes the row).
    let stopping = AtomicBool::new(false);
    let stop = sigterm(&stopping);
    if first {
        tracker.save_first(own);
    } else {
        tracker.save();
    }
    let socket = job::socket_path(&dir);
    // A socket left by a killed session of this job is in the way.
    let _ = std::fs::remove_file(&socket);
    let listener = tack_runtime::serve::bind(&socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    let runtime = match tack_runtime::start(place, &loaded, options).await {
        Ok(runtime) => runtime,
        Err(e) => {
            tracker.end(State::Failed);
            let _ = std::fs::remove_file(&socket);
            return Err(e.into());
        }
    };
    tracker.notifier = Some(runtime.notifier());
    let (handle, events) = runtime.spawn();
    if let Some(prompt) = prompt {
        let _ = handle.submit(UserInput::text(prompt));
    }
    let served =
        tack_runtime::serve::serve_observed(listener, handle, events, stop, |event, open_asks| {
            tracker.observe(event, open_asks)
        })
        .await;
    let _ = std::fs::remove_file(&socket);
    let last = if stopping.load(Ordering::Relaxed) {
        State::Stopped
    } else {
        tracker.state.state
    };
    tracker.end(last);
    served.with_context(|| format!("serving {}", socket.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// What this process owns in its job's row, whoever wrote the row first:
/// its pid, where it works (a `--worktree` session's worktree: where its
/// transcript is kept, and where `respawn` starts it again), its session id
/// (known before it starts, whether new or resumed: `/bg`, `respawn`), and
/// idle when it has no prompt (a respawned session's cut turn is not re-run).
fn owned_by_this_process(
    mut state: JobState,
    place: &Place,
    options: &SessionOptions,
    waits: bool,
) -> JobState {
    state.pid = std::process::id();
    state.cwd = place.cwd.clone();
    if waits {
        state = super::respawn::waiting(state, std::process::id());
    }
    if let (None, SessionChoice::New { id: Some(id) } | SessionChoice::Resume(id)) =
        (&state.session_id, &options.conversation.session)
    {
        state.session_id = Some(id.clone());
    }
    state
}

/// Watches SIGTERM (what `tack stop` sends) from now on; the future is
/// ready at the signal, having noted it, and never if it cannot be watched.
fn sigterm(stopping: &AtomicBool) -> impl std::future::Future<Output = ()> + '_ {
    use tokio::signal::unix::{SignalKind, signal};
    let term = signal(SignalKind::terminate());
    async move {
        let Ok(mut term) = term else {
            return std::future::pending().await;
        };
        if term.recv().await.is_none() {
            return std::future::pending().await;
        }
        stopping.store(true, Ordering::Relaxed);
    }
}

/// `state.json`, written again whenever an event changes it, and the
/// Notification hooks Claude Code fires for a background session: when it
/// starts waiting for an answer (`agent_needs_input`) and when its work
/// ends (`agent_completed`).
struct Tracker {
    state: JobState,
    dir: PathBuf,
    notifier: Option<Notifier>,
    /// The state `timeline.jsonl` last got.
    logged: Option<State>,
}

impl Tracker {
    /// `event`, after which `open_asks` questions wait for an answer.
    fn observe(&mut self, event: &RuntimeEvent, open_asks: usize) {
        let mut next = self.state.clone();
        match event {
            RuntimeEvent::Started(info) => next.session_id = Some(info.session_id.clone()),
            RuntimeEvent::ConversationReset(reset) => {
                next.session_id = Some(reset.new_session_id.clone());
            }
            RuntimeEvent::SessionState(SessionState::Running) => {
                next.status = Status::Busy;
                next.state = State::Working;
            }
            RuntimeEvent::SessionState(SessionState::Idle) => {
                next.status = Status::Idle;
                // Waiting may last hours: the binary's pages go back to
                // the page cache, the next turn faults in what it needs.
                tack_sys::idle_pages::page_out_executable();
            }
            RuntimeEvent::TurnEnded(end) => {
                next.state = if end.ok { State::Done } else { State::Failed };
                let said = end.record.result.as_deref().or(end.error_line.as_deref());
                next.detail = said.map(job::first_line);
                next.output = said.map(|text| job::cut(text, job::MAX_OUTPUT));
            }
            RuntimeEvent::Input(input) => {
                next.detail = Some(job::first_line(&input.message.text()))
            }
            RuntimeEvent::PermissionRequest(asked) => {
                next.detail = Some(format!("Waiting for permission: {}", asked.tool_name));
            }
            _ => {}
        }
        match (open_asks, next.state) {
            (1.., State::Working) => next.state = State::Blocked,
            // Answered or withdrawn: the turn goes on.
            (0, State::Blocked) => next.state = State::Working,
            _ => {}
        }
        next.status = match (next.status, next.state) {
            (Status::Busy, State::Blocked) => Status::Waiting,
            (Status::Waiting, state) if state != State::Blocked => Status::Busy,
            (status, _) => status,
        };
        let notice = match (self.state.state, next.state, event) {
            (_, _, RuntimeEvent::TurnEnded(_)) => Some(("agent_completed", "has finished")),
            (State::Blocked, State::Blocked, _) => None,
            (_, State::Blocked, _) => Some(("agent_needs_input", "needs your input")),
            _ => None,
        };
        if next != self.state {
            self.state = next;
            self.save();
        }
        if let (Some((kind, what)), Some(notifier)) = (notice, &self.notifier) {
            let name = match self.state.name.as_str() {
                "" => self.state.id.clone(),
                name => format!("{name} ({})", self.state.id),
            };
            notifier.notify(kind, format!("Background session {name} {what}"));
        }
    }

    /// The process is ending on its own, its last work in `state`.
    /// Saves a row this process made because the launcher had written
    /// none: only if there is still none, else the launcher's row (written
    /// meanwhile) with `own` applied, so the row's `startedAt` and
    /// anything else the launcher set stay as the launcher wrote them.
    fn save_first(&mut self, own: impl FnOnce(JobState) -> JobState) {
        if let Ok(false) = self.state.write_new(&self.dir)
            && let Ok(launchers) = JobState::read(&self.dir)
        {
            self.state = own(launchers);
        }
        self.save();
    }

    fn end(&mut self, state: State) {
        self.state.state = state;
        self.state.status = Status::Ended;
        self.save();
    }

    fn save(&mut self) {
        // Nothing to tell: the session goes on without its row.
        let _ = self.state.write(&self.dir);
        if self.logged != Some(self.state.state) {
            self.logged = Some(self.state.state);
            let _ = self.state.append_timeline(&self.dir);
        }
    }
}

/// Marks the job in `dir` failed and ended, unless its session already
/// wrote an end: what `agents` shows of a session whose settings, flags or
/// credentials kept it from starting (the error is in its `err.log`). The
/// row is written whole if the launcher has not written it yet.
pub fn failed_to_start(dir: &Path, prompt: Option<&str>) {
    if job_dir(dir).is_err() {
        return;
    }
    let mut state = JobState::read(dir).unwrap_or_else(|_| {
        let id = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let cwd = std::env::current_dir().unwrap_or_default();
        JobState::launched(id, std::process::id(), cwd, prompt)
    });
    if state.status != Status::Ended {
        state.state = State::Failed;
        state.status = Status::Ended;
        let _ = state.write(dir);
    }
}

/// The job folder `--bg-job` names, checked to be one.
pub fn job_dir(path: &Path) -> anyhow::Result<PathBuf> {
    let id = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if !job::is_valid_id(id) || !path.is_dir() {
        anyhow::bail!("{} is not a background job's folder", path.display());
    }
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The session read no row, then the launcher wrote its own before the
    /// session's first save: the launcher's row stays (its `startedAt` is
    /// what `agents` showed a moment ago), with the session's pid.
    #[test]
    fn a_row_the_launcher_wrote_meanwhile_is_kept_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let launcher = JobState {
            started_at: 1_765_000_000_000,
            session_id: Some("s-1".to_owned()),
            ..JobState::launched("0a1b2c3d", 10, PathBuf::from("/p"), None)
        };
        let sessions = JobState {
            started_at: 1_765_000_000_009,
            ..JobState::launched("0a1b2c3d", 0, PathBuf::from("/p"), None)
        };
        assert!(launcher.write_new(dir.path()).unwrap());
        let mut tracker = Tracker {
            state: sessions,
            dir: dir.path().to_owned(),
            notifier: None,
            logged: None,
        };
        tracker.save_first(|state| JobState { pid: 20, ..state });
        let saved = JobState::read(dir.path()).unwrap();
        let expected = JobState {
            pid: 20,
            updated_at: saved.updated_at.clone(),
            ..launcher.clone()
        };
        assert_eq!((&tracker.state, &saved), (&expected, &expected));
        // First, it is the session's row the launcher keeps.
        let dir = tempfile::tempdir().unwrap();
        tracker.dir = dir.path().to_owned();
        tracker.save_first(|_| unreachable!("no row to adopt"));
        assert!(!launcher.write_new(dir.path()).unwrap());
        assert_eq!(JobState::read(dir.path()).unwrap().pid, 20);
    }
}
