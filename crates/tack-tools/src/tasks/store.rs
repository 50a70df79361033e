//! The task list on disk, shared by every process that names it: one
//! `<n>.json` per task, `.highwatermark` (the highest id a deleted task had,
//! so ids are never handed out twice) and `.lock`.
//!
//! Every write replaces a file atomically ([`tack_sys::write_atomic_private`])
//! while holding an exclusive `flock` on `.lock`, and a read-modify-write
//! ([`TaskList::update`], [`TaskList::claim`], …) holds it from the read to the
//! last write, so two processes changing one task never lose either change.
//! Claude Code's own locks (`tack_sys::cc_lock`: the `.lock.lock` folder around the
//! list, `<n>.json.lock` around a task) are taken too, so a Claude Code
//! process on the same list is kept out the same way.
//! Reads alone take no lock: a file is always whole. A file that is not a task
//! (torn by another program, too big, not a regular file) is an error naming
//! it; a task id that is not a decimal number is refused before any path is
//! built from it.

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use tack_sys::FileLock;
use tack_sys::config_file::{is_missing, read_config_file};

use crate::tasks::task::{NewTask, Task, TaskStatus};
use tack_sys::cc_lock::{self, CcLock};

/// A task file larger than this is not one of ours (descriptions are text a
/// model wrote).
pub const MAX_TASK_BYTES: u64 = 1 << 20;

const LOCK_FILE: &str = ".lock";
const HIGH_WATER_MARK: &str = ".highwatermark";
/// Task ids are decimal and small: a longer name is not a task's.
const MAX_ID_DIGITS: usize = 18;

/// What went wrong with a task list; each names the file or the id.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{} is not a task file: {reason}", path.display())]
    Torn { path: PathBuf, reason: String },
    #[error("task list id {id:?} is refused: {reason}")]
    ListId { id: String, reason: &'static str },
    #[error("{id:?} is not a task id (task ids are numbers: \"1\", \"2\", ...)")]
    TaskId { id: String },
}

/// Why [`TaskList::claim`] did not give the task to the agent (Claude Code's
/// reasons).
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimRefused {
    NotFound,
    /// Another agent owns it.
    AlreadyClaimed(Task),
    /// It is completed.
    AlreadyResolved(Task),
    /// These tasks it waits for are not completed.
    Blocked {
        task: Task,
        by: Vec<String>,
    },
}

/// The list's locks: Claude Code's folder (released first), then tack's
/// `flock`.
struct ListLock {
    _cc: CcLock,
    _flock: FileLock,
}

/// One task list folder. Cheap to clone; every call goes to the files, so
/// what another process wrote is seen at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskList {
    dir: PathBuf,
}

impl TaskList {
    /// The list in `dir`, created (0700, with its `.lock`) when missing.
    pub fn open(dir: impl Into<PathBuf>) -> Result<TaskList, TaskError> {
        let list = TaskList { dir: dir.into() };
        drop(list.lock_file()?);
        Ok(list)
    }

    /// The list's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds a task with the next id: one past the highest id any task of the
    /// list has or had.
    pub fn create(&self, new: NewTask) -> Result<Task, TaskError> {
        let _lock = self.lock()?;
        let id = (self.highest_id()? + 1).to_string();
        let task = Task::new(id, new);
        self.write(&task)?;
        Ok(task)
    }

    /// The task `id`; `None` when there is none.
    pub fn get(&self, id: &str) -> Result<Option<Task>, TaskError> {
        self.read(&self.task_path(id)?, id)
    }

    /// Every task, by id.
    pub fn list(&self) -> Result<Vec<Task>, TaskError> {
        let mut tasks = Vec::new();
        for (n, name) in self.task_files()? {
            let path = self.dir.join(&name);
            if let Some(task) = self.read(&path, &n.to_string())? {
                tasks.push((n, task));
            }
        }
        tasks.sort_by_key(|(n, _)| *n);
        Ok(tasks.into_iter().map(|(_, t)| t).collect())
    }

    /// Changes task `id` with `change` under the lock and writes it back;
    /// `None` when there is no such task. `change` sees the task as it is on
    /// disk now, whatever anyone wrote since the caller last looked; its id
    /// stays.
    pub fn update<R>(
        &self,
        id: &str,
        change: impl FnOnce(&mut Task) -> R,
    ) -> Result<Option<(Task, R)>, TaskError> {
        let path = self.task_path(id)?;
        let _lock = self.lock()?;
        let _task = self.task_lock(&path)?;
        let Some(mut task) = self.read(&path, id)? else {
            return Ok(None);
        };
        let out = change(&mut task);
        task.id = id.to_owned();
        self.write(&task)?;
        Ok(Some((task, out)))
    }

