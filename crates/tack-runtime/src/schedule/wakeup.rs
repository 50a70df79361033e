//! ScheduleWakeup: a dynamic `/loop` picks when it runs next. One wake-up is
//! pending at a time; a new one replaces it.

use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::input as tool_input;
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult, TurnEnd};

use super::scheduler::Schedule;

pub const SCHEDULE_WAKEUP: &str = "ScheduleWakeup";
/// The shortest and longest delay; others are clamped.
pub const MIN_DELAY: u64 = 60;
pub const MAX_DELAY: u64 = 3600;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct WakeupInput {
    /// Seconds from now to wake up (clamped to [60, 3600]).
    delay_seconds: f64,
    /// One short sentence on why this delay.
    reason: String,
    /// The prompt to run on wake-up: the /loop prompt (or its sentinel) to keep the loop going.
    prompt: String,
}

#[derive(Debug)]
pub struct ScheduleWakeup(pub Schedule);

/// The delay asked for, clamped to what the tool allows.
fn clamped(seconds: f64) -> u64 {
    if seconds.is_nan() {
        return MIN_DELAY;
    }
    // In range after the clamp, so the cast cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let whole = seconds.clamp(MIN_DELAY as f64, MAX_DELAY as f64).round() as u64;
    whole
}

impl Tool for ScheduleWakeup {
    fn name(&self) -> &str {
        SCHEDULE_WAKEUP
    }

    fn description(&self) -> String {
        "Schedules this session to wake up later with a prompt: how a /loop without an interval \
paces itself. It ends the turn: call it last; the prompt runs when the session is idle \
after delaySeconds (60 to 3600). Prefer under 300 s while things change quickly (the prompt \
cache stays warm), 1200 s or more when nothing is expected soon. Not calling it ends the loop; \
a new call replaces the pending wake-up."
            .into()
    }

    fn input_schema(&self) -> Value {
        tool_input::schema_for::<WakeupInput>()
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        false
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        tool_input::parse::<WakeupInput>(self.name(), input).map(|_| ())
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: WakeupInput = tool_input::parse(self.name(), &input)?;
            let delay = clamped(input.delay_seconds);
            self.0
                .wake_up(Duration::from_secs(delay), &input.reason, &input.prompt);
            Ok(ToolOutput::text(format!(
                "The session wakes up in {delay}s (when idle) with the prompt. Reason: {}",
                input.reason
            ))
            .with_structured(json!({ "delaySeconds": delay, "reason": input.reason }))
            // Claude Code ends the turn as soon as ScheduleWakeup returns.
            .with_turn_end(TurnEnd::Stop))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn delays_are_clamped_to_a_minute_and_an_hour() {
        let got: Vec<u64> = [0.0, 59.4, 60.0, 270.6, 3600.0, 1e12, f64::NAN, -5.0]
            .into_iter()
            .map(clamped)
            .collect();
        assert_eq!(got, [60, 60, 60, 271, 3600, 3600, 60, 60]);
    }
}
