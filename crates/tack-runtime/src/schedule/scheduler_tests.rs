use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use chrono::{Local, TimeZone};
use pretty_assertions::assert_eq;

use super::*;
use crate::schedule::clock::ManualClock;

/// A schedule on a manual clock whose firings are collected.
struct Fixture {
    clock: ManualClock,
    fired: Arc<Mutex<Vec<String>>>,
    fired_tx: tokio::sync::mpsc::UnboundedReceiver<()>,
    schedule: Schedule,
    _dir: tempfile::TempDir,
}

/// 2026-12-06 10:00:00 local time: minute-aligned wherever the test runs.
fn start_time() -> SystemTime {
    Local
        .with_ymd_and_hms(2026, 12, 6, 10, 0, 0)
        .single()
        .unwrap()
        .into()
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(start_time());
    let fired = Arc::new(Mutex::new(Vec::new()));
    let (tx, fired_tx) = tokio::sync::mpsc::unbounded_channel();
    let sink = fired.clone();
    let schedule = Schedule::start(
        Arc::new(clock.clone()),
        Store::new(dir.path()),
        LoopFiles {
            project: dir.path().to_path_buf(),
            home: None,
        },
        Arc::new(move |text| {
            sink.lock().unwrap().push(text);
            let _ = tx.send(());
        }),
    );
    Fixture {
        clock,
        fired,
        fired_tx,
        schedule,
        _dir: dir,
    }
}

impl Fixture {
    /// Moves the clock and waits for `n` firings.
    async fn advance_and_expect(&mut self, by: Duration, n: usize) -> Vec<String> {
        self.clock.advance(by);
        for _ in 0..n {
            tokio::time::timeout(Duration::from_secs(10), self.fired_tx.recv())
                .await
                .expect("a firing")
                .unwrap();
        }
        // Nothing more comes right after.
        tokio::task::yield_now().await;
        std::mem::take(&mut *self.fired.lock().unwrap())
    }
}

#[tokio::test]
async fn a_job_fires_on_its_minute_and_a_one_shot_goes_after() {
    let mut f = fixture();
    // An id hashing to 0: no jitter, so the minute is exact.
    let every = f.schedule.create("* * * * *", "tick", true, false).unwrap();
    let once = f
        .schedule
        .create("2 10 * * *", "once", false, false)
        .unwrap();
    // Ids are random; jitter for a per-minute job is under 6 s.
    let got = f.advance_and_expect(Duration::from_secs(66), 1).await;
    assert_eq!(got, [firing::job_text(&every)]);
    let got = f.advance_and_expect(Duration::from_secs(60), 2).await;
    let mut want = vec![firing::job_text(&every), firing::job_text(&once)];
    let mut got_sorted = got.clone();
    got_sorted.sort();
    want.sort();
    assert_eq!(got_sorted, want);
    assert_eq!(
        f.schedule
            .list()
            .into_iter()
            .map(|j| j.id)
            .collect::<Vec<_>>(),
        vec![every.id.clone()]
    );
}

#[tokio::test]
async fn a_deleted_job_never_fires_and_a_wakeup_fires_once() {
    let mut f = fixture();
    let job = f
        .schedule
        .create("*/5 * * * *", "five", true, false)
        .unwrap();
    assert_eq!(f.schedule.delete(&job.id).unwrap(), Some(job));
    assert_eq!(f.schedule.delete("nope").unwrap(), None);
    let w = f
        .schedule
        .wake_up(Duration::from_secs(90), "CI", "look again");
    let got = f.advance_and_expect(Duration::from_secs(600), 1).await;
    assert_eq!(got, [firing::wakeup_text(&w, String::new)]);
    assert_eq!(f.schedule.wakeup(), None);
}

#[tokio::test]
async fn a_recurring_job_fires_a_last_time_after_seven_days() {
    let mut f = fixture();
    let job = f
        .schedule
        .create("0 10 * * *", "daily", true, false)
        .unwrap();
    // Past the jitter of a daily job (at most 15 minutes).
    f.advance_and_expect(Duration::from_secs(16 * 60), 0).await;
    for _ in 0..6 {
        let got = f
            .advance_and_expect(Duration::from_secs(24 * 3600), 1)
            .await;
        assert_eq!(got, [firing::job_text(&job)]);
    }
    assert_eq!(f.schedule.list().len(), 1);
    // Day 7: past its 7 days, it fires once more and goes.
    let got = f
        .advance_and_expect(Duration::from_secs(24 * 3600), 1)
        .await;
    assert_eq!(got, [firing::job_text(&job)]);
    assert_eq!(f.schedule.list(), []);
}

