//! Background tasks: shell commands started by Bash with `run_in_background`,
//! and tasks run by someone else (a background sub-agent, registered with
//! [`BackgroundTasks::register`]); read by TaskOutput, stopped by TaskStop. One
//! registry per session, shared by those tools and the Agent tool; dropping the
//! last handle kills every shell task still running and tells every registered
//! task to stop.
//!
//! A task's stdout and stderr go straight to `<session_dir>/tasks/<id>.output`
//! (the directory is created 0700, the file with `O_CREAT|O_EXCL|O_NOFOLLOW`), so
//! output costs no memory however long the task runs. Ids are a type prefix (`b`
//! for shells, `a` for agents) plus 8 random base36 characters (36^8 ≈ 2.8e12):
//! the output path derives from the id, and an
//! unguessable id is what keeps another local user from planting a symlink there
//! (seed 004, "Task IDs need enough entropy").

use std::collections::HashMap;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rand::Rng;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::process_group;
use crate::shell::{Output, Shell, Started};

/// How much new output one TaskOutput call returns at most (bytes); older bytes
/// beyond it are skipped with a note pointing at the output file.
pub(crate) const MAX_READ_BYTES: u64 = 30_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskStatus {
    Running,
    /// Exited with status 0.
    Completed,
    /// Exited non-zero (`Some(code)`) or was killed by a signal (`None`).
    Failed(Option<i32>),
    /// Stopped by TaskStop or by the session ending.
    Killed,
}

impl TaskStatus {
    pub(crate) fn label(self) -> &'static str {
        match self {
            TaskStatus::Running => "running",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed(_) => "failed",
            TaskStatus::Killed => "killed",
        }
    }

    pub(crate) fn exit_code(self) -> Option<i32> {
        match self {
            TaskStatus::Completed => Some(0),
            TaskStatus::Failed(code) => code,
            TaskStatus::Running | TaskStatus::Killed => None,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Task {
    pub(crate) id: String,
    /// The shell command, or a registered task's label.
    pub(crate) command: String,
    pub(crate) output_path: PathBuf,
    /// The shell's process group; `None` for a registered task.
    pgid: Option<i32>,
    status: watch::Sender<TaskStatus>,
    stop: CancellationToken,
    /// How far TaskOutput has read the output file.
    read_offset: Mutex<u64>,
}

/// New output of a task since the previous read.
#[derive(Debug)]
pub(crate) struct NewOutput {
    pub(crate) text: String,
    /// Bytes skipped because there was more new output than one read returns.
    pub(crate) skipped: u64,
}

impl Task {
    /// A running task; `pgid` is a shell's process group (`None`: a registered task).
    fn new(id: String, command: &str, output_path: PathBuf, pgid: Option<i32>) -> Task {
        Task {
            id,
            command: command.to_owned(),
            output_path,
            pgid,
            status: watch::channel(TaskStatus::Running).0,
            stop: CancellationToken::new(),
            read_offset: Mutex::new(0),
        }
    }

    pub(crate) fn status(&self) -> TaskStatus {
        *self.status.borrow()
    }

    /// Waits until the task is no longer running.
    pub(crate) async fn finished(&self) -> TaskStatus {
        let mut rx = self.status.subscribe();
        match rx.wait_for(|s| *s != TaskStatus::Running).await {
            Ok(s) => *s,
            Err(_) => self.status(),
        }
    }

    /// Output written since the last call. While the task runs, a trailing
    /// incomplete line is left for the next read.
    pub(crate) fn read_new(&self) -> io::Result<NewOutput> {
        let running = self.status() == TaskStatus::Running;
        let mut offset = self
            .read_offset
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&self.output_path)?;
        let end = file.metadata()?.len();
        let available = end.saturating_sub(*offset);
        let skipped = available.saturating_sub(MAX_READ_BYTES);
        file.seek(SeekFrom::Start(*offset + skipped))?;
        let mut buf = Vec::with_capacity((available - skipped) as usize);
        file.take(available - skipped).read_to_end(&mut buf)?;
        if running && let Some(last_nl) = buf.iter().rposition(|b| *b == b'\n') {
            buf.truncate(last_nl + 1);
        }
        *offset += skipped + buf.len() as u64;
        Ok(NewOutput {
            text: String::from_utf8_lossy(&buf).into_owned(),
            skipped,
        })
    }
}

#[derive(Debug)]
struct Registry {
    tasks: Mutex<HashMap<String, Arc<Task>>>,
    grace: Duration,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let tasks = self.tasks.get_mut().unwrap_or_else(PoisonError::into_inner);
        for task in tasks.values() {
            if task.status() == TaskStatus::Running {
                match task.pgid {
                    Some(pgid) => {
                        process_group::signal_group(pgid, libc::SIGKILL);
                    }
                    None => task.stop.cancel(),
                }
            }
        }
    }
}

