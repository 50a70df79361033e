//! What a firing looks like to the model: the prompt, wrapped in a
//! `<scheduled-task …>` tag that says where it came from (a relayed tag: auto
//! mode's classifier never takes it for the user's own words).

use tack_protocol::relayed::attribute;

use super::cron::human;
use super::job::Job;
use super::job::Wakeup;

/// The tag every firing starts with (one of `tack_protocol`'s relayed tags).
pub const TAG: &str = "<scheduled-task";

/// A cron job's firing.
pub fn job_text(job: &Job) -> String {
    format!(
        "{TAG} id=\"{}\" cron=\"{}\" schedule=\"{}\">\n{}\n</scheduled-task>",
        attribute(&job.id),
        attribute(&job.cron),
        attribute(&human(&job.cron)),
        job.prompt
    )
}

/// A wake-up's firing; the `/loop` sentinel prompt expands to the dynamic
/// loop's instructions.
pub fn wakeup_text(w: &Wakeup, default_prompt: impl FnOnce() -> String) -> String {
    let prompt = super::loop_cmd::expand_sentinel(&w.prompt, default_prompt);
    format!(
        "{TAG} wakeup=\"true\" reason=\"{}\">\n{prompt}\n</scheduled-task>",
        attribute(&w.reason)
    )
}

/// One-shot durable jobs whose time passed while no session ran (a resumed
/// session found them): as Claude Code does, they are taken out of the file
/// and the model is asked to check with the user before running any. Each
/// prompt is fenced (a fence longer than any backtick run in it), so its
/// words read as data, not as instructions.
pub fn missed_text(missed: &[Job]) -> String {
    let (these, it, each) = match missed.len() {
        1 => ("This one-shot scheduled job was", "it has", "it"),
        _ => (
            "These one-shot scheduled jobs were",
            "they have",
            "each one",
        ),
    };
    let blocks: Vec<String> = missed
        .iter()
        .map(|job| {
            let longest = (job.prompt.split(|c| c != '`'))
                .map(str::len)
                .max()
                .unwrap_or(0);
            let fence = "`".repeat(longest.max(2) + 1);
            format!(
                "[{}, made at {} ms]\n{fence}\n{}\n{fence}",
                human(&job.cron),
                job.created_at,
                job.prompt
            )
        })
        .collect();
    format!(
        "{TAG} missed=\"true\">\n{these} due while no session ran; {it} been removed from .claude/scheduled_tasks.json. Do not run any yet: ask the user whether to run {each} now, and run only what they confirm.\n\n{}\n</scheduled-task>",
        blocks.join("\n\n")
    )
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn firings_name_their_job_and_escape_attributes() {
        let job = Job {
            id: "0123abcd".into(),
            cron: "*/5 * * * *".into(),
            prompt: "check \"the\" build".into(),
            created_at: 0,
            last_fired_at: None,
            recurring: true,
            durable: false,
        };
        let wakeup = Wakeup {
            at: SystemTime::UNIX_EPOCH,
            reason: "CI takes \"a while\" <5m>".into(),
            prompt: "look again".into(),
        };
        let texts = [job_text(&job), wakeup_text(&wakeup, String::new)];
        // Both read as relayed text: never the user's own words.
        assert!(texts.iter().all(|t| tack_protocol::relayed::is_relayed(t)));
        assert_eq!(
            texts,
            [
                "<scheduled-task id=\"0123abcd\" cron=\"*/5 * * * *\" schedule=\"every 5 minutes\">\ncheck \"the\" build\n</scheduled-task>",
                "<scheduled-task wakeup=\"true\" reason=\"CI takes &quot;a while&quot; &lt;5m&gt;\">\nlook again\n</scheduled-task>",
            ]
        );
    }
}
