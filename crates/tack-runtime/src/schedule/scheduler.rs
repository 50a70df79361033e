//! The session's scheduled prompts and the one timer that fires them.
//!
//! Jobs (CronCreate, `/loop`, restored durable jobs) and the pending wake-up
//! (ScheduleWakeup) live in one table. A single task sleeps until the
//! earliest of their next firings, or until the table changes; nothing polls,
//! so an idle session with any number of jobs spends no CPU between them.
//! A firing is handed to `deliver` as the text of an arrival that runs only
//! when the session is idle (the runtime's queue decides when).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use tokio::sync::Notify;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::clock::Clock;
use super::cron::{Cron, CronError};
use super::firing;
use super::job::{Job, Wakeup, epoch_ms, new_id};
use super::lock::SchedulerLock;
use super::loop_cmd::LoopFiles;
use super::store::{Store, StoreError};

/// How many jobs a session may have (Claude Code's `MAX_JOBS`).
pub const MAX_JOBS: usize = 50;
/// A durable job's prompt is at most this long.
pub const MAX_DURABLE_PROMPT_CHARS: usize = 10_000;

/// Where a firing goes: the text of an arrival delivered when idle.
pub type Deliver = Arc<dyn Fn(String) + Send + Sync>;

/// Why CronCreate made no job (worded as its tool result).
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error(transparent)]
    Cron(#[from] CronError),
    #[error("Cron expression '{0}' does not match any calendar date in the next year.")]
    Never(String),
    #[error("Too many scheduled jobs (max {MAX_JOBS}). Cancel one first.")]
    TooMany,
    #[error(
        "Cron prompt exceeds maximum length of {MAX_DURABLE_PROMPT_CHARS} characters (got {0}). Shorten the prompt or split into multiple jobs."
    )]
    TooLong(usize),
    #[error("Could not persist the job: {0}")]
    Store(#[from] StoreError),
}

#[derive(Debug)]
struct Entry {
    job: Job,
    next: Option<SystemTime>,
}

#[derive(Debug, Default)]
struct Table {
    entries: Vec<Entry>,
    wakeup: Option<Wakeup>,
}

struct Shared {
    table: Mutex<Table>,
    changed: Notify,
    clock: Arc<dyn Clock>,
    deliver: Deliver,
    store: Store,
    loop_files: LoopFiles,
    /// The project's scheduler lease: durable jobs fire only while held.
    lock: SchedulerLock,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.lock.release();
    }
}

/// A session's schedule (cheap to clone; the timer stops when the last clone
/// goes).
#[derive(Clone)]
pub struct Schedule {
    shared: Arc<Shared>,
    _stop: Arc<DropGuard>,
}

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schedule")
            .field("store", &self.shared.store.path())
            .finish_non_exhaustive()
    }
}

impl Shared {
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Fires everything due at `now`; returns the next moment something is due.
    fn fire_due(&self, now: SystemTime) -> Option<SystemTime> {
        let mut fired = Vec::new();
        let mut table = self.table();
        // Another live session of the project fires its durable jobs: here
        // a recurring one waits for its next time, a one-shot goes.
        let durable_due =
            (table.entries.iter()).any(|e| e.job.durable && e.next.is_some_and(|at| at <= now));
        let leased = !durable_due || self.lock.acquire();
        if table.wakeup.as_ref().is_some_and(|w| w.at <= now)
            && let Some(w) = table.wakeup.take()
        {
            (self.deliver)(firing::wakeup_text(&w, || self.loop_files.prompt()));
        }
        table.entries.retain_mut(|entry| {
            if entry.next.is_none_or(|at| at > now) {
                return true;
            }
            if entry.job.durable && !leased {
                entry.next = entry.job.next_fire(now).filter(|_| entry.job.recurring);
                return entry.next.is_some();
            }
            (self.deliver)(firing::job_text(&entry.job));
            let keep = entry.job.recurring && !entry.job.expired(now);
            if keep {
                entry.job.last_fired_at = Some(epoch_ms(now));
                entry.next = entry.job.next_fire(now);
            }
            fired.push((entry.job.clone(), keep));
            keep
        });
        let next = table
            .entries
            .iter()
            .filter_map(|e| e.next)
            .chain(table.wakeup.as_ref().map(|w| w.at))
            .min();
        drop(table);
        // The file is shared with other sessions: only this job's line changes.
        for (job, kept) in fired.into_iter().filter(|(job, _)| job.durable) {
            let _ = match kept {
                true => self.store.mark_fired(&job.id, epoch_ms(now)),
                false => self.store.remove(&[&job.id]).map(|_| ()),
            };
        }
        next
    }
}

impl Schedule {
    /// An empty schedule firing into `deliver`, its durable jobs kept in
    /// `store`, its timer started (needs a Tokio runtime).
    pub fn start(
        clock: Arc<dyn Clock>,
        store: Store,
        loop_files: LoopFiles,
        deliver: Deliver,
    ) -> Schedule {
        let lock = SchedulerLock::new(&loop_files.project, uuid::Uuid::new_v4().to_string());
        let shared = Arc::new(Shared {
            table: Mutex::new(Table::default()),
            changed: Notify::new(),
            clock,
            deliver,
            store,
            loop_files,
            lock,
        });
        let stop = CancellationToken::new();
        tokio::spawn(run(shared.clone(), stop.clone()));
        Schedule {
            shared,
            _stop: Arc::new(stop.drop_guard()),
        }
    }

