//! `tack agents [--json [--all]]`, `logs <id>`, `stop <id>`, `rm <id>`
//! (`respawn`: `respawn.rs`): each
//! reads the job folders (never a daemon's memory) and talks to a session
//! only through its process (a signal) or its transcript.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::Value;
use tack_runtime::Place;

use tack_sys::terminal_text::visible;

use super::job::{self, JobState, State, Status};
use crate::cli::BackgroundCommand;

/// How long `stop` lets a session end itself before killing it.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Runs one of the background commands.
pub fn run(place: &Place, command: &BackgroundCommand) -> anyhow::Result<ExitCode> {
    let jobs = job::jobs_dir(&place.claude_dir);
    match command {
        BackgroundCommand::Agents { json, all } => {
            agents(&jobs, *json, *all, place.home_dir.as_deref())
        }
        BackgroundCommand::Logs { id } => {
            find(&jobs, id).and_then(|(_, state)| logs(place, &state))
        }
        BackgroundCommand::Stop { id } => {
            find(&jobs, id).and_then(|(dir, state)| stop(&dir, &state))
        }
        BackgroundCommand::Rm { id } => find(&jobs, id).and_then(|(dir, state)| rm(&dir, &state)),
        BackgroundCommand::Respawn { id: Some(id), .. } => {
            find(&jobs, id).and_then(|row| super::respawn::run(place, vec![row], false))
        }
        BackgroundCommand::Respawn { id: None, .. } => {
            super::respawn::run(place, rows(&jobs), true)
        }
    }?;
    Ok(ExitCode::SUCCESS)
}

/// Every job's row as it stands (a dead process read as killed).
fn rows(jobs: &Path) -> Vec<(PathBuf, JobState)> {
    job::list(jobs)
        .into_iter()
        .map(|(dir, state)| {
            let alive = job::alive(state.pid, &dir);
            (dir, state.seen(alive))
        })
        .collect()
}

fn agents(jobs: &Path, json: bool, all: bool, home: Option<&Path>) -> anyhow::Result<()> {
    let shown: Vec<JobState> = rows(jobs)
        .into_iter()
        .map(|(_, state)| state)
        .filter(|state| all || !state.ended())
        .collect();
    if json {
        let rows: Vec<_> = shown.iter().map(JobState::row).collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    if shown.is_empty() {
        println!("No background sessions.");
        return Ok(());
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    print!("{}", super::table::render(&shown, now, home));
    Ok(())
}

/// The job `key` names: its id; else the one job whose id starts with it,
/// whose name is it, or (failing those) whose name contains it. Several
/// matches are listed, to be told apart.
pub(super) fn find(jobs: &Path, key: &str) -> anyhow::Result<(PathBuf, JobState)> {
    if job::is_valid_id(key) {
        let dir = jobs.join(key);
        if let Ok(state) = JobState::read(&dir) {
            let alive = job::alive(state.pid, &dir);
            return Ok((dir, state.seen(alive)));
        }
    }
    if key.is_empty() {
        bail!("name a background session: its id or its name");
    }
    let all = rows(jobs);
    let tries: [&dyn Fn(&JobState) -> bool; 3] =
        [&|s| s.id.starts_with(key), &|s| s.name == key, &|s| {
            s.name.contains(key)
        }];
    for matches in tries {
        let mut found: Vec<&(PathBuf, JobState)> = all.iter().filter(|(_, s)| matches(s)).collect();
        match found.len() {
            0 => continue,
            1 => return Ok(found.remove(0).clone()),
            n => {
                let list: Vec<String> = found
                    .iter()
                    .map(|(_, s)| format!("  {}  {}", s.id, visible(&s.name)))
                    .collect();
                bail!(
                    "{n} background sessions match {key}; use the id:\n{}",
                    list.join("\n")
                );
            }
        }
    }
    bail!("no background session {key}")
}

/// The conversation so far, read from the session's transcript.
fn logs(place: &Place, state: &JobState) -> anyhow::Result<()> {
    let Some(session_id) = &state.session_id else {
        bail!("background session {} has not started yet", state.id);
    };
    let path = place
        .session_store()
        .find_session(&state.cwd, session_id)
        .with_context(|| format!("no transcript of background session {}", state.id))?;
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = String::new();
    for line in text.lines() {
        if let Ok(record) = serde_json::from_str::<Value>(line) {
            conversation_lines(&record, &mut out);
        }
    }
    print!("{}", visible(&out));
    Ok(())
}

/// What one transcript record adds to `logs`: the user's words after `> `,
/// the assistant's text, its tool calls as `⏺ Name`.
fn conversation_lines(record: &Value, out: &mut String) {
    let kind = record["type"].as_str().unwrap_or_default();
    if !matches!(kind, "user" | "assistant")
        || record["isSidechain"] == Value::Bool(true)
        || record["isMeta"] == Value::Bool(true)
    {
        return;
    }
    let content = &record["message"]["content"];
    let blocks = match content {
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        _ => return,
    };
    for block in blocks {
        match (kind, block["type"].as_str(), block["text"].as_str()) {
            ("user", Some("text"), Some(text)) => out.push_str(&format!("> {text}\n")),
            ("assistant", Some("text"), Some(text)) => out.push_str(&format!("{text}\n")),
            ("assistant", Some("tool_use"), _) => {
                let name = block["name"].as_str().unwrap_or_default();
                out.push_str(&format!("⏺ {name}\n"));
            }
            _ => {}
        }
    }
}

/// Ends the session: SIGTERM (it interrupts its turn and ends as a session
/// does, its tools with it, and writes its row), then, if it is still there
/// after the grace, SIGKILL to its process group and every process it left.
fn stop(dir: &Path, state: &JobState) -> anyhow::Result<()> {
    if job::alive(state.pid, dir) {
        let pid = i32::try_from(state.pid).context("not a process id")?;
        let left = tack_sys::reaper::running_descendants(pid);
        // SAFETY: kill() with a pid that was checked to be the session's.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        if !gone_within(state.pid, dir, STOP_GRACE) {
            tack_sys::process_group::signal_group(pid, libc::SIGKILL);
            for child in left
                .into_iter()
                .chain(tack_sys::reaper::running_descendants(pid))
            {
                // SAFETY: kill() touches no memory; a pid gone since is ESRCH.
                unsafe { libc::kill(child, libc::SIGKILL) };
            }
        }
        // Killed before it could say so (the grace ran out, or the signal came
        // before the session watched for it): the row says it was stopped.
        if let Ok(last) = JobState::read(dir)
            && !last.ended()
        {
            let mut ended = last;
            ended.status = Status::Ended;
            ended.state = State::Stopped;
            ended.write(dir)?;
        }
    }
    println!("stopped {}", state.id);
    Ok(())
}

fn gone_within(pid: u32, dir: &Path, grace: Duration) -> bool {
    let until = Instant::now() + grace;
    while Instant::now() < until {
        if !job::alive(pid, dir) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !job::alive(pid, dir)
}

/// Removes an ended session's folder (its socket and state with it) and
/// the worktree it made if nothing changed there.
fn rm(dir: &Path, state: &JobState) -> anyhow::Result<()> {
    if job::alive(state.pid, dir) {
        bail!(
            "background session {} is running: `tack stop {}` first",
            state.id,
            state.id
        );
    }
    if let Some(said) = super::worktree::settle(dir) {
        println!("{said}");
    }
    std::fs::remove_dir_all(dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    println!("removed {}", state.id);
    Ok(())
}
