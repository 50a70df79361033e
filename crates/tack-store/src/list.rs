//! Finding sessions: the newest of a directory (`--continue`), one by id (`--resume`).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{StoreError, io_err};
use crate::paths::{is_valid_session_id, sanitize_cwd};
use crate::record::TranscriptRecord;
use crate::summary::SessionSummary;

/// How much of a transcript is read to find its first prompt.
const PREVIEW_SCAN_BYTES: u64 = 64 * 1024;
const PREVIEW_CHARS: usize = 80;

/// The transcripts under one config dir (Claude Code's: `~/.claude`, or
/// `CLAUDE_CONFIG_DIR`), where new ones are written, plus older config dirs
/// (`~/.tack`) whose sessions are still found, after the first dir's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStore {
    config_dir: PathBuf,
    older: Vec<PathBuf>,
}

impl SessionStore {
    pub fn new(config_dir: impl Into<PathBuf>) -> SessionStore {
        SessionStore {
            config_dir: config_dir.into(),
            older: Vec::new(),
        }
    }

    /// Also finds (never writes) the sessions under `dir`, after this store's.
    #[must_use]
    pub fn also_reading(mut self, dir: impl Into<PathBuf>) -> SessionStore {
        let dir = dir.into();
        if dir != self.config_dir && !self.older.contains(&dir) {
            self.older.push(dir);
        }
        self
    }

    /// Every dir searched, the one written to first.
    fn dirs(&self) -> impl Iterator<Item = &PathBuf> {
        std::iter::once(&self.config_dir).chain(&self.older)
    }

    pub fn config_dir(&self) -> &Path {
        &self.config_dir
    }

    /// `<config_dir>/projects/<sanitised cwd>`.
    pub fn project_dir(&self, cwd: &Path) -> PathBuf {
        self.config_dir.join("projects").join(sanitize_cwd(cwd))
    }

    /// `<project_dir>/<session_id>.jsonl`; the id must be a UUID.
    pub fn transcript_path(&self, cwd: &Path, session_id: &str) -> Result<PathBuf, StoreError> {
        if !is_valid_session_id(session_id) {
            return Err(StoreError::InvalidSessionId(session_id.to_owned()));
        }
        Ok(self.project_dir(cwd).join(format!("{session_id}.jsonl")))
    }

    /// `<project_dir>/<session_id>/subagents/agent-<agent_id>.jsonl`: a
    /// sub-agent's transcript, beside its session's (Claude Code's layout).
    pub fn subagent_transcript_path(
        &self,
        cwd: &Path,
        session_id: &str,
        agent_id: &str,
    ) -> Result<PathBuf, StoreError> {
        if !is_valid_session_id(session_id) {
            return Err(StoreError::InvalidSessionId(session_id.to_owned()));
        }
        Ok(subagent_transcript_path(
            &self.project_dir(cwd).join(session_id),
            agent_id,
        ))
    }

    /// The sessions of `cwd` in every dir, newest (last modified) first; a
    /// session in two dirs is listed once, from the first dir.
    pub fn list_sessions(&self, cwd: &Path) -> Result<Vec<SessionSummary>, StoreError> {
        let mut sessions: Vec<SessionSummary> = Vec::new();
        for config_dir in self.dirs() {
            let dir = config_dir.join("projects").join(sanitize_cwd(cwd));
            for found in sessions_in(&dir)? {
                if !sessions.iter().any(|s| s.session_id == found.session_id) {
                    sessions.push(found);
                }
            }
        }
        sort_newest_first(&mut sessions);
        Ok(sessions)
    }