    /// Removes task `id` and every other task's reference to it; false when
    /// there was none. Its id is kept in `.highwatermark`, never reused.
    pub fn delete(&self, id: &str) -> Result<bool, TaskError> {
        let path = self.task_path(id)?;
        let _lock = self.lock()?;
        let task_lock = self.task_lock(&path)?;
        if self.read(&path, id)?.is_none() {
            return Ok(false);
        }
        let n: u64 = id.parse().unwrap_or(0);
        if n > self.high_water_mark()? {
            let mark = self.dir.join(HIGH_WATER_MARK);
            tack_sys::write_atomic_private(&mark, n.to_string().as_bytes())
                .map_err(|source| TaskError::Write { path: mark, source })?;
        }
        std::fs::remove_file(&path).map_err(|source| TaskError::Write {
            path: path.clone(),
            source,
        })?;
        drop(task_lock);
        for other in self.list()? {
            if other
                .blocks
                .iter()
                .chain(&other.blocked_by)
                .any(|b| b == id)
            {
                self.rewrite(&other.id, |t| {
                    t.blocks.retain(|b| b != id);
                    t.blocked_by.retain(|b| b != id);
                    true
                })?;
            }
        }
        Ok(true)
    }

    /// Records that `blocker` blocks `blocked`, on both tasks (`blocks` of
    /// the one, `blockedBy` of the other); false when either is missing.
    pub fn block(&self, blocker: &str, blocked: &str) -> Result<bool, TaskError> {
        let (blocker_path, blocked_path) = (self.task_path(blocker)?, self.task_path(blocked)?);
        if blocker == blocked {
            return Ok(false);
        }
        let _lock = self.lock()?;
        let _tasks = (
            self.task_lock(&blocker_path)?,
            self.task_lock(&blocked_path)?,
        );
        let (Some(mut first), Some(mut second)) = (
            self.read(&blocker_path, blocker)?,
            self.read(&blocked_path, blocked)?,
        ) else {
            return Ok(false);
        };
        if !first.blocks.iter().any(|b| b == blocked) {
            first.blocks.push(blocked.to_owned());
            self.write(&first)?;
        }
        if !second.blocked_by.iter().any(|b| b == blocker) {
            second.blocked_by.push(blocker.to_owned());
            self.write(&second)?;
        }
        Ok(true)
    }

    /// Gives task `id` to `agent` if nobody else owns it, it is not
    /// completed, and every task it waits for is completed: all checked and
    /// written under the lock, so of two agents claiming one task exactly one
    /// gets it.
    pub fn claim(&self, id: &str, agent: &str) -> Result<Result<Task, ClaimRefused>, TaskError> {
        let path = self.task_path(id)?;
        let _lock = self.lock()?;
        let _task = self.task_lock(&path)?;
        let Some(mut task) = self.read(&path, id)? else {
            return Ok(Err(ClaimRefused::NotFound));
        };
        if task.owner.as_deref().is_some_and(|o| o != agent) {
            return Ok(Err(ClaimRefused::AlreadyClaimed(task)));
        }
        if task.status == TaskStatus::Completed {
            return Ok(Err(ClaimRefused::AlreadyResolved(task)));
        }
        let open = open_blockers(&task, &self.list()?);
        if !open.is_empty() {
            return Ok(Err(ClaimRefused::Blocked { task, by: open }));
        }
        task.owner = Some(agent.to_owned());
        self.write(&task)?;
        Ok(Ok(task))
    }

    /// Hands back every unfinished task `agent` owns (a teammate that shut
    /// down): pending and unowned again. The tasks it had.
    pub fn unassign(&self, agent: &str) -> Result<Vec<Task>, TaskError> {
        let _lock = self.lock()?;
        let mut freed = Vec::new();
        for task in self.list()? {
            let held =
                |t: &Task| t.status != TaskStatus::Completed && t.owner.as_deref() == Some(agent);
            if !held(&task) {
                continue;
            }
            let changed = self.rewrite(&task.id, |t| {
                let mine = held(t);
                if mine {
                    t.owner = None;
                    t.status = TaskStatus::Pending;
                }
                mine
            })?;
            freed.extend(changed);
        }
        Ok(freed)
    }

    /// Re-reads task `id` under its own lock and writes it back when
    /// `change` says it changed it (the list's lock is held by the caller);
    /// the task written.
    fn rewrite(
        &self,
        id: &str,
        change: impl FnOnce(&mut Task) -> bool,
    ) -> Result<Option<Task>, TaskError> {
        let path = self.task_path(id)?;
        let _task = self.task_lock(&path)?;
        let Some(mut task) = self.read(&path, id)? else {
            return Ok(None);
        };
        if !change(&mut task) {
            return Ok(None);
        }
        self.write(&task)?;
        Ok(Some(task))
    }

    /// Claude Code's lock on the task file `path` (`<n>.json.lock`).
    fn task_lock(&self, path: &Path) -> Result<CcLock, TaskError> {
        cc_lock::hold(path).map_err(|source| TaskError::Write {
            path: path.to_path_buf(),
            source,
        })
    }

