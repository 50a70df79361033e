//! `/loop` as a slash command of every front end: with an interval the job is
//! scheduled here and the turn runs the prompt now; without one the turn
//! tells the model to run it and pace itself with ScheduleWakeup.

use tack_protocol::ContentBlock;

use super::loop_cmd::{DYNAMIC_SENTINEL, dynamic_message, fixed_message, parse};
use super::scheduler::Schedule;
use crate::protocol::op::UserInput;

pub(crate) const LOOP: &str = "loop";

/// The turn `/loop {args}` runs, its message in place of the typed one.
pub(crate) fn loop_turn(schedule: &Schedule, input: UserInput, args: &str) -> UserInput {
    let args = parse(args);
    let prompt = match args.prompt.is_empty() {
        true => schedule.loop_files().prompt(),
        false => args.prompt.clone(),
    };
    let text = match &args.every {
        Some(every) => match schedule.create(&every.cron, &prompt, true, false) {
            Ok(job) => fixed_message(every, &job.id, &prompt),
            Err(e) => format!(
                "/loop could not schedule `{}`: {e}. Tell the user so.",
                every.cron
            ),
        },
        None => {
            let sentinel = match args.prompt.is_empty() {
                true => DYNAMIC_SENTINEL.to_owned(),
                false => format!("/loop {}", args.prompt),
            };
            dynamic_message(&prompt, &sentinel)
        }
    };
    let mut message = input.message.clone();
    message.content[0] = ContentBlock::text(text);
    UserInput { message, ..input }
}