#[tokio::test]
async fn durable_jobs_are_kept_in_the_file_and_restored() {
    let f = fixture();
    let job = f
        .schedule
        .create("*/5 * * * *", "kept", true, true)
        .unwrap();
    let _ = f
        .schedule
        .create("*/5 * * * *", "not kept", true, false)
        .unwrap();
    let dir = f._dir.path().to_path_buf();
    assert_eq!(Store::new(&dir).read().unwrap(), vec![job.clone()]);
    // Another session in the same project takes it up.
    let g = fixture();
    let other = Schedule::start(
        Arc::new(g.clock.clone()),
        Store::new(&dir),
        g.schedule.loop_files().clone(),
        Arc::new(|_| {}),
    );
    assert_eq!(other.restore().unwrap(), 1);
    assert_eq!(other.list(), vec![job.clone()]);
    other.delete(&job.id).unwrap();
    assert_eq!(Store::new(&dir).read().unwrap(), []);
}

#[test]
fn bad_jobs_are_refused_with_claude_codes_words() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let f = fixture();
    let errors = [
        f.schedule
            .create("* * *", "p", true, false)
            .unwrap_err()
            .to_string(),
        f.schedule
            .create("0 0 31 2 *", "p", true, false)
            .unwrap_err()
            .to_string(),
        f.schedule
            .create("* * * * *", &"x".repeat(10_001), true, true)
            .unwrap_err()
            .to_string(),
    ];
    for n in 0..MAX_JOBS {
        f.schedule
            .create("* * * * *", &format!("{n}"), true, false)
            .unwrap();
    }
    let too_many = f
        .schedule
        .create("* * * * *", "one more", true, false)
        .unwrap_err()
        .to_string();
    assert_eq!(
        [errors.as_slice(), &[too_many]].concat(),
        [
            "Invalid cron expression '* * *'. Expected 5 fields: M H DoM Mon DoW.",
            "Cron expression '0 0 31 2 *' does not match any calendar date in the next year.",
            "Cron prompt exceeds maximum length of 10000 characters (got 10001). Shorten the prompt or split into multiple jobs.",
            "Too many scheduled jobs (max 50). Cancel one first.",
        ]
    );
}

/// A schedule of the project `dir` on `clock`, its firings sent to `tx`.
fn session_in(
    dir: &std::path::Path,
    clock: &ManualClock,
    tx: tokio::sync::mpsc::UnboundedSender<String>,
) -> Schedule {
    Schedule::start(
        Arc::new(clock.clone()),
        Store::new(dir),
        LoopFiles {
            project: dir.to_path_buf(),
            home: None,
        },
        Arc::new(move |text| {
            let _ = tx.send(text);
        }),
    )
}

fn durable(id: &str, cron: &str, prompt: &str, recurring: bool) -> Job {
    Job {
        id: id.into(),
        cron: cron.into(),
        prompt: prompt.into(),
        created_at: epoch_ms(start_time()),
        last_fired_at: None,
        recurring,
        durable: true,
    }
}

#[tokio::test]
async fn of_two_sessions_resumed_in_one_project_one_fires_a_durable_job() {
    let dir = tempfile::tempdir().unwrap();
    // An id hashing to 0: no jitter.
    Store::new(dir.path())
        .add(&durable("00000000", "*/5 * * * *", "look", true))
        .unwrap();
    let clock = ManualClock::new(start_time());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (a, b) = (
        session_in(dir.path(), &clock, tx.clone()),
        session_in(dir.path(), &clock, tx),
    );
    assert_eq!((a.restore().unwrap(), b.restore().unwrap()), (1, 1));
    for round in 1..=2 {
        clock.advance(Duration::from_secs(5 * 60));
        let fired = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("a firing")
            .unwrap();
        assert!(fired.ends_with(">\nlook\n</scheduled-task>"), "{fired}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(rx.try_recv().is_err(), "fired twice in round {round}");
    }
    // When the holder's schedule ends, the other takes the lease over.
    drop(a);
    tokio::time::sleep(Duration::from_millis(100)).await;
    clock.advance(Duration::from_secs(5 * 60));
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("the other session fires now")
        .unwrap();
    drop(b);
}

#[tokio::test]
async fn a_one_shot_missed_while_no_session_ran_is_put_to_the_user_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    store
        .add(&durable("00000001", "5 10 * * *", "deploy ``now``", false))
        .unwrap();
    store
        .add(&durable("00000002", "0 12 * * *", "later", false))
        .unwrap();
    let clock = ManualClock::new(start_time());
    clock.advance(Duration::from_secs(3600));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let resumed = session_in(dir.path(), &clock, tx);
    assert_eq!(resumed.restore().unwrap(), 1);
    let told = rx.try_recv().unwrap();
    assert_eq!(
        told,
        format!(
            "<scheduled-task missed=\"true\">\nThis one-shot scheduled job was due while no session ran; it has been removed from .claude/scheduled_tasks.json. Do not run any yet: ask the user whether to run it now, and run only what they confirm.\n\n[{}, made at {} ms]\n```\ndeploy ``now``\n```\n</scheduled-task>",
            crate::schedule::cron::human("5 10 * * *"),
            epoch_ms(start_time())
        )
    );
    assert!(tack_protocol::relayed::is_relayed(&told));
    let left: Vec<String> = store.read().unwrap().into_iter().map(|j| j.id).collect();
    assert_eq!(left, ["00000002"]);
}
