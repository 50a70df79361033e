//! Appending to a transcript: one complete line per `write`, then `fsync`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{Map, Value, json};
use tack_protocol::{Message, Role};
use tack_sys::file_lock::lock_open_file;

use crate::error::{StoreError, io_err};
use crate::record::TranscriptRecord;
use crate::syncer::Syncer;

/// The environment stamped on every record (`cwd`, `gitBranch`, `version`,
/// `entrypoint`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordMeta {
    pub cwd: String,
    pub git_branch: String,
    pub version: String,
    /// Claude Code's `entrypoint`: `cli` for the terminal UI, `sdk-cli` for
    /// `-p` and stream-json; empty: not written.
    pub entrypoint: String,
}

/// Told of every line a transcript writes, after it is in the file: the
/// Agent SDKs' `--session-mirror` (their SessionStore) gets the records as
/// `transcript_mirror` frames.
pub trait TranscriptMirror: Send + Sync {
    fn written(&self, path: &Path, records: &[TranscriptRecord]);
}

/// A transcript's mirror, if any (a trait object, so `Debug` by hand).
#[derive(Clone, Default)]
pub struct Mirror(pub Option<std::sync::Arc<dyn TranscriptMirror>>);

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Mirror(on)"
        } else {
            "Mirror(off)"
        })
    }
}

/// An open transcript, appended to as the conversation happens.
///
/// # Durability and concurrency
/// Each record is serialised to one buffer ending in `\n` and written with a
/// single `write_all` on a file opened with `O_APPEND`, under an exclusive
/// `flock`; `sync_data` follows on the transcript's own thread ([`Syncer`]:
/// the caller does not wait for the disk). So when an append returns, the line
/// is complete in the file (a killed process loses nothing), and on disk
/// milliseconds later (dropping the transcript waits for that); a crash can
/// at worst leave the line being written torn, which loading skips. Two
/// processes appending to the same file never interleave lines (the lock covers the write; `O_APPEND` puts each
/// line at the real end of file).
///
/// Opening a file whose last line is torn first terminates it with `\n`, so the
/// next record never glues onto the fragment.
#[derive(Debug)]
pub struct Transcript {
    file: File,
    path: PathBuf,
    session_id: String,
    meta: RecordMeta,
    leaf: Option<String>,
    /// uuid → parentUuid of the records this writer appended, so a voided
    /// record's parent can become the leaf again.
    parents: HashMap<String, Option<String>>,
    /// A sub-agent's transcript: every record says `isSidechain: true` and
    /// carries this `agentId`.
    agent_id: Option<String>,
    /// Syncs written lines off the caller's path; `None` if its thread could
    /// not start (then each append syncs itself).
    syncer: Option<Syncer>,
    mirror: Mirror,
    /// Records outside the chain (no uuid), exactly as Claude Code writes
    /// them, written with the next batch: a session that never writes its
    /// conversation writes none of them either.
    pending: Vec<Value>,
}

/// `value` as one JSON line onto `buf`.
fn push_line<T: serde::Serialize>(buf: &mut Vec<u8>, value: &T) -> serde_json::Result<()> {
    serde_json::to_writer(&mut *buf, value)?;
    buf.push(b'\n');
    Ok(())
}

/// RFC 3339 UTC with milliseconds, as Claude Code writes (`2026-08-20T09:14:02.118Z`).
pub fn timestamp_now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

