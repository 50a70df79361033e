//! Durable jobs in `<project>/.claude/scheduled_tasks.json`, Claude Code's
//! file: `{"tasks": [{id, cron, prompt, createdAt, lastFiredAt?, recurring?}]}`.
//!
//! Several sessions may share the file, so every change is a read-modify-write
//! under an exclusive lock on the `.claude` folder, written atomically (a
//! rename), and touches only the ids it names: every other key of the file
//! and of its tasks is kept as written. A file that is not that shape is an
//! error naming it and is never written over; a task in it that is not a
//! task is skipped, as Claude Code skips it, and kept in the file.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::cron::Cron;
use super::job::Job;

/// Larger files are refused (a job's prompt is at most 10,000 characters
/// and there are at most 50).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The file's path under `project`.
pub fn path_in(project: &Path) -> PathBuf {
    project.join(".claude").join("scheduled_tasks.json")
}

/// Why the file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path} is not a scheduled tasks file: {why}")]
    Shape { path: PathBuf, why: String },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Task {
    id: String,
    cron: String,
    prompt: String,
    created_at: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    last_fired_at: Option<u64>,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    recurring: bool,
    /// Claude Code's assistant mode's tasks that never expire; kept as read.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    permanent: bool,
}

/// One project's file.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    pub fn new(project: &Path) -> Store {
        Store {
            path: path_in(project),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, source: io::Error) -> StoreError {
        StoreError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// The valid jobs in the file (none when it does not exist).
    pub fn read(&self) -> Result<Vec<Job>, StoreError> {
        Ok(self.read_tasks()?.into_iter().map(job_of).collect())
    }

    fn read_tasks(&self) -> Result<Vec<Task>, StoreError> {
        let doc = self.read_doc()?;
        Ok(tasks_of(&doc)
            .iter()
            .filter_map(|t| serde_json::from_value::<Task>(t.clone()).ok())
            .filter(|t| Cron::parse(&t.cron).is_ok())
            .collect())
    }

    /// The file's object as written (`{"tasks": []}` when there is none):
    /// a change keeps every key and every task it does not touch, the
    /// tasks tack cannot read included.
    fn read_doc(&self) -> Result<Map<String, Value>, StoreError> {
        let text = match tack_sys::config_file::read_config_file(&self.path, MAX_FILE_BYTES) {
            Ok(text) => text,
            Err(e) if tack_sys::config_file::is_missing(&e) => String::new(),
            Err(e) => return Err(self.io(e)),
        };
        if text.trim().is_empty() {
            let mut doc = Map::new();
            doc.insert(TASKS.to_owned(), Value::Array(Vec::new()));
            return Ok(doc);
        }
        let shape = |why: String| StoreError::Shape {
            path: self.path.clone(),
            why,
        };
        match serde_json::from_str(&text).map_err(|e| shape(e.to_string()))? {
            Value::Object(doc) if doc.get(TASKS).is_some_and(Value::is_array) => Ok(doc),
            _ => Err(shape("no \"tasks\" array".to_owned())),
        }
    }

    /// Under the lock: reads the file, lets `change` edit its tasks (as
    /// written), writes it back atomically when something changed.
    fn update(&self, change: impl FnOnce(&mut Vec<Value>) -> bool) -> Result<(), StoreError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| self.io(e))?;
        let _lock = tack_sys::file_lock::lock_exclusive(dir).map_err(|e| self.io(e))?;
        let mut doc = self.read_doc()?;
        let Some(Value::Array(tasks)) = doc.get_mut(TASKS) else {
            return Ok(());
        };
        if !change(tasks) {
            return Ok(());
        }
        let mut body = serde_json::to_vec_pretty(&Value::Object(doc))
            .map_err(|e| self.io(io::Error::other(e)))?;
        body.push(b'\n');
        // A new file is the user's alone (0600), as every file tack shares
        // with Claude Code; an existing one keeps its mode.
        tack_sys::write_atomic_with_mode(&self.path, &body, Some(0o600)).map_err(|e| self.io(e))
    }

    /// Adds `job` (replacing a task of its id).
    pub fn add(&self, job: &Job) -> Result<(), StoreError> {
        let task = serde_json::to_value(task_of(job)).map_err(|e| self.io(io::Error::other(e)))?;
        self.update(|tasks| {
            tasks.retain(|t| id_of(t) != Some(&job.id));
            tasks.push(task);
            true
        })
    }

    /// Removes the tasks with these ids; true when one was there.
    pub fn remove(&self, ids: &[&str]) -> Result<bool, StoreError> {
        let mut removed = false;
        self.update(|tasks| {
            let before = tasks.len();
            tasks.retain(|t| id_of(t).is_none_or(|id| !ids.contains(&id)));
            removed = tasks.len() != before;
            removed
        })?;
        Ok(removed)
    }

    /// Records when the job `id` last fired (so a resumed session keeps its rhythm).
    pub fn mark_fired(&self, id: &str, at_ms: u64) -> Result<(), StoreError> {
        self.update(|tasks| {
            let task = tasks.iter_mut().find(|t| id_of(t) == Some(id));
            let Some(task) = task.and_then(Value::as_object_mut) else {
                return false;
            };
            task.insert("lastFiredAt".to_owned(), Value::from(at_ms));
            true
        })
    }
}

const TASKS: &str = "tasks";

/// The tasks of a file [`Store::read_doc`] read.
fn tasks_of(doc: &Map<String, Value>) -> &[Value] {
    doc.get(TASKS)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A task's id, if it has one that is a string.
fn id_of(task: &Value) -> Option<&str> {
    task.get("id").and_then(Value::as_str)
}

fn job_of(t: Task) -> Job {
    Job {
        id: t.id,
        cron: t.cron,
        prompt: t.prompt,
        created_at: t.created_at,
        last_fired_at: t.last_fired_at,
        recurring: t.recurring,
        durable: true,
    }
}

fn task_of(job: &Job) -> Task {
    Task {
        id: job.id.clone(),
        cron: job.cron.clone(),
        prompt: job.prompt.clone(),
        created_at: job.created_at,
        last_fired_at: job.last_fired_at,
        recurring: job.recurring,
        permanent: false,
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