/// The session's background tasks (cheap to clone; clones share the registry).
/// Create one per session and hand it to every tool that starts or reads
/// tasks ([`crate::BuiltinOptions::tasks`], the Agent tool).
#[derive(Debug, Clone)]
pub struct BackgroundTasks {
    inner: Arc<Registry>,
}

/// How a registered task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskEnd {
    Completed,
    Failed,
    /// It stopped because [`OwnedTask::stop_requested`] fired.
    Killed,
}

/// A task run by its owner (not a shell), registered so that TaskOutput reads
/// what the owner writes and TaskStop asks it to stop. Dropping it without
/// [`OwnedTask::finish`] marks the task failed.
#[derive(Debug)]
pub struct OwnedTask {
    task: Arc<Task>,
    file: File,
    finished: bool,
}

impl OwnedTask {
    /// The task id (the registered prefix + 8 base36 characters).
    pub fn id(&self) -> &str {
        &self.task.id
    }

    /// The file TaskOutput reads.
    pub fn output_path(&self) -> &Path {
        &self.task.output_path
    }

    /// Fires when TaskStop stops the task or the registry goes away; the owner
    /// then stops its work and calls [`OwnedTask::finish`] with
    /// [`TaskEnd::Killed`].
    pub fn stop_requested(&self) -> CancellationToken {
        self.task.stop.clone()
    }

    /// Appends `text` to the task's output.
    pub fn write(&mut self, text: &str) -> io::Result<()> {
        use std::io::Write;
        self.file.write_all(text.as_bytes())
    }

    /// Records how the task ended; TaskOutput and TaskStop see it at once.
    pub fn finish(mut self, end: TaskEnd) {
        self.finished = true;
        self.task.status.send_replace(match end {
            TaskEnd::Completed => TaskStatus::Completed,
            TaskEnd::Failed => TaskStatus::Failed(None),
            TaskEnd::Killed => TaskStatus::Killed,
        });
    }
}

impl Drop for OwnedTask {
    fn drop(&mut self) {
        if !self.finished {
            self.task.status.send_replace(TaskStatus::Failed(None));
        }
    }
}