impl Transcript {
    /// Opens (creating if needed) the transcript at `path` for appending.
    /// `leaf` is the uuid the next record's `parentUuid` points at: `None` for a
    /// new session, [`crate::LoadedSession::leaf_uuid`] for a resumed one.
    pub fn open(
        path: &Path,
        session_id: &str,
        meta: RecordMeta,
        leaf: Option<String>,
    ) -> Result<Transcript, StoreError> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let existed = path.exists();
        tack_sys::private_file::create_private_dir_all(dir).map_err(io_err(dir))?;
        let file = tack_sys::private_file::open_private_append(path).map_err(io_err(path))?;
        if existed {
            terminate_torn_line(&file).map_err(io_err(path))?;
        } else if let Ok(d) = File::open(dir) {
            // Make the new directory entry durable too; best effort (some
            // filesystems refuse fsync on directories).
            let _ = d.sync_all();
        }
        Ok(Transcript {
            path: path.to_owned(),
            session_id: session_id.to_owned(),
            meta,
            leaf,
            parents: HashMap::new(),
            agent_id: None,
            syncer: Syncer::start(&file).ok(),
            file,
            mirror: Mirror::default(),
            pending: Vec::new(),
        })
    }

    /// Tells `mirror` of every line written from now on.
    pub fn mirrored(mut self, mirror: Mirror) -> Transcript {
        self.mirror = mirror;
        self
    }

    /// Makes this a sub-agent's (sidechain) transcript, as Claude Code keeps
    /// them in `<session-dir>/subagents/agent-<id>.jsonl`: every record gets
    /// `isSidechain: true` and `agentId`. Load it with [`crate::load_sidechain`].
    pub fn sidechain(mut self, agent_id: &str) -> Transcript {
        self.agent_id = Some(agent_id.to_owned());
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The folder the records from now on name (`cwd`).
    pub fn cwd(&self) -> &str {
        &self.meta.cwd
    }

    /// The session moved (EnterWorktree, ExitWorktree): records from now on
    /// carry `cwd` and `git_branch`, as Claude Code's name the folder each was
    /// written in.
    pub fn moved(&mut self, cwd: String, git_branch: String) {
        self.meta.cwd = cwd;
        self.meta.git_branch = git_branch;
    }

    /// The uuid of the last record appended (the chain's leaf).
    pub fn leaf_uuid(&self) -> Option<&str> {
        self.leaf.as_deref()
    }

    /// Appends a user prompt (or any user message without tool results).
    pub fn append_user(&mut self, message: &Message) -> Result<String, StoreError> {
        let mut record = self.chain_record("user");
        record.message = Some(message_json(message));
        self.append(record)
    }

    /// Appends a user message carrying tool results; `tool_use_result` is the
    /// tool's structured output (Claude Code's `toolUseResult`), if any.
    pub fn append_tool_results(
        &mut self,
        message: &Message,
        tool_use_result: Option<Value>,
    ) -> Result<String, StoreError> {
        let mut record = self.chain_record("user");
        record.message = Some(message_json(message));
        record.tool_use_result = tool_use_result;
        self.append(record)
    }

    /// Appends an assistant record. `message` is the API Message object
    /// (`id`, `type`, `role`, `model`, `content`, `stop_reason`, `usage`, ...);
    /// Claude Code writes one record per completed content block, all with the
    /// same `message.id`, and loading merges them back.
    pub fn append_assistant(
        &mut self,
        message: Value,
        request_id: Option<&str>,
    ) -> Result<String, StoreError> {
        let mut record = self.chain_record("assistant");
        record.message = Some(message);
        record.request_id = request_id.map(str::to_owned);
        self.append(record)
    }

    /// Appends a compact boundary followed by the summary that replaces
    /// everything before it. Loading starts from the last boundary.
    pub fn append_compact_boundary(
        &mut self,
        trigger: &str,
        pre_tokens: u64,
        summary: &str,
    ) -> Result<String, StoreError> {
        let uuid = uuid::Uuid::new_v4().to_string();
        self.append_compacted(trigger, pre_tokens, &[(uuid, Message::user_text(summary))])
    }

    /// Appends a compact boundary and the conversation that continues from it
    /// (`messages`, with their transcript ids): the first is marked as the
    /// compact summary. Everything goes in one write, so a crash leaves either
    /// the old conversation or the compacted one, never a boundary alone.
    /// Returns the uuid of the last record.
    pub fn append_compacted(
        &mut self,
        trigger: &str,
        pre_tokens: u64,
        messages: &[(String, Message)],
    ) -> Result<String, StoreError> {
        let mut boundary = self.chain_record("system");
        boundary.logical_parent_uuid = boundary.parent_uuid.take();
        boundary.subtype = Some("compact_boundary".into());
        boundary
            .extra
            .insert("content".into(), json!("Conversation compacted"));
        boundary.extra.insert(
            "compactMetadata".into(),
            json!({"trigger": trigger, "preTokens": pre_tokens}),
        );
        let mut parent = boundary.uuid.clone();
        let mut records = vec![boundary];
        for (i, (uuid, message)) in messages.iter().enumerate() {
            let kind = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            let mut record = self.chain_record(kind);
            record.uuid = Some(uuid.clone());
            record.parent_uuid = parent.take();
            record.message = Some(message_json(message));
            if i == 0 {
                record
                    .extra
                    .insert("isCompactSummary".into(), Value::Bool(true));
            }
            parent.clone_from(&record.uuid);
            records.push(record);
        }
        let last = records
            .last()
            .and_then(|r| r.uuid.clone())
            .unwrap_or_default();
        self.append_batch(records)?;
        Ok(last)
    }

    /// A record of `kind` with this session's metadata and the next uuid, linked
    /// to the current leaf. Fill in `message` etc. and pass it to [`Self::append`].
    pub fn chain_record(&self, kind: &str) -> TranscriptRecord {
        let mut r = TranscriptRecord::new(kind);
        r.parent_uuid.clone_from(&self.leaf);
        r.user_type = Some("external".into());
        r.cwd = Some(self.meta.cwd.clone());
        r.session_id = Some(self.session_id.clone());
        r.version = Some(self.meta.version.clone());
        r.git_branch = Some(self.meta.git_branch.clone());
        r.uuid = Some(uuid::Uuid::new_v4().to_string());
        r.timestamp = Some(timestamp_now());
        if !self.meta.entrypoint.is_empty() {
            r.extra.insert(
                "entrypoint".into(),
                Value::String(self.meta.entrypoint.clone()),
            );
        }
        if let Some(agent_id) = &self.agent_id {
            r.is_sidechain = true;
            r.extra
                .insert("agentId".into(), Value::String(agent_id.clone()));
        }
        r
    }

    /// Writes `record` as one line, durably (see the type's docs), and makes it
    /// the leaf. Returns its uuid.
    pub fn append(&mut self, record: TranscriptRecord) -> Result<String, StoreError> {
        let uuid = record.uuid.clone().unwrap_or_default();
        self.append_batch(vec![record])?;
        Ok(uuid)
    }

    /// Writes the session's `agent-setting` record (the agent it runs as,
    /// restored on resume) before the next records; it is not on the chain.
    pub fn note_agent(&mut self, name: &str) {
        self.pending.push(serde_json::json!({
            "type": crate::load::AGENT_SETTING,
            "agentSetting": name,
            "sessionId": self.session_id,
        }));
    }

    /// Writes several records (already chained by the caller, e.g. one per tool
    /// result) with one `write` and one `fsync`; the last becomes the leaf.
    pub fn append_batch(&mut self, records: Vec<TranscriptRecord>) -> Result<(), StoreError> {
        let mut buf = Vec::new();
        let pending = match records.is_empty() {
            true => Vec::new(),
            false => std::mem::take(&mut self.pending),
        };
        let serialized = (pending.iter().try_for_each(|r| push_line(&mut buf, r)))
            .and_then(|()| records.iter().try_for_each(|r| push_line(&mut buf, r)));
        if let Err(e) = serialized {
            self.pending = pending;
            return Err(StoreError::Io {
                path: self.path.clone(),
                error: std::io::Error::other(e),
            });
        }
        if buf.is_empty() {
            return Ok(());
        }
        if let Err(e) = self.write_line(&buf) {
            self.pending = pending;
            return Err(io_err(&self.path)(e));
        }
        if let Some(mirror) = &self.mirror.0 {
            let pending: Vec<TranscriptRecord> = (pending.iter())
                .filter_map(|r| serde_json::from_value(r.clone()).ok())
                .collect();
            if !pending.is_empty() {
                mirror.written(&self.path, &pending);
            }
            mirror.written(&self.path, &records);
        }
        for record in records {
            let uuid = record.uuid.unwrap_or_default();
            self.parents.insert(uuid.clone(), record.parent_uuid);
            self.leaf = Some(uuid);
        }
        Ok(())
    }

    /// [`Self::append_batch`] of records that are one message split per
    /// content block (Claude Code's assistant records): voiding the last
    /// voids them all.
    pub fn append_grouped(&mut self, records: Vec<TranscriptRecord>) -> Result<(), StoreError> {
        let first_parent = records.first().and_then(|r| r.parent_uuid.clone());
        let last = records.last().and_then(|r| r.uuid.clone());
        self.append_batch(records)?;
        if let Some(last) = last {
            self.parents.insert(last, first_parent);
        }
        Ok(())
    }

    /// Voids the record `uuid` (a tombstoned message): if it is the leaf, its
    /// parent becomes the leaf again, so the next record continues the chain
    /// before it and loading no longer reaches it. Nothing is written.
    pub fn void(&mut self, uuid: &str) {
        if self.leaf.as_deref() == Some(uuid)
            && let Some(parent) = self.parents.get(uuid)
        {
            self.leaf = parent.clone();
        }
    }

    /// Sets the leaf the next record links to (after [`Self::chain_record`] +
    /// [`Self::append_batch`] of records chained by hand).
    pub fn set_leaf(&mut self, leaf: Option<String>) {
        self.leaf = leaf;
    }

    fn write_line(&mut self, line: &[u8]) -> std::io::Result<()> {
        let _lock = lock_open_file(&self.file)?;
        (&self.file).write_all(line)?;
        match &self.syncer {
            Some(syncer) => syncer.request(),
            None => self.file.sync_data(),
        }
    }
}

fn message_json(message: &Message) -> Value {
    // A `Message` is plain data; serialising it cannot fail.
    serde_json::to_value(message).unwrap_or_else(|_| Value::Object(Map::new()))
}

/// If the file does not end in `\n` (a torn last line), appends one.
fn terminate_torn_line(mut file: &File) -> std::io::Result<()> {
    let _lock = lock_open_file(file)?;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    if last[0] != b'\n' {
        file.write_all(b"\n")?;
        file.sync_data()?;
    }
    Ok(())
}
