use std::sync::Arc;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use tack_sys::run::{CommandSpec, Ended, Finished, Program, run_command};

const LONG: Duration = Duration::from_secs(30);

/// `Finished` without its wall time (which varies).
fn settled(mut f: Finished) -> Finished {
    f.duration = Duration::ZERO;
    f
}

#[tokio::test]
async fn stdin_env_and_both_streams_reach_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = CommandSpec::shell(
        "cat; printf ' %s' \"$GREETING\"; echo oops >&2; exit 3",
        dir.path(),
        LONG,
        1024,
    );
    spec.env = vec![("GREETING".into(), "hi".into())];
    spec.stdin = Some(Arc::new(b"{\"a\":1}".to_vec()));
    let done = run_command(&spec, std::future::pending()).await;
    assert_eq!(
        settled(done),
        Finished {
            ended: Ended::Exited(3),
            stdout: "{\"a\":1} hi".into(),
            stderr: "oops\n".into(),
            truncated: false,
            duration: Duration::ZERO,
        }
    );
}

#[tokio::test]
async fn a_program_runs_without_a_shell_and_a_missing_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = CommandSpec::shell("", dir.path(), LONG, 1024);
    spec.program = Program::Exec {
        program: "echo".into(),
        args: vec!["$HOME".into()],
    };
    let done = run_command(&spec, std::future::pending()).await;
    assert_eq!(
        (done.ended, done.stdout),
        (Ended::Exited(0), "$HOME\n".into())
    );
    spec.program = Program::Exec {
        program: dir.path().join("no-such-program").display().to_string(),
        args: Vec::new(),
    };
    let done = run_command(&spec, std::future::pending()).await;
    assert!(matches!(done.ended, Ended::SpawnFailed(_)), "{done:?}");
}

#[tokio::test]
async fn output_past_the_cap_is_dropped_and_said_to_be() {
    let dir = tempfile::tempdir().unwrap();
    let spec = CommandSpec::shell("yes | head -c 100000", dir.path(), LONG, 10);
    let done = run_command(&spec, std::future::pending()).await;
    assert_eq!(
        settled(done),
        Finished {
            ended: Ended::Exited(0),
            stdout: "y\ny\ny\ny\ny\n".into(),
            stderr: String::new(),
            truncated: true,
            duration: Duration::ZERO,
        }
    );
}

/// Waits (as a condition, at most 10 s) until process `pid` has gone.
fn assert_gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let alive = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|r| !r.starts_with(" Z"))
        })
    };
    while alive() {
        assert!(Instant::now() < deadline, "process {pid} survived");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn child_pid(dir: &std::path::Path) -> i32 {
    std::fs::read_to_string(dir.join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn a_timeout_stops_the_whole_group_and_keeps_what_was_said() {
    let dir = tempfile::tempdir().unwrap();
    let timeout = Duration::from_millis(300);
    let spec = CommandSpec::shell(
        "echo before; sleep 30 & echo $! > child.pid; wait",
        dir.path(),
        timeout,
        1024,
    );
    let started = Instant::now();
    let done = run_command(&spec, std::future::pending()).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        (done.ended, done.stdout),
        (Ended::TimedOut(timeout), "before\n".into())
    );
    assert_gone(child_pid(dir.path()));
}

#[tokio::test]
async fn a_cancel_stops_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let spec = CommandSpec::shell(
        "sleep 30 & echo $! > child.pid; wait",
        dir.path(),
        LONG,
        1024,
    );
    let pid_file = dir.path().join("child.pid");
    let cancel = async {
        while !std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n')) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let done = run_command(&spec, cancel).await;
    assert_eq!(done.ended, Ended::Cancelled);
    assert_gone(child_pid(dir.path()));
}
