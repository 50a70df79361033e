//! `/loop [interval] <prompt>`: run a prompt now and again later.
//!
//! With an interval (`30s`, `5m`, `2h`, `1d`, leading or as a trailing
//! `every 5m`) the runtime schedules a recurring job itself, rounded to what
//! cron can say, and the prompt runs now. Without one the model paces itself:
//! it runs the prompt, then picks the next delay with ScheduleWakeup. With no
//! prompt the loop's prompt is `.claude/loop.md`, else `~/.claude/loop.md`,
//! else a built-in maintenance prompt.

use std::path::{Path, PathBuf};

use super::job::RECURRING_MAX_AGE;

/// The prompt a wake-up carries for a dynamic loop with no prompt of its own;
/// it expands to the loop's instructions when it fires.
pub const DYNAMIC_SENTINEL: &str = "<<autonomous-loop-dynamic>>";

/// What `/loop`'s arguments ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopArgs {
    /// The cron expression and how the interval was rounded to it.
    pub every: Option<Every>,
    /// The prompt as typed; empty: the loop file or the built-in prompt.
    pub prompt: String,
}

/// An interval as cron says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Every {
    pub cron: String,
    /// The interval as typed (`7m`).
    pub asked: String,
    /// What it became when cron cannot say it exactly (`10m`).
    pub rounded: Option<String>,
}

/// The built-in prompt of a loop with none.
const MAINTENANCE_PROMPT: &str = "This is a maintenance pass of a loop the user started. \
Carry on with unfinished work from this conversation; then look after the current \
branch (review comments, failing checks, merge conflicts); when nothing is pending, \
tidy up (a bug hunt, a simplification). Start nothing new beyond that, and do nothing \
irreversible (pushing, deleting) that the conversation has not already asked for.";

/// Reads `/loop`'s arguments.
pub fn parse(args: &str) -> LoopArgs {
    let args = args.trim();
    let (first, rest) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
    if let Some(every) = interval(first) {
        return LoopArgs {
            every: Some(every),
            prompt: rest.trim().to_owned(),
        };
    }
    // `<prompt> every 5m`.
    if let Some((prompt, tail)) = args.rsplit_once(" every ")
        && let Some(every) = interval(tail.trim())
    {
        return LoopArgs {
            every: Some(every),
            prompt: prompt.trim().to_owned(),
        };
    }
    LoopArgs {
        every: None,
        prompt: args.to_owned(),
    }
}

/// `5m` as cron, rounded to an interval that divides its unit evenly.
fn interval(token: &str) -> Option<Every> {
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = token.split_at(digits);
    let n: u64 = number.parse().ok().filter(|n| *n > 0)?;
    let seconds = match unit {
        "s" | "sec" | "secs" => n,
        "m" | "min" | "mins" => n.checked_mul(60)?,
        "h" | "hr" | "hrs" => n.checked_mul(3600)?,
        "d" | "day" | "days" => n.checked_mul(24 * 3600)?,
        _ => return None,
    };
    // Cron counts whole minutes: seconds round up.
    let (cron, clean) = cron_for_minutes(seconds.div_ceil(60));
    Some(Every {
        cron,
        asked: token.to_owned(),
        rounded: (clean * 60 != seconds).then(|| says(clean)),
    })
}

/// The cron of an interval in whole minutes, and the interval it really is.
fn cron_for_minutes(minutes: u64) -> (String, u64) {
    const MINUTE_STEPS: [u64; 12] = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60];
    const HOUR_STEPS: [u64; 8] = [1, 2, 3, 4, 6, 8, 12, 24];
    let nearest = |steps: &[u64], v: u64| {
        steps
            .iter()
            .copied()
            .min_by_key(|s| s.abs_diff(v))
            .unwrap_or(1)
    };
    if minutes < 60 {
        let m = nearest(&MINUTE_STEPS, minutes);
        return match m {
            1 => ("* * * * *".to_owned(), 1),
            60 => ("0 * * * *".to_owned(), 60),
            m => (format!("*/{m} * * * *"), m),
        };
    }
    if minutes < 24 * 60 {
        let h = nearest(&HOUR_STEPS, (minutes + 30) / 60);
        return match h {
            1 => ("0 * * * *".to_owned(), 60),
            24 => ("0 0 * * *".to_owned(), 24 * 60),
            h => (format!("0 */{h} * * *"), h * 60),
        };
    }
    let d = ((minutes + 12 * 60) / (24 * 60)).clamp(1, 31);
    match d {
        1 => ("0 0 * * *".to_owned(), 24 * 60),
        d => (format!("0 0 */{d} * *"), d * 24 * 60),
    }
}

