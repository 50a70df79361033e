//! A background session's job folder, `<config dir>/jobs/<id>/`, and its
//! `state.json` in Claude Code's shape: what `agents` lists, written
//! atomically by the session process itself as its state changes.
//!
//! The folder holds `state.json`, the session's socket (`session.sock`, mode
//! 0600) and its output (`out.log`, `err.log`). The list of background
//! sessions is the list of these folders: no daemon keeps it.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// `jobs/` in Claude Code's config dir.
pub fn jobs_dir(claude_dir: &Path) -> PathBuf {
    claude_dir.join("jobs")
}

/// The socket a job's session serves the session protocol on.
pub fn socket_path(job_dir: &Path) -> PathBuf {
    job_dir.join("session.sock")
}

/// A new job id: 8 lowercase hex digits.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..8].to_owned()
}

/// `id` is a job id (8 lowercase hex digits): safe as a folder name.
pub fn is_valid_id(id: &str) -> bool {
    id.len() == 8
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// What the session is doing, as the agent view shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// A turn is running.
    Working,
    /// A question waits for an answer (a permission, a hook callback).
    Blocked,
    /// The last turn ended well.
    Done,
    /// The last turn failed, or the process died mid-turn.
    Failed,
    /// `stop` ended it.
    Stopped,
}

/// Whether the session's process runs, and how it ended (Claude Code's
/// `agents --json` says busy, waiting or idle of a live one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Alive, in a turn.
    #[serde(alias = "running")]
    Busy,
    /// Alive, in a turn that waits for an answer (a permission).
    Waiting,
    /// Alive, waiting for a prompt (attach to send one).
    Idle,
    /// Exited on its own (its input ended, or `stop`).
    Ended,
    /// Gone without saying so (`kill -9`, a crash, the machine slept and
    /// lost it): read, never written by the session.
    Killed,
}

impl Status {
    /// The process runs (or did when the row was written).
    pub fn live(self) -> bool {
        matches!(self, Status::Busy | Status::Waiting | Status::Idle)
    }
}

/// `state.json`: the agent view's row of one background session, and the
/// keys Claude Code's own readers of `state.json` look for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobState {
    pub pid: u32,
    pub id: String,
    pub cwd: PathBuf,
    /// Always `"background"`.
    pub kind: String,
    /// Milliseconds since the Unix epoch.
    pub started_at: u64,
    pub session_id: Option<String>,
    /// A 2-4 word label taken from the prompt (no model call), or `--name`.
    pub name: String,
    pub status: Status,
    pub state: State,
    /// `auto` (the prompt's first words) or `user` (`--name`).
    #[serde(default = "auto")]
    pub name_source: String,
    /// The prompt it was started with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// One line: what it waits for, or the last thing it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The last turn's result (at most [`MAX_OUTPUT`] bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// RFC 3339, as Claude Code writes them.
    #[serde(default)]
    pub created_at: String,
    #[serde(default)]
    pub updated_at: String,
}

/// Now, as `createdAt` and `updatedAt` are written.
fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

fn auto() -> String {
    "auto".to_owned()
}

/// The most of a result `state.json` keeps (it is rewritten at each change;
/// the transcript has all of it).
pub const MAX_OUTPUT: usize = 4096;

/// One row of `agents --json`: Claude Code's keys, no more.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row<'a> {
    pid: u32,
    id: &'a str,
    cwd: &'a Path,
    kind: &'a str,
    started_at: u64,
    session_id: Option<&'a str>,
    name: &'a str,
    status: Status,
    state: State,
}

impl JobState {
    /// A session just launched from `prompt`.
    pub fn launched(id: &str, pid: u32, cwd: PathBuf, prompt: Option<&str>) -> JobState {
        let now = std::time::SystemTime::now();
        let started_at = now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let created_at = now_rfc3339();
        JobState {
            pid,
            id: id.to_owned(),
            cwd,
            kind: "background".to_owned(),
            started_at,
            session_id: None,
            name: label(prompt.unwrap_or_default()),
            status: if prompt.is_some() {
                Status::Busy
            } else {
                Status::Idle
            },
            state: if prompt.is_some() {
                State::Working
            } else {
                State::Done
            },
            name_source: auto(),
            intent: prompt.map(str::to_owned),
            detail: prompt.map(first_line),
            output: None,
            updated_at: created_at.clone(),
            created_at,
        }
    }

    /// Named by the user (`--name`), not from the prompt.
    pub fn named(mut self, name: &str) -> JobState {
        self.name = tack_sys::terminal_text::visible(name).into_owned();
        self.name_source = "user".to_owned();
        self
    }

