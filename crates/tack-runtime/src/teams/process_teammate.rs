//! A teammate in a process of its own (`teammateMode` `tmux`, or `auto`
//! inside tmux): the lead starts a background session for it,
//! `<tack> --bg -n <name> --model <model> [--permission-mode <mode>] --
//! <prompt>`, told who it is by the team's variables
//! (`CLAUDE_CODE_TEAM_NAME`, `CLAUDE_CODE_AGENT_NAME`,
//! `CLAUDE_CODE_AGENT_COLOR`, `CLAUDE_CODE_TASK_LIST_ID` the team's list).
//! Its member entry says `backendType: "tmux"` and `tmuxPaneId` its pane
//! (`%N`) or `""` (Claude Code's, for pane teammates). Inside tmux a pane
//! attached to it opens beside the lead's (`tmux split-window -d`).
//!
//! The lead sees its state from the job's `state.json`, watched with
//! inotify (no polling): `busy`/`waiting` is working, `idle` idle, and the
//! process's end (`ended`, or `killed` as `tack agents` reads a dead row)
//! stopped, then left. A process that dies without saying so (`kill -9`)
//! is seen through a pidfd on it (`super::left`): its row is marked
//! `killed`, which the row's watch reads as stopped, then left. While it
//! runs, the lead's session expects arrivals (a `-p` lead waits for it, as
//! for an in-process teammate).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};

use tack_tool::Arrivals;

use super::backend::TeammateCommand;
use super::enlist::{Backing, Enlisted, Joining, enlist, set_pane};
use super::left;
use super::session::Messaging;
use super::watch;
use crate::event::{TeammateEvent, TeammateState};

/// Claude Code's `backendType` for a teammate in a terminal pane.
pub(crate) const BACKEND_TYPE: &str = "tmux";

/// How the teammate's process starts.
pub(crate) struct Spawning<'a> {
    pub joining: Joining<'a>,
    pub command: &'a TeammateCommand,
    /// Open a tmux pane attached to it.
    pub pane: bool,
    /// The lead's permission mode, which it starts in.
    pub permission_mode: String,
    /// The lead's arrivals: its session waits while the teammate runs.
    pub arrivals: Arrivals,
}

/// The teammate started.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spawned {
    /// `<name>@<team>`.
    pub agent_id: String,
    /// Its background job (`tack attach <job_id>`).
    pub job_id: String,
    /// Its tmux pane, when one opened.
    pub pane: Option<String>,
    /// Why no pane opened, when one should have.
    pub pane_error: Option<String>,
}

/// Adds the teammate to the team and starts its background session.
pub(crate) async fn spawn(lead: &Arc<Messaging>, s: Spawning<'_>) -> Result<Spawned, String> {
    let backing = Backing {
        backend_type: BACKEND_TYPE,
        tmux_pane_id: "",
    };
    let Enlisted { team, name, color } = enlist(lead, &s.joining, backing)?;
    let mut command = tokio::process::Command::new(&s.command.program);
    command
        .args(&s.command.args)
        .args(["--bg", "-n", &name, "--model", s.joining.model])
        .args(["--permission-mode", &s.permission_mode])
        .arg("--")
        .arg(s.joining.prompt)
        .env("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1")
        .env("CLAUDE_CODE_TEAM_NAME", team.name())
        .env("CLAUDE_CODE_AGENT_NAME", &name)
        .env("CLAUDE_CODE_AGENT_COLOR", &color)
        .env("CLAUDE_CODE_TASK_LIST_ID", team.name())
        .current_dir(&s.joining.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = command
        .output()
        .await
        .map_err(|e| format!("Could not start {}: {e}", s.command.program.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(job_id) = job_id(&stdout).filter(|_| out.status.success()) else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "The teammate's background session did not start ({}): {}",
            out.status,
            stderr.trim()
        ));
    };
    let job = job_dir(lead.claude_dir(), &job_id);
    let (pane, pane_error) = match s.pane {
        true => {
            let program = &s.command.program;
            let opened = match serving(&job).await {
                Ok(()) => open_pane(program, &job_id, lead.claude_dir(), &s.joining.cwd).await,
                Err(e) => Err(e),
            };
            match opened {
                Ok(pane) => (Some(pane.clone()), set_pane(&team, &name, &pane).err()),
                Err(e) => (None, Some(e)),
            }
        }
        false => (None, None),
    };
    lead.joined(TeammateEvent {
        team_name: team.name().to_string(),
        name: name.clone(),
        state: TeammateState::Joined,
        color: Some(color),
        agent_type: s.joining.agent_type.to_string(),
        backend_type: BACKEND_TYPE.into(),
    });
    let state = job.join("state.json");
    follow(lead, &name, &state, s.arrivals)?;
    left::watch_exit(&state)?;
    Ok(Spawned {
        agent_id: super::files::config::agent_id(&name, team.name()),
        job_id,
        pane,
        pane_error,
    })
}

/// The id in the launcher's `backgrounded · <id>` line.
fn job_id(stdout: &str) -> Option<String> {
    let line = stdout.lines().next()?;
    let id = line.strip_prefix("backgrounded · ")?.trim();
    let ok = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric());
    ok.then(|| id.to_string())
}

/// `<claude dir>/jobs/<id>`, where the background session keeps its row.
fn job_dir(claude_dir: &Path, id: &str) -> PathBuf {
    claude_dir.join("jobs").join(id)
}

