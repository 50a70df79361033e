//! CronCreate, CronList and CronDelete: Claude Code's names and input
//! schemas over the session's [`Schedule`].

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::input as tool_input;
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use super::cron::human;
use super::job::{Job, RECURRING_MAX_AGE};
use super::scheduler::Schedule;

pub const CRON_CREATE: &str = "CronCreate";
pub const CRON_LIST: &str = "CronList";
pub const CRON_DELETE: &str = "CronDelete";

#[derive(Debug, Deserialize, JsonSchema)]
struct CronCreateInput {
    /// Standard 5-field cron expression in local time: "M H DoM Mon DoW" (e.g. "*/5 * * * *" = every 5 minutes, "30 14 28 2 *" = Feb 28 at 2:30pm local once).
    cron: String,
    /// The prompt to enqueue at each fire time.
    prompt: String,
    /// true (default) = fire on every cron match until deleted or auto-expired after 7 days. false = fire once at the next match, then auto-delete. Use false for "remind me at X" one-shot requests with pinned minute/hour/dom/month.
    recurring: Option<bool>,
    /// true = persist to .claude/scheduled_tasks.json and survive restarts. false (default) = in-memory only, dies when this session ends. Use true only when the user asks the task to survive across sessions.
    durable: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct CronListInput {}

#[derive(Debug, Deserialize, JsonSchema)]
struct CronDeleteInput {
    /// Job ID returned by CronCreate.
    id: String,
}

fn days() -> u64 {
    RECURRING_MAX_AGE.as_secs() / 86_400
}

/// The three cron tools over `schedule`.
pub fn cron_tools(schedule: &Schedule) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(CronCreate(schedule.clone())),
        Arc::new(CronList(schedule.clone())),
        Arc::new(CronDelete(schedule.clone())),
    ]
}

#[derive(Debug)]
struct CronCreate(Schedule);

impl Tool for CronCreate {
    fn name(&self) -> &str {
        CRON_CREATE
    }

    fn description(&self) -> String {
        format!(
            "Schedules a prompt to run later in this session: on a 5-field cron schedule in local time \
(recurring, the default) or once at the next match (recurring: false). A firing runs only when \
the session is idle. Recurring jobs fire up to 10% of their period late (at most 15 minutes), \
one-shots due on :00 or :30 up to 90 s early; prefer minutes other than :00 and :30 when the \
user's time is approximate. Recurring jobs expire after {} days (tell the user). durable: true \
keeps the job in .claude/scheduled_tasks.json so a resumed session takes it up; use it only \
when the user asks for the job to outlive the session. Returns the job id for CronDelete.",
            days()
        )
    }

    fn input_schema(&self) -> Value {
        tool_input::schema_for::<CronCreateInput>()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: CronCreateInput = tool_input::parse(self.name(), input)?;
        super::cron::Cron::parse(&input.cron).map_err(|e| ToolError::new(e.to_string()))?;
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: CronCreateInput = tool_input::parse(self.name(), &input)?;
            let recurring = input.recurring.unwrap_or(true);
            let durable = input.durable.unwrap_or(false);
            let job = self
                .0
                .create(&input.cron, &input.prompt, recurring, durable)
                .map_err(|e| ToolError::new(e.to_string()))?;
            let kept = match durable {
                true => "Kept in .claude/scheduled_tasks.json: a resumed session takes it up",
                false => "Session-only: nothing written to disk, it ends with this session",
            };
            let text = match recurring {
                true => format!(
                    "Scheduled recurring job {} ({}). {kept}. It expires after {} days; CronDelete cancels it sooner.",
                    job.id,
                    human(&job.cron),
                    days()
                ),
                false => format!(
                    "Scheduled one-shot job {} ({}). {kept}. It fires once, then is deleted.",
                    job.id,
                    human(&job.cron)
                ),
            };
            Ok(ToolOutput::text(text).with_structured(json!({
                "id": job.id,
                "humanSchedule": human(&job.cron),
                "recurring": recurring,
                "durable": durable,
            })))
        }
        .boxed()
    }
}

#[derive(Debug)]
struct CronList(Schedule);

/// One line of CronList's result.
fn listed(job: &Job) -> String {
    let prompt: String = job.prompt.chars().take(80).collect();
    let cut = if job.prompt.chars().count() > 80 {
        "…"
    } else {
        ""
    };
    format!(
        "{} — {} ({}){}: {prompt}{cut}",
        job.id,
        human(&job.cron),
        if job.recurring {
            "recurring"
        } else {
            "one-shot"
        },
        if job.durable { "" } else { " [session-only]" },
    )
}

impl Tool for CronList {
    fn name(&self) -> &str {
        CRON_LIST
    }

    fn description(&self) -> String {
        "Lists this session's scheduled jobs (CronCreate's and /loop's), durable and session-only."
            .into()
    }

    fn input_schema(&self) -> Value {
        tool_input::schema_for::<CronListInput>()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        tool_input::parse::<CronListInput>(self.name(), input).map(|_| ())
    }

    fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let jobs = self.0.list();
            let text = match jobs.is_empty() {
                true => "No scheduled jobs.".to_owned(),
                false => jobs.iter().map(listed).collect::<Vec<_>>().join("\n"),
            };
            let structured: Vec<Value> = jobs
                .iter()
                .map(|j| {
                    json!({
                        "id": j.id,
                        "cron": j.cron,
                        "humanSchedule": human(&j.cron),
                        "prompt": j.prompt,
                        "recurring": j.recurring,
                        "durable": j.durable,
                    })
                })
                .collect();
            Ok(ToolOutput::text(text).with_structured(json!({ "jobs": structured })))
        }
        .boxed()
    }
}

#[derive(Debug)]
struct CronDelete(Schedule);

impl Tool for CronDelete {
    fn name(&self) -> &str {
        CRON_DELETE
    }

    fn description(&self) -> String {
        "Cancels a job CronCreate or /loop scheduled, by id (durable jobs leave .claude/scheduled_tasks.json too).".into()
    }

    fn input_schema(&self) -> Value {
        tool_input::schema_for::<CronDeleteInput>()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        tool_input::parse::<CronDeleteInput>(self.name(), input).map(|_| ())
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: CronDeleteInput = tool_input::parse(self.name(), &input)?;
            match self.0.delete(&input.id) {
                Ok(Some(job)) => Ok(ToolOutput::text(format!("Cancelled job {}.", job.id))
                    .with_structured(json!({ "id": job.id }))),
                Ok(None) => Err(ToolError::new(format!(
                    "No scheduled job with id '{}'. CronList shows the session's jobs.",
                    input.id
                ))),
                Err(e) => Err(ToolError::new(e.to_string())),
            }
        }
        .boxed()
    }
}
