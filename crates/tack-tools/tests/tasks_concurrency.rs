//! Writers sharing one task list lose nothing: two threads interleaving
//! updates of one task (a property test), and eight processes hammering one
//! list with creates, claims and updates (the test binary runs itself as
//! each writer). The hammer prints what one update costs under contention
//! (`cargo nextest run -p tack-tools -E 'test(hammer)' --no-capture`).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{Value, json};
use tack_tools::tasks::{NewTask, TaskList};

fn task(subject: &str) -> NewTask {
    NewTask {
        subject: subject.into(),
        description: String::new(),
        active_form: None,
        metadata: None,
    }
}

/// Adds 1 to `metadata[key]` of task `id`.
fn bump(list: &TaskList, id: &str, key: &str) {
    list.update(id, |t| {
        let m = t.metadata.get_or_insert_with(Default::default);
        let n = m.get(key).and_then(Value::as_u64).unwrap_or(0);
        m.insert(key.to_owned(), json!(n + 1));
    })
    .unwrap()
    .unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Two writers on one task, each making its own changes in its own
    /// order (metadata keys set, a shared counter bumped, blockers added):
    /// every change of both is in the task at the end.
    #[test]
    fn two_writers_on_one_task_never_lose_an_update(
        a in prop::collection::vec(0u8..3, 1..24),
        b in prop::collection::vec(0u8..3, 1..24),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let list = TaskList::open(tmp.path()).unwrap();
        for s in ["shared", "x", "y"] {
            list.create(task(s)).unwrap();
        }
        let run = |who: &'static str, ops: Vec<u8>| {
            let list = list.clone();
            std::thread::spawn(move || {
                for (i, op) in ops.iter().enumerate() {
                    match op {
                        0 => {
                            list.update("1", |t| {
                                t.merge_metadata(json!({format!("{who}{i}"): i}).as_object().unwrap());
                            }).unwrap();
                        }
                        1 => bump(&list, "1", "count"),
                        _ => assert!(list.block(if who == "a" { "2" } else { "3" }, "1").unwrap()),
                    }
                }
            })
        };
        let (ta, tb) = (run("a", a.clone()), run("b", b.clone()));
        ta.join().unwrap();
        tb.join().unwrap();
        let got = list.get("1").unwrap().unwrap();
        let meta = got.metadata.unwrap_or_default();
        let bumps = a.iter().chain(&b).filter(|op| **op == 1).count() as u64;
        prop_assert_eq!(meta.get("count").and_then(Value::as_u64).unwrap_or(0), bumps);
        for (who, ops) in [("a", &a), ("b", &b)] {
            for (i, _) in ops.iter().enumerate().filter(|(_, op)| **op == 0) {
                prop_assert_eq!(meta.get(&format!("{who}{i}")), Some(&json!(i)));
            }
        }
        let mut blockers = got.blocked_by.clone();
        blockers.sort();
        let mut expected = Vec::new();
        if a.contains(&2) { expected.push("2".to_owned()); }
        if b.contains(&2) { expected.push("3".to_owned()); }
        prop_assert_eq!(blockers, expected);
    }
}

const WRITERS: usize = 8;
const ROUNDS: usize = 40;
const DIR_VAR: &str = "TACK_TASKS_HAMMER_DIR";

/// One writer of the hammer (run by [`eight_processes_hammering_one_list_lose_nothing`]
/// as a process of its own): each round it creates a task, tries to claim
/// the three tasks before it, and bumps task 1's counter and its own; it prints the
/// ids it claimed and the nanoseconds each bump took, as JSON.
#[test]
#[ignore = "a writer process of the hammer test"]
fn hammer_writer() {
    let Some(dir) = std::env::var_os(DIR_VAR) else {
        return;
    };
    let me = std::env::var("TACK_TASKS_HAMMER_WRITER").unwrap();
    let list = TaskList::open(Path::new(&dir)).unwrap();
    let (mut claimed, mut costs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let made = list.create(task(&me)).unwrap();
        let newest = made.id.parse::<u64>().unwrap();
        // The three tasks before this one: other writers want them too.
        for id in (2..newest).rev().take(3) {
            let id = id.to_string();
            if let Ok(Ok(t)) = list.claim(&id, &me) {
                assert_eq!(t.owner.as_deref(), Some(me.as_str()));
                if !claimed.contains(&id) {
                    claimed.push(id);
                }
            }
        }
        let start = Instant::now();
        bump(&list, "1", "count");
        costs.push(start.elapsed().as_nanos() as u64);
        bump(&list, "1", &me);
    }
    println!("HAMMER {}", json!({"claimed": claimed, "costs": costs}));
}

#[test]
fn eight_processes_hammering_one_list_lose_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let list = TaskList::open(tmp.path()).unwrap();
    list.create(task("counter")).unwrap();
    let alone: Vec<Duration> = (0..20)
        .map(|_| {
            let start = Instant::now();
            bump(&list, "1", "warm-up");
            start.elapsed()
        })
        .collect();
    list.update("1", |t| t.metadata = None).unwrap();
    let exe = std::env::current_exe().unwrap();
    let started = Instant::now();
    let children: Vec<_> = (0..WRITERS)
        .map(|i| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "tasks_concurrency::hammer_writer",
                    "--ignored",
                    "--nocapture",
                ])
                .env(DIR_VAR, tmp.path())
                .env("TACK_TASKS_HAMMER_WRITER", format!("w{i}"))
                .output_spawned()
        })
        .collect();
    let mut claimed: Vec<String> = Vec::new();
    let mut costs: Vec<u64> = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix("HAMMER "))
            .expect(&stdout);
        let report: Value = serde_json::from_str(line).unwrap();
        claimed.extend(
            report["claimed"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned()),
        );
        costs.extend(
            report["costs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap()),
        );
    }
    let wall = started.elapsed();

    let tasks = list.list().unwrap();
    let ids: Vec<String> = tasks.iter().map(|t| t.id.clone()).collect();
    let expected: Vec<String> = (1..=1 + WRITERS * ROUNDS).map(|n| n.to_string()).collect();
    assert_eq!(ids, expected, "every create got its own id, none lost");
    let counter = tasks[0].metadata.clone().unwrap();
    let mut want = serde_json::Map::new();
    want.insert("count".into(), json!(WRITERS * ROUNDS));
    for i in 0..WRITERS {
        want.insert(format!("w{i}"), json!(ROUNDS));
    }
    assert_eq!(counter, want, "no update of task 1 lost");
    let mut unique = claimed.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), claimed.len(), "no task claimed twice");
    for t in &tasks[1..] {
        assert_eq!(t.owner.is_some(), claimed.contains(&t.id), "task {}", t.id);
    }

    costs.sort_unstable();
    let at = |q: f64| Duration::from_nanos(costs[((costs.len() - 1) as f64 * q) as usize]);
    let mean = Duration::from_nanos(costs.iter().sum::<u64>() / costs.len() as u64);
    let mut alone = alone;
    alone.sort_unstable();
    eprintln!(
        "TaskUpdate under {WRITERS} writers (each {ROUNDS} rounds of a create, 3 claims and 2 updates; {wall:.2?} in all), {} timed updates of one task: mean {mean:.2?}, p50 {:.2?}, p99 {:.2?}, max {:.2?}; alone: p50 {:.2?}",
        costs.len(),
        at(0.5),
        at(0.99),
        at(1.0),
        alone[alone.len() / 2],
    );
}

/// Spawning with piped output, for [`Command`].
trait OutputSpawned {
    fn output_spawned(&mut self) -> std::process::Child;
}

impl OutputSpawned for Command {
    fn output_spawned(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}