    /// Its `agents --json` row.
    pub fn row(&self) -> Row<'_> {
        Row {
            pid: self.pid,
            id: &self.id,
            cwd: &self.cwd,
            kind: &self.kind,
            started_at: self.started_at,
            session_id: self.session_id.as_deref(),
            name: &self.name,
            status: self.status,
            state: self.state,
        }
    }

    /// Reads `<job_dir>/state.json`.
    pub fn read(job_dir: &Path) -> io::Result<JobState> {
        let text = std::fs::read(job_dir.join("state.json"))?;
        serde_json::from_slice(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Writes `<job_dir>/state.json` atomically (never half a file), 0600,
    /// as of now (`updatedAt`).
    pub fn write(&mut self, job_dir: &Path) -> io::Result<()> {
        self.updated_at = now_rfc3339();
        let mut text = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        text.push(b'\n');
        tack_sys::atomic_write::write_atomic_private(&job_dir.join("state.json"), &text)
    }

    /// Appends the row's state to `<job_dir>/timeline.jsonl`, Claude Code's
    /// log of a job's state changes: `{at, state, detail, text}` (the text
    /// of a finished turn), one line written at once.
    pub fn append_timeline(&self, job_dir: &Path) -> io::Result<()> {
        use std::io::Write;
        #[derive(Serialize)]
        struct Line<'a> {
            at: &'a str,
            state: State,
            #[serde(skip_serializing_if = "Option::is_none")]
            detail: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            text: Option<&'a str>,
        }
        let finished = matches!(self.state, State::Done | State::Failed);
        let line = Line {
            at: &self.updated_at,
            state: self.state,
            detail: self.detail.as_deref(),
            text: self.output.as_deref().filter(|_| finished),
        };
        let mut text = serde_json::to_vec(&line).map_err(io::Error::other)?;
        text.push(b'\n');
        let path = job_dir.join("timeline.jsonl");
        tack_sys::private_file::open_private_append(&path)?.write_all(&text)
    }

    /// Writes `<job_dir>/state.json` unless there is one: the launcher's
    /// first row never replaces a row the session already wrote. False if
    /// there was one.
    pub fn write_new(&self, job_dir: &Path) -> io::Result<bool> {
        use std::io::Write;
        let mut text = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        text.push(b'\n');
        // A temporary file is made 0600.
        let mut file = tempfile::NamedTempFile::new_in(job_dir)?;
        file.write_all(&text)?;
        file.as_file().sync_all()?;
        match file.persist_noclobber(job_dir.join("state.json")) {
            Ok(_) => Ok(true),
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e.error),
        }
    }

    /// The row as it stands: a session whose process is gone without having
    /// said it ended was killed, and what it was doing failed.
    pub fn seen(mut self, alive: bool) -> JobState {
        if !alive && self.status.live() {
            self.status = Status::Killed;
            if matches!(self.state, State::Working | State::Blocked) {
                self.state = State::Failed;
            }
        }
        self
    }

    /// Ended on its own: `agents` lists it only with `--all`.
    pub fn ended(&self) -> bool {
        self.status == Status::Ended
    }
}

/// The first line of `text`, at most 200 characters, terminal-safe.
pub fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    let line: String = line.chars().take(200).collect();
    tack_sys::terminal_text::visible(&line).into_owned()
}

/// `text`, cut to at most `max` bytes at a character boundary.
pub fn cut(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// The first words of the prompt, at most 4 and 40 characters: the label
/// Claude Code asks a model for.
pub fn label(prompt: &str) -> String {
    let mut name = String::new();
    for word in prompt.split_whitespace().take(4) {
        if name.len() + word.len() > 40 {
            break;
        }
        if !name.is_empty() {
            name.push(' ');
        }
        name.push_str(word);
    }
    tack_sys::terminal_text::visible(&name).into_owned()
}

/// Every job folder under `jobs` with a readable state, oldest first. A
/// folder without one (being made, or damaged) is left out.
pub fn list(jobs: &Path) -> Vec<(PathBuf, JobState)> {
    let Ok(entries) = std::fs::read_dir(jobs) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, JobState)> = entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(is_valid_id))
        .filter_map(|e| {
            let dir = e.path();
            JobState::read(&dir).ok().map(|state| (dir, state))
        })
        .collect();
    found.sort_by(|a, b| (a.1.started_at, &a.1.id).cmp(&(b.1.started_at, &b.1.id)));
    found
}

