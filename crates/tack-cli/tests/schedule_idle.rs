//! Measure (run by hand, `--run-ignored only`): the CPU an idle `tack`
//! session with ten scheduled jobs uses over 60 s of real time. The jobs are
//! daily ones a few hours away, so none fires while it is measured: what is
//! left is the cost of waiting (one timer, no polling).

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_testkit::{Reply, Script};

use crate::common::{Env, user_line};

/// utime + stime of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may hold spaces) start at ") ".
    let rest = &stat[stat.rfind(") ").unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "takes 60 s; prints the idle CPU figure for BENCHMARKS.md"]
async fn idle_cpu_of_a_session_with_ten_scheduled_jobs() {
    let hour = (chrono::Local::now()
        .naive_local()
        .time()
        .format("%H")
        .to_string())
    .parse::<u32>()
    .unwrap();
    let mut creating = Reply::message();
    for n in 0..10u32 {
        let cron = format!("{} {} * * *", 7 + n * 5, (hour + 3) % 24);
        creating = creating.tool_use(
            &format!("t{n}"),
            "CronCreate",
            json!({"cron": cron, "prompt": format!("job {n}")}),
        );
    }
    let env = Env::new(Script::new([
        creating.into(),
        Reply::text("Ten jobs scheduled."),
    ]))
    .await;
    let mut child = env.stream_json();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", user_line("schedule ten jobs")).unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "the session ended");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "result" {
            assert_eq!(v["result"], "Ten jobs scheduled.");
            break;
        }
    }
    // Let start-up work settle, then measure.
    std::thread::sleep(Duration::from_secs(2));
    let (before, started) = (cpu_ticks(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(60));
    let (after, elapsed) = (cpu_ticks(pid), started.elapsed());
    // SAFETY: sysconf has no preconditions.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let cpu = (after - before) as f64 / ticks_per_second;
    println!(
        "idle session with 10 scheduled jobs: {cpu:.3} s CPU over {:.1} s ({} ticks)",
        elapsed.as_secs_f64(),
        after - before
    );
    drop(stdin);
    let _ = child.wait();
    assert!(cpu < 0.5, "{cpu} s of CPU while idle");
}
