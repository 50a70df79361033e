//! `/loop`, scheduled prompts and wake-ups: Claude Code's CronCreate,
//! CronList, CronDelete and ScheduleWakeup, in the session's runtime.
//!
//! # Where things are
//! - 5-field cron, parsed and matched (no runtime types): `cron.rs`
//! - a job, its jitter and its 7-day life: `job.rs`
//! - the clock (system, or a test's): `clock.rs`
//! - durable jobs in `.claude/scheduled_tasks.json`: `store.rs`; the project's
//!   scheduler lease (one session fires them): `lock.rs`
//! - the one timer and the table of jobs and the wake-up: `scheduler.rs`
//! - what a firing says to the model: `firing.rs`
//! - the tools: `tools.rs` (Cron*), `wakeup.rs` (ScheduleWakeup)
//! - `/loop`: its arguments and messages `loop_cmd.rs`, the command `slash_loop.rs`
//! - a session's schedule (on unless `CLAUDE_CODE_DISABLE_CRON`): `session.rs`
//!
//! Design notes and sources: `docs/schedule.md`.

pub mod clock;
pub mod cron;
pub mod firing;
pub mod job;
pub mod lock;
pub mod loop_cmd;
pub mod scheduler;
pub(crate) mod session;
pub(crate) mod slash_loop;
pub mod store;
pub mod tools;
pub mod wakeup;

pub use clock::{Clock, ManualClock, SessionClock, SystemClock};