    /// The sessions of every folder in every dir, newest first (as
    /// [`SessionStore::list_sessions`] lists one folder's).
    pub fn list_all_sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        let mut sessions: Vec<SessionSummary> = Vec::new();
        for config_dir in self.dirs() {
            let projects = config_dir.join("projects");
            let folders = match std::fs::read_dir(&projects) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(&projects)(e)),
            };
            // A stray file beside the folders is no folder of sessions.
            let folders = folders
                .flatten()
                .filter(|f| f.file_type().is_ok_and(|t| t.is_dir()));
            for folder in folders {
                for found in sessions_in(&folder.path())? {
                    if !sessions.iter().any(|s| s.session_id == found.session_id) {
                        sessions.push(found);
                    }
                }
            }
        }
        sort_newest_first(&mut sessions);
        Ok(sessions)
    }

    /// The newest session of `cwd` (`--continue`).
    pub fn latest_session(&self, cwd: &Path) -> Result<SessionSummary, StoreError> {
        self.list_sessions(cwd)?
            .into_iter()
            .next()
            .ok_or_else(|| StoreError::NoSessions {
                cwd: cwd.to_owned(),
            })
    }

    /// The transcript of session `id` in `cwd` (`--resume <id>`); if there is
    /// none, the error lists the most recent sessions.
    pub fn find_session(&self, cwd: &Path, id: &str) -> Result<PathBuf, StoreError> {
        self.transcript_path(cwd, id)?;
        for config_dir in self.dirs() {
            let path = config_dir
                .join("projects")
                .join(sanitize_cwd(cwd))
                .join(format!("{id}.jsonl"));
            if let Ok(meta) = std::fs::metadata(&path) {
                return match crate::paths::file_kind(&meta) {
                    None => Ok(path),
                    Some(kind) => Err(StoreError::NotATranscript { path, kind }),
                };
            }
        }
        let mut recent = self.list_sessions(cwd)?;
        recent.truncate(5);
        Err(StoreError::SessionNotFound {
            id: id.to_owned(),
            recent,
        })
    }
}

fn sort_newest_first(sessions: &mut [SessionSummary]) {
    sessions.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then(a.session_id.cmp(&b.session_id))
    });
}

/// The sessions in one project dir, unsorted; none if it does not exist.
fn sessions_in(dir: &Path) -> Result<Vec<SessionSummary>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir)(e)),
    };
    let mut sessions = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(id) = crate::paths::session_file_id(&path) else {
            continue;
        };
        // Only regular files are sessions (a directory or FIFO named like
        // one is not, and reading it for a preview could block).
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let Ok(modified) = meta.modified() else {
            continue;
        };
        if crate::paths::file_kind(&meta).is_some() {
            continue;
        }
        sessions.push(SessionSummary {
            session_id: id.to_owned(),
            first_prompt: first_prompt(&path),
            path,
            modified,
        });
    }
    Ok(sessions)
}

/// The text of the first real user prompt in the first 64 KiB of `path`,
/// on one line, cut at [`PREVIEW_CHARS`].
fn first_prompt(path: &Path) -> Option<String> {
    let one_line = session_head(path).first_prompt?;
    let short: String = one_line.chars().take(PREVIEW_CHARS).collect();
    Some(if short.len() < one_line.len() {
        format!("{short}…")
    } else {
        short
    })
}

/// What the first 64 KiB of a transcript say about its session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionHead {
    /// The folder it ran in (the first record that names one).
    pub cwd: Option<PathBuf>,
    /// Its first real user prompt, whitespace folded to single spaces.
    pub first_prompt: Option<String>,
}

/// The [`SessionHead`] of the transcript at `path`; what it cannot read is
/// left out.
pub fn session_head(path: &Path) -> SessionHead {
    let mut head = SessionHead::default();
    let Ok(file) = std::fs::File::open(path) else {
        return head;
    };
    let reader = BufReader::new(file.take(PREVIEW_SCAN_BYTES));
    for line in reader.lines() {
        let Ok(line) = line else { break };
        let Ok(record) = serde_json::from_str::<TranscriptRecord>(&line) else {
            continue;
        };
        if head.cwd.is_none() {
            head.cwd = record.cwd.as_ref().map(PathBuf::from);
        }
        if head.first_prompt.is_none() && !record.is_sidechain && !record.flag("isMeta") {
            head.first_prompt = prompt_text(&record);
        }
        if head.cwd.is_some() && head.first_prompt.is_some() {
            break;
        }
    }
    head
}

/// A user record's text, on one line.
fn prompt_text(record: &TranscriptRecord) -> Option<String> {
    if record.kind != "user" {
        return None;
    }
    let text = match record.message.as_ref()?.get("content")? {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().find_map(|b| {
            (b.get("type").and_then(Value::as_str) == Some("text"))
                .then(|| b.get("text").and_then(Value::as_str).map(str::to_owned))
                .flatten()
        })?,
        _ => return None,
    };
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// A sub-agent's transcript inside a session's folder (`<session-dir>`, where
/// its tool output lives too): `<session-dir>/subagents/agent-<agent_id>.jsonl`.
pub fn subagent_transcript_path(session_dir: &Path, agent_id: &str) -> PathBuf {
    session_dir
        .join("subagents")
        .join(format!("agent-{agent_id}.jsonl"))
}
