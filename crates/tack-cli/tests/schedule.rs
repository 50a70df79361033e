//! End-to-end: `/loop`, CronCreate/CronList/CronDelete, durable jobs across a
//! resume, ScheduleWakeup and `CLAUDE_CODE_DISABLE_CRON`, on the runtime
//! driven in-process with a clock the test moves (no sleeps for minutes),
//! against the scripted server.

use crate::common;

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use chrono::{Local, TimeZone};
use common::{Env, last_texts, last_tool_results};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_runtime::schedule::{ManualClock, SessionClock};
use tack_runtime::{RuntimeEvent, RuntimeHandle, SessionChoice, SessionOptions, UserInput};
use tack_testkit::{Reply, Script};
use tokio::sync::mpsc;

/// A local, minute-aligned start: cron is local time, wherever the test runs.
pub fn start_time() -> SystemTime {
    Local
        .with_ymd_and_hms(2026, 12, 7, 10, 0, 0)
        .single()
        .unwrap()
        .into()
}

/// A session on `clock`; its turn results come on the returned channel.
pub struct Session {
    pub handle: RuntimeHandle,
    pub results: mpsc::UnboundedReceiver<tack_protocol::stream_json::ResultRecord>,
    pub ended: tokio::sync::oneshot::Receiver<()>,
    pub tools: Vec<String>,
}

pub async fn session(
    env: &Env,
    clock: &ManualClock,
    choice: SessionChoice,
    extra: &[(&str, &str)],
) -> Session {
    let mut vars: HashMap<String, String> = env
        .vars()
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_string_lossy().into_owned()))
        .collect();
    vars.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let place = tack_runtime::Place::new(env.cwd(), tack_runtime::Env(vars)).unwrap();
    let loaded = tack_runtime::load_settings(&place, None).unwrap();
    let mut options = SessionOptions {
        clock: SessionClock::manual(clock),
        ..SessionOptions::default()
    };
    options.conversation.session = choice;
    let runtime = tack_runtime::start(place, &loaded, options).await.unwrap();
    let tools = runtime.info().tools.clone();
    let (handle, mut events) = runtime.spawn();
    let (tx, results) = mpsc::unbounded_channel();
    let (ended_tx, ended) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        while let Some(event) = events.next().await {
            match event {
                RuntimeEvent::TurnEnded(end) => {
                    let _ = tx.send(end.record);
                }
                RuntimeEvent::Ended => break,
                _ => {}
            }
        }
        let _ = ended_tx.send(());
    });
    Session {
        handle,
        results,
        ended,
        tools,
    }
}

impl Session {
    /// The next turn's result text.
    pub async fn turn(&mut self) -> String {
        let record = tokio::time::timeout(Duration::from_secs(30), self.results.recv())
            .await
            .expect("a turn ended")
            .expect("the session is running");
        match record.errors {
            Some(errors) => errors.join("\n"),
            None => record.result.unwrap_or_default(),
        }
    }

    /// Ends the session and waits for it.
    pub async fn end(self) {
        drop(self.handle);
        let _ = tokio::time::timeout(Duration::from_secs(30), self.ended).await;
    }
}

