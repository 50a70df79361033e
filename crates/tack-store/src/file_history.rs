//! File checkpoints (Claude Code's file history): before a turn's first change
//! to a file, its content is kept, so the files can later be put back as they
//! were when any earlier user message was sent.
//!
//! # Model
//! A session's [`FileHistory`] holds one snapshot per turn, keyed by the id of
//! the user message that started it ([`FileHistory::begin`]). Before a tool
//! changes a file, [`FileHistory::before_change`] keeps the file's content
//! (or that it did not exist) the first time that file is changed in the
//! current turn; later changes in the same turn keep nothing more. Rewinding
//! to a message ([`FileHistory::rewind`]) takes, for every file changed in that
//! turn or any later one, the earliest content kept from that turn on — the
//! file as it was when the message was sent — and writes it back (a file that
//! did not exist then is deleted).
//!
//! # Disk
//! Backups are `<dir>/<sha256(path), 16 hex digits>@v<n>` as Claude Code names
//! them, in [`file_history_dir`]. A file over [`Limits::per_file`] bytes, or one
//! that would take the session past [`Limits::per_session`], is not kept: a
//! rewind leaves it as it is. Symlinks and other non-regular files are neither
//! kept nor written through. The directory goes with the session
//! (`cleanupPeriodDays`, [`crate::SessionStore::remove_older_than`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Where a session's backups live: `<config_dir>/file-history/<session_id>`.
/// The one place that says so.
pub fn file_history_dir(config_dir: &Path, session_id: &str) -> PathBuf {
    config_dir.join("file-history").join(session_id)
}

/// How much a session may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest file kept (bytes).
    pub per_file: u64,
    /// All of a session's backups together (bytes).
    pub per_session: u64,
}

impl Default for Limits {
    /// 10 MiB a file, 100 MiB a session.
    fn default() -> Limits {
        Limits {
            per_file: 10 * 1024 * 1024,
            per_session: 100 * 1024 * 1024,
        }
    }
}

/// A file's state when a turn first changed it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Backup {
    /// The file did not exist: rewinding deletes it.
    Absent,
    /// Its content is in `file`; `mode`: its permission bits.
    Saved { file: PathBuf, mode: u32 },
    /// Too large, over the session's budget, unreadable or not a regular
    /// file: a rewind leaves it alone.
    NotKept,
}

#[derive(Debug)]
struct Snapshot {
    message_id: String,
    backups: BTreeMap<PathBuf, Backup>,
}

/// What a rewind changed, or (dry run) would change.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rewound {
    /// Files whose content differs from the checkpoint, in path order.
    pub files_changed: Vec<PathBuf>,
    /// Lines the rewind adds back, and lines it removes.
    pub insertions: u64,
    pub deletions: u64,
    /// Files left alone: a symlink or other non-regular file is where the
    /// file was, or it was not kept.
    pub skipped: u64,
}

/// Why a checkpoint could not be kept or a rewind not done.
#[derive(Debug, thiserror::Error)]
pub enum FileHistoryError {
    #[error("No file checkpoint found for this message.")]
    UnknownMessage(String),
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FileHistoryError + '_ {
    move |error| FileHistoryError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// One session's checkpoints (see the module docs).
#[derive(Debug)]
pub struct FileHistory {
    dir: PathBuf,
    limits: Limits,
    used: u64,
    /// The last backup version of each file.
    versions: HashMap<PathBuf, u32>,
    snapshots: Vec<Snapshot>,
}

impl FileHistory {
    /// Backups go to `dir` (created on the first one).
    pub fn new(dir: PathBuf, limits: Limits) -> FileHistory {
        FileHistory {
            dir,
            limits,
            used: 0,
            versions: HashMap::new(),
            snapshots: Vec::new(),
        }
    }

    /// A turn started by the user message `message_id` begins.
    pub fn begin(&mut self, message_id: &str) {
        self.snapshots.push(Snapshot {
            message_id: message_id.to_owned(),
            backups: BTreeMap::new(),
        });
    }

    /// True if a turn was started by `message_id`.
    pub fn knows(&self, message_id: &str) -> bool {
        self.snapshots.iter().any(|s| s.message_id == message_id)
    }

    /// `path` (absolute) is about to change: keeps what it holds now, if this
    /// is the current turn's first change to it. Outside a turn, nothing.
    pub fn before_change(&mut self, path: &Path) -> Result<(), FileHistoryError> {
        let Some(current) = self.snapshots.last() else {
            return Ok(());
        };
        if current.backups.contains_key(path) {
            return Ok(());
        }
        let backup = self.keep(path);
        let current = self.snapshots.len() - 1;
        let kept = backup.as_ref().map_or(Backup::NotKept, Clone::clone);
        self.snapshots[current]
            .backups
            .insert(path.to_path_buf(), kept);
        backup.map(|_| ())
    }