impl BackgroundTasks {
    /// An empty registry; `grace` is how long a shell's process group gets
    /// between SIGTERM and SIGKILL.
    pub fn new(grace: Duration) -> Self {
        BackgroundTasks {
            inner: Arc::new(Registry {
                tasks: Mutex::new(HashMap::new()),
                grace,
            }),
        }
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Task>> {
        self.inner
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// Adds `task` to the registry: TaskOutput and TaskStop find it by id.
    fn insert(&self, task: Task) -> Arc<Task> {
        let task = Arc::new(task);
        self.inner
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(task.id.clone(), task.clone());
        task
    }

    /// Registers a task its caller runs (e.g. a background sub-agent): a fresh
    /// id `prefix` + 8 base36 characters, and an output file under
    /// `session_dir/tasks` that the caller writes through the returned handle.
    pub fn register(&self, prefix: char, label: &str, session_dir: &Path) -> io::Result<OwnedTask> {
        let (id, output_path, file) = task_output_file(session_dir, prefix)?;
        Ok(OwnedTask {
            task: self.insert(Task::new(id, label, output_path, None)),
            file,
            finished: false,
        })
    }

    /// Starts `command` through `shell` (its `bash -c`, confined or not) in
    /// `cwd`, its output going to a new file under `session_dir/tasks`. Must
    /// be called inside a Tokio runtime.
    pub(crate) fn start(
        &self,
        command: &str,
        shell: Shell<'_>,
        cwd: &Path,
        session_dir: &Path,
    ) -> io::Result<Arc<Task>> {
        let (id, output_path, file) = task_output_file(session_dir, 'b')?;
        let Started {
            mut child, pgid, ..
        } = shell.spawn(command, cwd, &[], Output::File(file))?;
        let task = self.insert(Task::new(id, command, output_path, Some(pgid)));

        let grace = self.inner.grace;
        let monitor = task.clone();
        tokio::spawn(async move {
            tokio::select! {
                exit = child.wait() => {
                    monitor.status.send_replace(match exit {
                        Ok(s) if s.success() => TaskStatus::Completed,
                        Ok(s) => TaskStatus::Failed(s.code()),
                        Err(_) => TaskStatus::Failed(None),
                    });
                    // Anything the command left running in its group goes with it.
                    process_group::stop_leftovers(pgid, grace).await;
                }
                () = monitor.stop.cancelled() => {
                    process_group::terminate(pgid, &mut child, grace).await;
                    monitor.status.send_replace(TaskStatus::Killed);
                }
            }
        });
        Ok(task)
    }

    /// Stops a running task (SIGTERM, grace, SIGKILL to its group) and waits for it.
    async fn stop(&self, task: &Task) -> TaskStatus {
        task.stop.cancel();
        task.finished().await
    }

    /// Stops the running task `id` (a background shell or sub-agent) and waits
    /// for it; returns its command (or label). TaskStop and the SDK's
    /// `stop_task` both come here.
    pub async fn stop_by_id(&self, id: &str) -> Result<String, StopError> {
        let task = self
            .get(id)
            .ok_or_else(|| StopError::NotFound(id.to_owned()))?;
        let status = task.status();
        if status != TaskStatus::Running {
            return Err(StopError::NotRunning {
                id: id.to_owned(),
                status: status.label().to_owned(),
            });
        }
        self.stop(&task).await;
        Ok(task.command.clone())
    }
}

/// Why [`BackgroundTasks::stop_by_id`] stopped nothing (worded as TaskStop's
/// tool result).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum StopError {
    #[error("No task found with ID: {0}")]
    NotFound(String),
    #[error("Task {id} is not running (status: {status}).")]
    NotRunning { id: String, status: String },
}

/// Creates `dir` with mode 0700, or checks that the existing one is a real
/// directory (not a symlink) owned by us, tightening its mode to 0700.
fn private_dir(dir: &Path) -> io::Result<PathBuf> {
    if let Some(parent) = dir.parent() {
        tack_sys::private_file::create_dirs_private(parent)?;
    }
    match DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(dir.to_path_buf()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(dir)?;
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != uid {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a private directory owned by this user",
                dir.display()
            ),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(dir.to_path_buf())
}

/// A new task's output file, `session_dir/tasks/<id>.output`.
fn task_output_file(session_dir: &Path, prefix: char) -> io::Result<(String, PathBuf, File)> {
    create_private_file(&session_dir.join("tasks"), prefix, "output")
}

/// A new file `dir/<id>.<extension>` (`dir` made private, the file created
/// 0600, never through a symlink), `id` a fresh [`new_task_id`] with `prefix`.
pub(crate) fn create_private_file(
    dir: &Path,
    prefix: char,
    extension: &str,
) -> io::Result<(String, PathBuf, File)> {
    let dir = private_dir(dir)?;
    loop {
        let id = new_task_id(prefix);
        let path = dir.join(format!("{id}.{extension}"));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
        {
            Ok(file) => return Ok((id, path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// `prefix` (Claude Code's: `b` for local shell tasks, `a` for local agents)
/// + 8 base36 characters from the thread-local CSPRNG.
pub fn new_task_id(prefix: char) -> String {
    const ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut rng = rand::rng();
    let mut id = String::with_capacity(9);
    id.push(prefix);
    for _ in 0..8 {
        id.push(char::from(ALPHABET[rng.random_range(0..36)]));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_b_plus_8_base36() {
        let ids: std::collections::HashSet<String> = (0..1000).map(|_| new_task_id('b')).collect();
        assert_eq!(ids.len(), 1000);
        for id in ids {
            assert_eq!(id.len(), 9);
            assert!(id.starts_with('b'));
            assert!(
                id[1..]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()),
                "{id}"
            );
        }
    }
}