fn says(minutes: u64) -> String {
    match minutes {
        m if m % (24 * 60) == 0 => format!("{}d", m / (24 * 60)),
        m if m % 60 == 0 => format!("{}h", m / 60),
        m => format!("{m}m"),
    }
}

/// Where a loop typed without a prompt finds one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopFiles {
    pub project: PathBuf,
    pub home: Option<PathBuf>,
}

impl LoopFiles {
    /// The project's loop file, the user's, or the built-in maintenance prompt.
    pub fn prompt(&self) -> String {
        default_prompt(&self.project, self.home.as_deref())
    }
}

fn default_prompt(project: &Path, home: Option<&Path>) -> String {
    let files = [Some(project), home].into_iter().flatten();
    for dir in files {
        let path = dir.join(".claude").join("loop.md");
        if let Ok(text) = tack_sys::config_file::read_config_file(&path, 256 * 1024)
            && !text.trim().is_empty()
        {
            return text.trim().to_owned();
        }
    }
    MAINTENANCE_PROMPT.to_owned()
}

/// The message of the turn a fixed-interval loop starts with.
pub fn fixed_message(every: &Every, job_id: &str, prompt: &str) -> String {
    let rounded = every
        .rounded
        .as_ref()
        .map(|r| format!(" ({} rounded to {r}, which cron can say)", every.asked))
        .unwrap_or_default();
    let days = RECURRING_MAX_AGE.as_secs() / 86_400;
    format!(
        "/loop scheduled recurring job {job_id} on `{}`{rounded}. It runs when the session is idle, \
and stops after {days} days or when cancelled with CronDelete. Tell the user so in a sentence, \
then do this now (its first run):\n\n{prompt}",
        every.cron
    )
}

/// The message of a dynamic loop's turn (first run or a wake-up): do the
/// work, then choose when to look again.
pub fn dynamic_message(prompt: &str, sentinel: &str) -> String {
    format!(
        "This is a /loop without a fixed interval: you decide when to run it again.\n\
1. Do this now:\n\n{prompt}\n\n\
2. Then, as the last thing in your turn, call ScheduleWakeup with delaySeconds between 60 and \
3600 (shorter while things are changing, longer when they are quiet; under 300 keeps the \
prompt cache warm), a one-sentence reason, and prompt exactly `{sentinel}`. \
Say the delay and why before calling it. To stop the loop, do not call ScheduleWakeup."
    )
}

/// A wake-up's prompt as it runs: a `/loop …` or the sentinel becomes the
/// dynamic loop's instructions again; anything else runs as written.
pub fn expand_sentinel(prompt: &str, default: impl FnOnce() -> String) -> String {
    let trimmed = prompt.trim();
    if trimmed == DYNAMIC_SENTINEL {
        return dynamic_message(&default(), trimmed);
    }
    if let Some(rest) = trimmed.strip_prefix("/loop")
        && (rest.is_empty() || rest.starts_with(char::is_whitespace))
    {
        let args = parse(rest);
        if args.every.is_none() {
            let work = match args.prompt.is_empty() {
                true => default(),
                false => args.prompt,
            };
            return dynamic_message(&work, trimmed);
        }
    }
    prompt.to_owned()
}

#[cfg(test)]
#[path = "loop_cmd_tests.rs"]
mod tests;