/// Whether `pid` is the live session process of `job_dir` (not a zombie,
/// not another program that got the number since).
pub fn alive(pid: u32, job_dir: &Path) -> bool {
    if pid == 0 {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let zombie = tack_sys::reaper::parse_stat(&stat).is_none_or(|(_, s)| matches!(s, 'Z' | 'X'));
    if zombie {
        return false;
    }
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let dir = job_dir.as_os_str().as_encoded_bytes();
    cmdline.split(|b| *b == 0).any(|arg| arg == dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> JobState {
        JobState {
            pid: 4242,
            id: "0a1b2c3d".to_owned(),
            cwd: PathBuf::from("/work/project"),
            kind: "background".to_owned(),
            started_at: 1_765_000_000_000,
            session_id: Some("8f0e0c2a-1111-4222-8333-444455556666".to_owned()),
            name: "fix the tests".to_owned(),
            status: Status::Idle,
            state: State::Done,
            name_source: "auto".to_owned(),
            intent: Some("fix the tests please".to_owned()),
            detail: Some("All 12 pass.".to_owned()),
            output: Some("All 12 pass.\nI changed one line.".to_owned()),
            created_at: "2026-12-06T10:00:00.000Z".to_owned(),
            updated_at: "2026-12-06T10:01:00.000Z".to_owned(),
        }
    }

    #[test]
    fn state_json_has_claude_codes_names() {
        let row = json!({
            "pid": 4242,
            "id": "0a1b2c3d",
            "cwd": "/work/project",
            "kind": "background",
            "startedAt": 1_765_000_000_000u64,
            "sessionId": "8f0e0c2a-1111-4222-8333-444455556666",
            "name": "fix the tests",
            "status": "idle",
            "state": "done",
        });
        // `agents --json` has the agent view's keys alone.
        assert_eq!(serde_json::to_value(sample().row()).unwrap(), row);
        let mut whole = row;
        whole.as_object_mut().unwrap().extend(
            json!({
                "nameSource": "auto",
                "intent": "fix the tests please",
                "detail": "All 12 pass.",
                "output": "All 12 pass.\nI changed one line.",
                "createdAt": "2026-12-06T10:00:00.000Z",
                "updatedAt": "2026-12-06T10:01:00.000Z",
            })
            .as_object()
            .unwrap()
            .clone(),
        );
        assert_eq!(serde_json::to_value(sample()).unwrap(), whole);
    }

    #[test]
    fn a_result_is_kept_whole_up_to_its_limit_and_cut_at_a_character() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(cut("héllo", 3), "hé");
        assert_eq!(cut("héllo", 99), "héllo");
        assert_eq!(first_line("  two\nlines  "), "two");
        assert_eq!(first_line("\u{1b}[31mred"), "\u{241b}[31mred");
    }

    #[test]
    fn state_json_round_trips_through_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut written = sample();
        written.write(dir.path()).unwrap();
        assert_ne!(written.updated_at, sample().updated_at, "updatedAt is now");
        assert_eq!(JobState::read(dir.path()).unwrap(), written);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("state.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn the_first_row_never_replaces_one_already_written() {
        let dir = tempfile::tempdir().unwrap();
        assert!(sample().write_new(dir.path()).unwrap());
        let mut later = JobState {
            state: State::Failed,
            ..sample()
        };
        later.write(dir.path()).unwrap();
        assert!(!sample().write_new(dir.path()).unwrap());
        assert_eq!(JobState::read(dir.path()).unwrap(), later);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn every_state_and_status_reads_back() {
        for (state, text) in [
            (State::Working, "working"),
            (State::Blocked, "blocked"),
            (State::Done, "done"),
            (State::Failed, "failed"),
            (State::Stopped, "stopped"),
        ] {
            assert_eq!(serde_json::to_value(state).unwrap(), json!(text));
            assert_eq!(serde_json::from_value::<State>(json!(text)).unwrap(), state);
        }
        for (status, text) in [
            (Status::Busy, "busy"),
            (Status::Waiting, "waiting"),
            (Status::Idle, "idle"),
            (Status::Ended, "ended"),
            (Status::Killed, "killed"),
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), json!(text));
            assert_eq!(
                serde_json::from_value::<Status>(json!(text)).unwrap(),
                status
            );
        }
        // An older tack's rows.
        let old = serde_json::from_value::<Status>(json!("running"));
        assert_eq!(old.unwrap(), Status::Busy);
    }

    #[test]
    fn a_dead_process_mid_turn_reads_as_killed_and_failed() {
        let working = JobState {
            status: Status::Busy,
            state: State::Working,
            ..sample()
        };
        assert_eq!(
            working.clone().seen(false),
            JobState {
                status: Status::Killed,
                state: State::Failed,
                ..sample()
            }
        );
        assert_eq!(working.clone().seen(true), working);
        // Idle and done, then gone: killed, but its work was done.
        assert_eq!(
            sample().seen(false),
            JobState {
                status: Status::Killed,
                ..sample()
            }
        );
        let ended = JobState {
            status: Status::Ended,
            state: State::Stopped,
            ..sample()
        };
        assert_eq!(ended.clone().seen(false), ended);
    }

    #[test]
    fn ids_are_eight_lowercase_hex_digits() {
        let id = new_id();
        assert!(is_valid_id(&id), "{id}");
        assert!(!is_valid_id("0A1B2C3D"));
        assert!(!is_valid_id("../../x1"));
        assert!(!is_valid_id("0a1b2c3"));
    }

    #[test]
    fn the_label_is_the_prompts_first_words() {
        assert_eq!(
            label("  fix the flaky\ntest in ci please "),
            "fix the flaky test"
        );
        assert_eq!(label(""), "");
    }

    #[test]
    fn a_process_is_alive_only_with_its_job_folder_in_its_arguments() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!alive(std::process::id(), dir.path()));
        assert!(!alive(0, dir.path()));
    }
}
