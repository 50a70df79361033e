//! Background sessions (issue 38's budgets), with the optimised binary
//! against the scripted server:
//! - `tack --bg PROMPT`, the whole launcher process (budget: the id within
//!   50 ms of process start);
//! - `tack agents --json` over 100 job folders (budget ≤ 50 ms): one real
//!   session's folder and 99 copies under new ids (their process is not
//!   theirs, so each row's liveness is read from /proc as for a dead one);
//! - an idle background session, one that has answered a prompt and waits:
//!   its CPU time, context switches and RSS over `TACK_BENCH_IDLE_SECS`
//!   (default 600; budget under 0.1 s of CPU in 10 minutes, RSS ≤ 12 MiB).
//!
//! Prints a table; no criterion, because each sample is a whole process.
//! Run: `cargo bench -p tack-cli --bench background`

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed bench

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tack_testkit::{MockServer, Reply, Script};

const RUNS: usize = 20;

fn median_ms(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!(
        "median {:.1} ms (min {:.1}, max {:.1}, {} runs)",
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    )
}

/// `tack ARGS`, its stdout, and how long the whole process took.
fn run(project: &Path, home: &Path, server: &MockServer, args: &[&str]) -> (String, Duration) {
    let start = Instant::now();
    let out = common::tack(project, home, server)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(out.status.success(), "tack {args:?}: {out:?}");
    (String::from_utf8(out.stdout).unwrap(), took)
}

fn job_id(printed: &str) -> String {
    let line = printed.lines().next().unwrap();
    line.rsplit(' ').next().unwrap().to_owned()
}

fn jobs(home: &Path) -> PathBuf {
    home.join(".claude").join("jobs")
}

/// `state.json`'s `key` in job `id`.
fn field(home: &Path, id: &str, key: &str) -> serde_json::Value {
    let path = jobs(home).join(id).join("state.json");
    let state: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    state[key].clone()
}

fn wait_for_state(home: &Path, id: &str, state: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while field(home, id, "state") != state {
        assert!(Instant::now() < deadline, "{id} never became {state}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// utime + stime of `pid` in clock ticks, and its threads' context switches
/// by thread id.
fn cpu(pid: u32) -> (u64, std::collections::BTreeMap<String, u64>) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    let ticks = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let mut switches = std::collections::BTreeMap::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let task = task.unwrap();
        let status = std::fs::read_to_string(task.path().join("status")).unwrap();
        let n = status
            .lines()
            .filter(|l| l.contains("ctxt_switches"))
            .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
            .sum::<u64>();
        switches.insert(task.file_name().to_string_lossy().into_owned(), n);
    }
    (ticks, switches)
}

/// `VmRSS`, `RssAnon` and `RssFile` of `pid`, in KiB.
fn rss(pid: u32) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("?")
            .to_owned()
    };
    format!(
        "RSS {} KiB (anonymous {} KiB, file {} KiB)",
        kib("VmRSS:"),
        kib("RssAnon:"),
        kib("RssFile:")
    )
}

fn main() {
    let rt = common::runtime();
    let replies = (0..RUNS + 1).map(|_| Reply::text("ok"));
    let server = rt
        .block_on(MockServer::start(Script::new(replies)))
        .unwrap();
    let project = common::git_project();
    let home = tempfile::tempdir().unwrap();
    let (project, home) = (project.path(), home.path());

    // The launcher: `--bg` prints the id and returns.
    let mut launches = Vec::new();
    let mut ids = Vec::new();
    for _ in 0..RUNS {
        let (printed, took) = run(project, home, &server, &["--bg", "say ok"]);
        launches.push(took);
        ids.push(job_id(&printed));
    }
    println!("tack --bg PROMPT, whole process: {}", median_ms(launches));
    for id in &ids {
        wait_for_state(home, id, "done");
        run(project, home, &server, &["stop", id]);
        run(project, home, &server, &["rm", id]);
    }

    // The session that stays: answered, then idle.
    let (printed, _) = run(project, home, &server, &["--bg", "say ok"]);
    let idle = job_id(&printed);
    wait_for_state(home, &idle, "done");
    let pid = u32::try_from(field(home, &idle, "pid").as_u64().unwrap()).unwrap();

    // The list, over 100 folders.
    let source = jobs(home).join(&idle);
    for n in 0..99 {
        let copy = jobs(home).join(format!("{:08x}", 0xa000_0000_u32 + n));
        std::fs::create_dir_all(&copy).unwrap();
        for file in std::fs::read_dir(&source).unwrap() {
            let file = file.unwrap();
            if file.file_type().unwrap().is_file() {
                std::fs::copy(file.path(), copy.join(file.file_name())).unwrap();
            }
        }
    }
    let listed: Vec<Duration> = (0..RUNS)
        .map(|_| run(project, home, &server, &["agents", "--json", "--all"]).1)
        .collect();
    println!(
        "tack agents --json --all, 100 job folders: {}",
        median_ms(listed)
    );

    // Idle.
    let secs: u64 = std::env::var("TACK_BENCH_IDLE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let (ticks, switches) = cpu(pid);
    std::thread::sleep(Duration::from_secs(secs));
    let (ticks_after, switches_after) = cpu(pid);
    // SAFETY: sysconf has no preconditions.
    let hz = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap_or(100);
    // Wake-ups of the threads there all along (a thread that ended or
    // began in between is named apart).
    let woke: u64 = switches_after
        .iter()
        .filter_map(|(tid, n)| Some(n - switches.get(tid)?))
        .sum();
    let came: Vec<&String> = switches_after
        .keys()
        .filter(|t| !switches.contains_key(*t))
        .collect();
    let went: Vec<&String> = switches
        .keys()
        .filter(|t| !switches_after.contains_key(*t))
        .collect();
    println!(
        "idle background session over {secs} s: CPU {:.2} s ({} ticks at {hz} Hz), {woke} context switches of {} threads (threads begun {came:?}, ended {went:?}); {}",
        (ticks_after - ticks) as f64 / hz as f64,
        ticks_after - ticks,
        switches_after.len(),
        rss(pid)
    );
    run(project, home, &server, &["stop", &idle]);
}