    /// Copies `path` into the history, within the limits.
    fn keep(&mut self, path: &Path) -> Result<Backup, FileHistoryError> {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Backup::Absent),
            Err(e) => return Err(io(path)(e)),
        };
        let size = meta.len();
        if !meta.is_file()
            || size > self.limits.per_file
            || self.used + size > self.limits.per_session
        {
            return Ok(Backup::NotKept);
        }
        let content = std::fs::read(path).map_err(io(path))?;
        let version = self.versions.entry(path.to_path_buf()).or_insert(0);
        *version += 1;
        let file = self.dir.join(format!("{}@v{version}", path_hash(path)));
        // The user's files, under the config dir: the user's alone.
        tack_sys::private_file::write_private(&file, &content).map_err(io(&file))?;
        self.used += content.len() as u64;
        Ok(Backup::Saved {
            file,
            mode: meta.permissions().mode() & 0o7777,
        })
    }

    /// Puts every file changed since `message_id` was sent back as it was
    /// then; with `dry_run`, only says what that would change.
    pub fn rewind(&self, message_id: &str, dry_run: bool) -> Result<Rewound, FileHistoryError> {
        let from = self
            .snapshots
            .iter()
            .position(|s| s.message_id == message_id)
            .ok_or_else(|| FileHistoryError::UnknownMessage(message_id.to_owned()))?;
        // The earliest backup of each file from that turn on.
        let mut targets: BTreeMap<&Path, &Backup> = BTreeMap::new();
        for snapshot in &self.snapshots[from..] {
            for (path, backup) in &snapshot.backups {
                targets.entry(path.as_path()).or_insert(backup);
            }
        }
        let mut done = Rewound::default();
        let mut changed = BTreeSet::new();
        for (path, backup) in targets {
            let Some(plan) = plan(path, backup)? else {
                done.skipped += 1;
                continue;
            };
            if plan.now == plan.then {
                continue;
            }
            let (insertions, deletions) = line_changes(
                plan.now.as_deref().unwrap_or_default(),
                plan.then.as_deref().unwrap_or_default(),
            );
            if !dry_run {
                plan.apply(path)?;
            }
            done.insertions += insertions;
            done.deletions += deletions;
            changed.insert(path.to_path_buf());
        }
        done.files_changed = changed.into_iter().collect();
        Ok(done)
    }
}

/// One file's rewind: what it holds now and what it held then (`None`: no file).
struct Plan {
    now: Option<Vec<u8>>,
    then: Option<Vec<u8>>,
    mode: u32,
}

impl Plan {
    fn apply(&self, path: &Path) -> Result<(), FileHistoryError> {
        match &self.then {
            Some(content) => {
                tack_sys::write_atomic_with_mode(path, content, Some(self.mode)).map_err(io(path))
            }
            None => match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
                _ => Ok(()),
            },
        }
    }
}

/// What rewinding `path` to `backup` takes; `None`: it must be left alone.
fn plan(path: &Path, backup: &Backup) -> Result<Option<Plan>, FileHistoryError> {
    let (then, mode) = match backup {
        Backup::NotKept => return Ok(None),
        Backup::Absent => (None, 0o644),
        Backup::Saved { file, mode } => (Some(std::fs::read(file).map_err(io(file))?), *mode),
    };
    let now = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Some(std::fs::read(path).map_err(io(path))?),
        Ok(_) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(path)(e)),
    };
    Ok(Some(Plan { now, then, mode }))
}

/// Lines added and removed going from `now` to `then`.
fn line_changes(now: &[u8], then: &[u8]) -> (u64, u64) {
    let (now, then) = (String::from_utf8_lossy(now), String::from_utf8_lossy(then));
    let diff = similar::TextDiff::from_lines(now.as_ref(), then.as_ref());
    diff.iter_all_changes()
        .fold((0, 0), |(ins, del), change| match change.tag() {
            similar::ChangeTag::Insert => (ins + 1, del),
            similar::ChangeTag::Delete => (ins, del + 1),
            similar::ChangeTag::Equal => (ins, del),
        })
}

/// The first 16 hex digits of the path's SHA-256, as Claude Code names backups.
fn path_hash(path: &Path) -> String {
    let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}