/// The 8-hex-digit job id in `text` after `marker`.
fn id_after(text: &str, marker: &str) -> String {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {text}"))
        + marker.len();
    text[at..at + 8].to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn loop_with_an_interval_runs_now_and_fires_on_the_test_clock() {
    let env = Env::new(Script::new([
        Reply::text("Build is green."),
        Reply::text("Still green."),
        Reply::text("Green again."),
    ]))
    .await;
    let clock = ManualClock::new(start_time());
    let mut s = session(&env, &clock, SessionChoice::New { id: None }, &[]).await;
    s.handle
        .submit(UserInput::text("/loop 1m check the build"))
        .unwrap();
    assert_eq!(s.turn().await, "Build is green.");
    let first = last_texts(&env.request_bodies()[0]);
    let first = first.last().unwrap();
    let id = id_after(first, "recurring job ");
    assert_eq!(
        first,
        &format!(
            "/loop scheduled recurring job {id} on `* * * * *`. It runs when the session is idle, \
and stops after 7 days or when cancelled with CronDelete. Tell the user so in a sentence, \
then do this now (its first run):\n\ncheck the build"
        )
    );
    // Not before its minute (jitter of a per-minute job is under 6 s).
    clock.advance(Duration::from_secs(50));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(env.request_bodies().len(), 1);
    clock.advance(Duration::from_secs(16));
    assert_eq!(s.turn().await, "Still green.");
    let fired = format!(
        "<scheduled-task id=\"{id}\" cron=\"* * * * *\" schedule=\"every minute\">\ncheck the build\n</scheduled-task>"
    );
    assert_eq!(last_texts(&env.request_bodies()[1]), vec![fired.clone()]);
    clock.advance(Duration::from_secs(60));
    assert_eq!(s.turn().await, "Green again.");
    assert_eq!(last_texts(&env.request_bodies()[2]), [fired]);
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cron_list_and_delete_show_and_cancel_jobs() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "t1",
                "CronCreate",
                json!({"cron": "7 * * * *", "prompt": "hourly look"}),
            )
            .tool_use(
                "t2",
                "CronCreate",
                json!({"cron": "30 14 28 2 *", "prompt": "remind me", "recurring": false}),
            )
            .into(),
        Reply::message()
            .tool_use("t3", "CronList", json!({}))
            .into(),
        Reply::text("Two jobs."),
    ]))
    .await;
    let clock = ManualClock::new(start_time());
    let mut s = session(&env, &clock, SessionChoice::New { id: None }, &[]).await;
    s.handle.submit(UserInput::text("schedule things")).unwrap();
    assert_eq!(s.turn().await, "Two jobs.");
    let bodies = env.request_bodies();
    let created = last_tool_results(&bodies[1]);
    let (hourly, once) = (
        id_after(&created[0].1, "recurring job "),
        id_after(&created[1].1, "one-shot job "),
    );
    assert_eq!(
        created,
        [
            (
                "t1".to_owned(),
                format!(
                    "Scheduled recurring job {hourly} (every hour at :07). Session-only: nothing written to disk, it ends with this session. It expires after 7 days; CronDelete cancels it sooner."
                )
            ),
            (
                "t2".to_owned(),
                format!(
                    "Scheduled one-shot job {once} (30 14 28 2 *). Session-only: nothing written to disk, it ends with this session. It fires once, then is deleted."
                )
            ),
        ]
    );
    assert_eq!(
        last_tool_results(&bodies[2]),
        [(
            "t3".to_owned(),
            format!(
                "{hourly} — every hour at :07 (recurring) [session-only]: hourly look\n{once} — 30 14 28 2 * (one-shot) [session-only]: remind me"
            )
        )]
    );
    // The ids are known now: the next turn deletes one and lists again.
    env.server.push(
        Reply::message()
            .tool_use("t4", "CronDelete", json!({"id": hourly}))
            .tool_use("t5", "CronDelete", json!({"id": "ffffffff"}))
            .tool_use("t6", "CronList", json!({}))
            .into(),
    );
    env.server.push(Reply::text("One left."));
    s.handle
        .submit(UserInput::text("drop the hourly one"))
        .unwrap();
    assert_eq!(s.turn().await, "One left.");
    assert_eq!(
        last_tool_results(&env.request_bodies()[4]),
        [
            ("t4".to_owned(), format!("Cancelled job {hourly}.")),
            ("t5".to_owned(), "<tool_use_error>No scheduled job with id 'ffffffff'. CronList shows the session's jobs.</tool_use_error>".to_owned()),
            ("t6".to_owned(), format!("{once} — 30 14 28 2 * (one-shot) [session-only]: remind me")),
        ]
    );
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_durable_job_survives_a_resume() {
    let env = Env::new(Script::new([
        Reply::message()
            .tool_use(
                "t1",
                "CronCreate",
                json!({"cron": "*/5 * * * *", "prompt": "look at the queue", "durable": true}),
            )
            .into(),
        Reply::text("Scheduled."),
        Reply::text("Queue is empty."),
    ]))
    .await;
    let clock = ManualClock::new(start_time());
    let mut s = session(&env, &clock, SessionChoice::New { id: None }, &[]).await;
    s.handle
        .submit(UserInput::text("every 5 minutes, durably"))
        .unwrap();
    assert_eq!(s.turn().await, "Scheduled.");
    s.end().await;
    let path = env.cwd().join(".claude/scheduled_tasks.json");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let id = file["tasks"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        file,
        json!({"tasks": [{
            "id": id,
            "cron": "*/5 * * * *",
            "prompt": "look at the queue",
            "createdAt": tack_epoch_ms(start_time()),
            "recurring": true,
        }]})
    );

    // `-c`: the job comes back and fires on its schedule (jitter under 30 s).
    let mut resumed = session(&env, &clock, SessionChoice::Continue, &[]).await;
    clock.advance(Duration::from_secs(5 * 60 + 30));
    assert_eq!(resumed.turn().await, "Queue is empty.");
    assert_eq!(
        last_texts(&env.request_bodies()[2]),
        [format!(
            "<scheduled-task id=\"{id}\" cron=\"*/5 * * * *\" schedule=\"every 5 minutes\">\nlook at the queue\n</scheduled-task>"
        )]
    );
    resumed.end().await;
    // The firing is recorded for the next resume.
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(env.cwd().join(".claude/scheduled_tasks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        file["tasks"][0]["lastFiredAt"],
        json!(tack_epoch_ms(
            start_time() + Duration::from_secs(5 * 60 + 30)
        ))
    );
}

fn tack_epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test(flavor = "multi_thread")]
async fn schedule_wakeup_ends_the_turn_shows_in_the_stop_input_and_wakes_the_session() {
    let env = Env::new(Script::new([
        Reply::message()
            .text("CI is still running; I'll look again in two minutes.")
            .tool_use(
                "t1",
                "ScheduleWakeup",
                json!({"delaySeconds": 120, "reason": "CI takes a few minutes", "prompt": "/loop check CI"}),
            )
            .into(),
        Reply::text("CI passed."),
    ]))
    .await;
    let log = env.cwd().join("stop.jsonl");
    let hook = format!("cat >> {0}; echo >> {0}", log.display());
    common::write(
        env.cwd().join(".claude/settings.json"),
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    env.trust();
    let clock = ManualClock::new(start_time());
    let mut s = session(&env, &clock, SessionChoice::New { id: None }, &[]).await;
    s.handle.submit(UserInput::text("/loop check CI")).unwrap();
    // The turn ends as soon as ScheduleWakeup returns: no request after it.
    assert_eq!(
        s.turn().await,
        "CI is still running; I'll look again in two minutes."
    );
    assert_eq!(env.request_bodies().len(), 1);
    let instructions = last_texts(&env.request_bodies()[0]).split_off(1);
    clock.advance(Duration::from_secs(119));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(env.request_bodies().len(), 1);
    clock.advance(Duration::from_secs(1));
    assert_eq!(s.turn().await, "CI passed.");
    let results: Vec<Value> = env.request_bodies()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| json!([b["tool_use_id"], b["content"]]))
        .collect();
    assert_eq!(
        results,
        [json!([
            "t1",
            "The session wakes up in 120s (when idle) with the prompt. Reason: CI takes a few minutes"
        ])]
    );
    // The Stop input lists the pending wake-up, and nothing once it fired.
    let crons: Vec<Value> = crate::teams::lines_of(&log)
        .into_iter()
        .map(|l| l["session_crons"].clone())
        .collect();
    let fire_at = tack_epoch_ms(start_time() + Duration::from_secs(120));
    assert_eq!(
        crons,
        [
            json!([{"id": "wakeup", "prompt": "/loop check CI", "reason": "CI takes a few minutes",
                    "fireAt": fire_at, "recurring": false}]),
            json!([])
        ]
    );
    // The wake-up brings the dynamic loop's instructions back.
    assert_eq!(
        last_texts(&env.request_bodies()[1]),
        [format!(
            "<scheduled-task wakeup=\"true\" reason=\"CI takes a few minutes\">\n{}\n</scheduled-task>",
            instructions[0]
        )]
    );
    assert!(instructions[0].starts_with("This is a /loop without a fixed interval"));
    assert!(instructions[0].contains("\n\ncheck CI\n\n"));
    s.end().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn disable_cron_removes_the_tools_and_loop() {
    let env = Env::new(Script::new([])).await;
    let clock = ManualClock::new(start_time());
    let on = session(&env, &clock, SessionChoice::New { id: None }, &[]).await;
    let off = session(
        &env,
        &clock,
        SessionChoice::New { id: None },
        &[("CLAUDE_CODE_DISABLE_CRON", "1")],
    )
    .await;
    let scheduling = |tools: &[String]| {
        tools
            .iter()
            .filter(|t| {
                ["CronCreate", "CronList", "CronDelete", "ScheduleWakeup"].contains(&t.as_str())
            })
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        (scheduling(&on.tools), scheduling(&off.tools)),
        (
            vec![
                "CronCreate".to_owned(),
                "CronList".into(),
                "CronDelete".into(),
                "ScheduleWakeup".into()
            ],
            vec![]
        )
    );
    let mut off = off;
    off.handle
        .submit(UserInput::text("/loop 1m anything"))
        .unwrap();
    assert_eq!(off.turn().await, "Unknown slash command: loop");
    assert_eq!(env.request_bodies().len(), 0);
    on.end().await;
    off.end().await;
}