/// How long a pane waits for the teammate's session to listen.
const SERVING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits (inotify on the job folder) until the session's socket is there,
/// then until it answers: `tack attach` refuses a session that does not
/// serve yet. The socket file appears at `bind`, a moment before `listen`:
/// that moment is waited out in steps of 5 ms (at most 100).
async fn serving(job: &Path) -> Result<(), String> {
    let socket = job.join("session.sock");
    let (tx, rx) = tokio::sync::oneshot::channel();
    let tx = Mutex::new(Some(tx));
    let path = socket.clone();
    let watch = watch::watch_file(
        &socket,
        Arc::new(move || {
            let there = path.exists();
            let taken = there.then(|| tx.lock().unwrap_or_else(PoisonError::into_inner).take());
            if let Some(tx) = taken.flatten() {
                let _ = tx.send(());
            }
            !there
        }),
    )
    .map_err(|e| format!("cannot watch {}: {e}", job.display()))?;
    let waited = tokio::time::timeout(SERVING_TIMEOUT, rx).await;
    watch.abort();
    if !matches!(waited, Ok(Ok(()))) {
        return Err(format!("its session made no socket {}", socket.display()));
    }
    for _ in 0..100 {
        if tokio::net::UnixStream::connect(&socket).await.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    Err(format!(
        "its session does not answer on {}",
        socket.display()
    ))
}

/// Opens a pane beside the lead's that attaches to the job; its id (`%N`).
/// The pane's shell has the tmux server's environment, not the lead's: it
/// is told the config dir the job is in.
async fn open_pane(
    program: &Path,
    job_id: &str,
    claude_dir: &Path,
    cwd: &Path,
) -> Result<String, String> {
    let attach = format!(
        "{} attach {job_id}",
        shell_quote(&program.display().to_string())
    );
    let out = tokio::process::Command::new("tmux")
        .args(["split-window", "-d", "-P", "-F", "#{pane_id}", "-c"])
        .arg(cwd)
        .arg("-e")
        .arg(format!("CLAUDE_CONFIG_DIR={}", claude_dir.display()))
        .arg(attach)
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|e| format!("tmux: {e}"))?;
    let pane = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !pane.starts_with('%') {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("tmux split-window failed: {}", stderr.trim()));
    }
    Ok(pane)
}

/// `text` as one word for `sh -c` (tmux runs the pane's command so).
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Turns each change of the job's row into the teammate's state, until its
/// process is gone; the lead expects arrivals meanwhile.
fn follow(
    lead: &Arc<Messaging>,
    name: &str,
    state: &Path,
    arrivals: Arrivals,
) -> Result<(), String> {
    let dir = state.parent().unwrap_or(state);
    let expecting = Mutex::new(Some(arrivals.expect()));
    let worked = std::sync::atomic::AtomicBool::new(false);
    let team = lead.member().map(|m| m.team.clone());
    let (lead, name, path) = (Arc::downgrade(lead), name.to_string(), state.to_path_buf());
    let on_change = Arc::new(move || {
        let Some(lead) = lead.upgrade() else {
            return false;
        };
        let Some(status) = read_status(&path) else {
            return true;
        };
        let states = states_of(&status);
        // A first turn over before the row was read (`busy` then `idle`
        // between two reads) was still worked: the lead sees it so.
        let first = states.first().copied();
        if !worked.swap(true, std::sync::atomic::Ordering::Relaxed)
            && first.is_some_and(|s| s != TeammateState::Working)
        {
            lead.set_state(&name, TeammateState::Working);
        }
        for state in states {
            lead.set_state(&name, *state);
        }
        let gone = states_of(&status).contains(&TeammateState::Left);
        if gone {
            left::inactive(team.as_ref(), &name);
            expecting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
        }
        !gone
    });
    watch::watch_file(&dir.join("state.json"), on_change)
        .map(drop)
        .map_err(|e| {
            format!(
                "The teammate's job folder {} is not watched: {e}",
                dir.display()
            )
        })
}

/// The row's `status`, `None` while it cannot be read (mid-replace).
fn read_status(path: &Path) -> Option<String> {
    let row = left::read_row(path)?;
    row.get("status")?.as_str().map(str::to_string)
}

/// What a row's `status` says of the teammate, in order.
fn states_of(status: &str) -> &'static [TeammateState] {
    match status {
        "busy" | "waiting" | "running" => &[TeammateState::Working],
        "idle" => &[TeammateState::Idle],
        "ended" | "killed" => &[TeammateState::Stopped, TeammateState::Left],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launchers_line_names_the_job() {
        assert_eq!(job_id("backgrounded · 0a1b2c3d\n"), Some("0a1b2c3d".into()));
        assert_eq!(
            job_id("backgrounded · 0a1b2c3d\n  tack agents\n"),
            Some("0a1b2c3d".into())
        );
        assert_eq!(job_id("backgrounded · ../x\n"), None);
        assert_eq!(job_id("error\n"), None);
        assert_eq!(job_id(""), None);
    }

    #[test]
    fn a_rows_status_is_the_teammates_state() {
        use TeammateState::*;
        let got: Vec<_> = ["busy", "waiting", "idle", "ended", "killed", "odd"]
            .map(states_of)
            .to_vec();
        assert_eq!(
            got,
            [
                &[Working][..],
                &[Working],
                &[Idle],
                &[Stopped, Left],
                &[Stopped, Left],
                &[],
            ]
        );
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }
}