    /// `<dir>/<id>.json`, for a decimal `id` only.
    fn task_path(&self, id: &str) -> Result<PathBuf, TaskError> {
        if id.is_empty() || id.len() > MAX_ID_DIGITS || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(TaskError::TaskId { id: id.to_owned() });
        }
        Ok(self.dir.join(format!("{id}.json")))
    }

    /// The task in `path`, named `id`; `None` when the file is not there.
    fn read(&self, path: &Path, id: &str) -> Result<Option<Task>, TaskError> {
        let text = match read_config_file(path, MAX_TASK_BYTES) {
            Ok(text) => text,
            Err(e) if is_missing(&e) => return Ok(None),
            Err(source) => {
                return Err(TaskError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let mut task: Task = serde_json::from_str(&text).map_err(|e| TaskError::Torn {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        // The file's name is the id (a hand-edited `id` cannot make two
        // files one task).
        id.clone_into(&mut task.id);
        Ok(Some(task))
    }

    fn write(&self, task: &Task) -> Result<(), TaskError> {
        let path = self.task_path(&task.id)?;
        let text = serde_json::to_string_pretty(task).map_err(|e| TaskError::Torn {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        tack_sys::write_atomic_private(&path, text.as_bytes())
            .map_err(|source| TaskError::Write { path, source })
    }

    /// The `(number, file name)` of each `<n>.json` in the folder; other
    /// names (`tasks.json`, editors' files) are not tasks and are skipped.
    fn task_files(&self) -> Result<Vec<(u64, String)>, TaskError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if is_missing(&e) => return Ok(Vec::new()),
            Err(source) => {
                return Err(TaskError::Read {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| TaskError::Read {
                path: self.dir.clone(),
                source,
            })?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let number = (name.strip_suffix(".json"))
                .filter(|stem| {
                    stem.len() <= MAX_ID_DIGITS && stem.bytes().all(|b| b.is_ascii_digit())
                })
                .and_then(|stem| stem.parse::<u64>().ok());
            if let Some(n) = number {
                files.push((n, name));
            }
        }
        Ok(files)
    }

    /// The highest id any task of the list has or had.
    fn highest_id(&self) -> Result<u64, TaskError> {
        let files = self.task_files()?.into_iter().map(|(n, _)| n).max();
        Ok(files.unwrap_or(0).max(self.high_water_mark()?))
    }

    /// `.highwatermark`'s number; 0 when missing or not a number (as Claude
    /// Code reads it).
    fn high_water_mark(&self) -> Result<u64, TaskError> {
        let path = self.dir.join(HIGH_WATER_MARK);
        match read_config_file(&path, 64) {
            Ok(text) => Ok(text.trim().parse().unwrap_or(0)),
            Err(e) if is_missing(&e) => Ok(0),
            Err(source) => Err(TaskError::Read { path, source }),
        }
    }

    /// The list's locks: tack's `flock` on `.lock`, then Claude Code's
    /// `.lock.lock` folder.
    fn lock(&self) -> Result<ListLock, TaskError> {
        let flock = self.flock()?;
        let path = self.dir.join(LOCK_FILE);
        let cc = cc_lock::hold(&path).map_err(|source| TaskError::Write { path, source })?;
        Ok(ListLock {
            _cc: cc,
            _flock: flock,
        })
    }

    /// The list's exclusive `flock` on `.lock`.
    fn flock(&self) -> Result<FileLock, TaskError> {
        let path = self.dir.join(LOCK_FILE);
        let file = self.lock_file()?;
        tack_sys::lock_exclusive_file(file).map_err(|source| TaskError::Write { path, source })
    }

    /// `.lock`, opened without following a symlink or blocking on a FIFO,
    /// it and the list's folder made when missing.
    fn lock_file(&self) -> Result<std::fs::File, TaskError> {
        let path = self.dir.join(LOCK_FILE);
        let open = || {
            OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .mode(tack_sys::private_file::FILE_MODE)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(&path)
        };
        let file = match open() {
            Err(e) if is_missing(&e) => {
                tack_sys::private_file::create_private_dir_all(&self.dir).map_err(|source| {
                    TaskError::Write {
                        path: self.dir.clone(),
                        source,
                    }
                })?;
                open()
            }
            other => other,
        };
        file.map_err(|source| TaskError::Write { path, source })
    }
}

/// The tasks `task` waits for that are still open: listed in `all` and not
/// completed (a deleted task's references go with it).
pub fn open_blockers(task: &Task, all: &[Task]) -> Vec<String> {
    task.blocked_by
        .iter()
        .filter(|b| {
            all.iter()
                .any(|t| &t.id == *b && t.status != TaskStatus::Completed)
        })
        .cloned()
        .collect()
}