    /// Where `/loop` with no prompt finds one.
    pub fn loop_files(&self) -> &LoopFiles {
        &self.shared.loop_files
    }

    pub fn now(&self) -> SystemTime {
        self.shared.clock.now()
    }

    /// Takes up the durable jobs in the project's file (a resumed session):
    /// each fires next from its last firing, a recurring one from now if
    /// that was missed. One-shots missed while no session ran are, as
    /// Claude Code does it, taken out of the file and put to the model to
    /// ask the user about (by the project's lease holder only).
    pub fn restore(&self) -> Result<usize, StoreError> {
        let jobs = self.shared.store.read()?;
        let now = self.now();
        let leased = self.shared.lock.acquire();
        let mut table = self.shared.table();
        let (mut restored, mut missed) = (0, Vec::new());
        for job in jobs {
            if table.entries.iter().any(|e| e.job.id == job.id) {
                continue;
            }
            let next = match job.next_fire(job.anchor()) {
                // A recurring job keeps its rhythm from now.
                Some(at) if at < now && job.recurring => job.next_fire(now),
                Some(at) if at < now && leased => {
                    missed.push(job);
                    continue;
                }
                other => other,
            };
            table.entries.push(Entry { job, next });
            restored += 1;
        }
        drop(table);
        if !missed.is_empty() {
            let ids: Vec<&str> = missed.iter().map(|j| j.id.as_str()).collect();
            self.shared.store.remove(&ids)?;
            (self.shared.deliver)(firing::missed_text(&missed));
        }
        self.shared.changed.notify_one();
        Ok(restored)
    }

    /// Schedules `prompt` on `cron` (checked first).
    pub fn create(
        &self,
        cron: &str,
        prompt: &str,
        recurring: bool,
        durable: bool,
    ) -> Result<Job, CreateError> {
        Cron::parse(cron)?;
        if durable && prompt.chars().count() > MAX_DURABLE_PROMPT_CHARS {
            return Err(CreateError::TooLong(prompt.chars().count()));
        }
        let now = self.now();
        let job = Job {
            id: new_id(),
            cron: cron.to_owned(),
            prompt: prompt.to_owned(),
            created_at: epoch_ms(now),
            last_fired_at: None,
            recurring,
            durable,
        };
        let next = job.next_fire(now);
        if next.is_none() {
            return Err(CreateError::Never(cron.to_owned()));
        }
        if self.shared.table().entries.len() >= MAX_JOBS {
            return Err(CreateError::TooMany);
        }
        if durable {
            self.shared.store.add(&job)?;
        }
        self.shared.table().entries.push(Entry {
            job: job.clone(),
            next,
        });
        self.shared.changed.notify_one();
        Ok(job)
    }

    /// The session's jobs, oldest first.
    pub fn list(&self) -> Vec<Job> {
        self.shared
            .table()
            .entries
            .iter()
            .map(|e| e.job.clone())
            .collect()
    }

    /// When each job fires next (for tests and front ends).
    pub fn next_fires(&self) -> Vec<(String, Option<SystemTime>)> {
        let table = self.shared.table();
        table
            .entries
            .iter()
            .map(|e| (e.job.id.clone(), e.next))
            .collect()
    }

    /// Cancels the job `id`; `None` when there is none.
    pub fn delete(&self, id: &str) -> Result<Option<Job>, StoreError> {
        let mut table = self.shared.table();
        let Some(i) = table.entries.iter().position(|e| e.job.id == id) else {
            return Ok(None);
        };
        let entry = table.entries.remove(i);
        drop(table);
        if entry.job.durable {
            self.shared.store.remove(&[id])?;
        }
        self.shared.changed.notify_one();
        Ok(Some(entry.job))
    }

    /// Wakes the session after `delay` with `prompt`, replacing a pending wake-up.
    pub fn wake_up(&self, delay: Duration, reason: &str, prompt: &str) -> Wakeup {
        let wakeup = Wakeup {
            at: self.now() + delay,
            reason: reason.to_owned(),
            prompt: prompt.to_owned(),
        };
        self.shared.table().wakeup = Some(wakeup.clone());
        self.shared.changed.notify_one();
        wakeup
    }

    /// The pending wake-up, if any.
    pub fn wakeup(&self) -> Option<Wakeup> {
        self.shared.table().wakeup.clone()
    }
}

/// The timer: fire what is due, then sleep until the next due moment or a
/// change of the table, whichever comes first.
async fn run(shared: Arc<Shared>, stop: CancellationToken) {
    loop {
        let next = shared.fire_due(shared.clock.now());
        let sleep = match next {
            Some(at) => shared.clock.sleep_until(at),
            None => Box::pin(futures::future::pending()),
        };
        tokio::select! {
            () = sleep => {}
            () = shared.changed.notified() => {}
            () = stop.cancelled() => return,
        }
    }
}

#[cfg(test)]
#[path = "scheduler_tests.rs"]
mod tests;
