//! A session's schedule: on unless `CLAUDE_CODE_DISABLE_CRON` is set; a
//! resumed session (`-r`, `-c`) takes up the project's durable jobs.

use std::path::Path;
use std::sync::Arc;

use tack_tool::{Arrival, Arrivals, Tool};

use super::clock::SessionClock;
use super::loop_cmd::LoopFiles;
use super::scheduler::{Deliver, Schedule};
use super::store::Store;
use super::tools::cron_tools;
use super::wakeup::ScheduleWakeup;
use crate::emit::Emitter;
use crate::event::Notice;
use crate::place::Env;

/// Turns the scheduler, its tools and `/loop` off.
pub const DISABLE_CRON: &str = "CLAUDE_CODE_DISABLE_CRON";

fn truthy(value: Option<String>) -> bool {
    value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// What a session's schedule is made from.
pub(crate) struct ScheduleParts<'a> {
    pub env: &'a Env,
    pub project: &'a Path,
    pub home: Option<&'a Path>,
    pub clock: &'a SessionClock,
    /// The session resumes a conversation (`-r`, `-c`).
    pub resumed: bool,
    /// Where firings go (the main loop's queue).
    pub arrivals: Arrivals,
    pub emit: &'a Emitter,
}

/// The session's schedule, or `None` when cron is off.
pub(crate) fn for_session(p: ScheduleParts<'_>) -> Option<Schedule> {
    if truthy(p.env.get(DISABLE_CRON)) {
        return None;
    }
    let arrivals = p.arrivals;
    let deliver: Deliver = Arc::new(move |text| arrivals.push(Arrival::idle(text)));
    let schedule = Schedule::start(
        p.clock.get(),
        Store::new(p.project),
        LoopFiles {
            project: p.project.to_path_buf(),
            home: p.home.map(Path::to_path_buf),
        },
        deliver,
    );
    if p.resumed
        && let Err(e) = schedule.restore()
    {
        p.emit.notice(Notice::warning(format!(
            "Scheduled tasks were not restored: {e}"
        )));
    }
    Some(schedule)
}

/// The tools of a schedule: CronCreate, CronList, CronDelete, ScheduleWakeup.
pub(crate) fn schedule_tools(schedule: Option<&Schedule>) -> Vec<Arc<dyn Tool>> {
    let Some(schedule) = schedule else {
        return Vec::new();
    };
    let mut tools = cron_tools(schedule);
    tools.push(Arc::new(ScheduleWakeup(schedule.clone())));
    tools
}

/// The Stop hook's `session_crons` (Claude Code 2.1.145 added the field; its
/// entries' shape is unconfirmed): each job as the Agent SDK's `CronTask`
/// `{id, cron, prompt, createdAt, recurring}` plus `durable`, then the
/// pending wake-up as `{id: "wakeup", prompt, reason, fireAt, recurring:
/// false}` (epoch ms).
pub(crate) fn session_crons(schedule: &Schedule) -> Vec<serde_json::Value> {
    let jobs = schedule.list().into_iter().map(|job| {
        serde_json::json!({"id": job.id, "cron": job.cron, "prompt": job.prompt,
            "createdAt": job.created_at, "recurring": job.recurring, "durable": job.durable})
    });
    let wakeup = schedule.wakeup().map(|w| {
        serde_json::json!({"id": "wakeup", "prompt": w.prompt, "reason": w.reason,
            "fireAt": super::job::epoch_ms(w.at), "recurring": false})
    });
    jobs.chain(wakeup).collect()
}
