//! Process start → first API request, the budget Claude Code misses by 20x
//! (0.37 s there, ≤ 18 ms here). Spawns the optimised `tack` binary against the
//! scripted server and compares the wall-clock instant before `spawn` with the
//! instant the server saw the request's head. Prints a table; no criterion,
//! because each sample is a whole process.
//!
//! Run: `cargo bench -p tack-cli --bench startup`

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use tack_testkit::{MockServer, Reply, Script};

const RUNS: usize = 30;

fn stats(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = samples.iter().map(|d| ms(*d)).sum::<f64>() / samples.len() as f64;
    format!(
        "min {:.1} ms, median {:.1} ms, mean {:.1} ms, max {:.1} ms ({} runs)",
        ms(samples[0]),
        ms(samples[samples.len() / 2]),
        mean,
        ms(samples[samples.len() - 1]),
        samples.len()
    )
}

/// A project that is a git repository with one commit and a dirty file, as real
/// projects are: the first request waits for the git context.
fn git_project() -> tempfile::TempDir {
    let project = tempfile::tempdir().expect("temp project");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=b", "-c", "user.email=b@b"])
            .args(args)
            .current_dir(project.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?} failed");
    };
    git(&["init", "-q"]);
    std::fs::write(project.path().join("README.md"), "hello\n").expect("write");
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "init"]);
    std::fs::write(project.path().join("README.md"), "changed\n").expect("write");
    project
}

fn measure(
    server: &MockServer,
    project: &tempfile::TempDir,
    extra: &[&str],
) -> (Vec<Duration>, Vec<Duration>) {
    let home = tempfile::tempdir().expect("temp home");
    let mut to_request = Vec::new();
    let mut whole = Vec::new();
    for _ in 0..RUNS {
        let before = server.requests().len();
        let start = SystemTime::now();
        let status = Command::new(env!("CARGO_BIN_EXE_tack"))
            .args(["-p", "hi"])
            .args(extra)
            .current_dir(project.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("TACK_CONFIG_DIR", home.path().join(".tack"))
            .env("ANTHROPIC_API_KEY", "bench")
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .stdout(Stdio::null())
            .status()
            .expect("tack runs");
        let end = SystemTime::now();
        assert!(status.success(), "tack failed: {status}");
        let requests = server.requests();
        let first = &requests[before];
        to_request.push(first.received_at.duration_since(start).unwrap_or_default());
        whole.push(end.duration_since(start).unwrap_or_default());
    }
    (to_request, whole)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime
        .block_on(MockServer::start(
            Script::new([Reply::text("hi")]).looping(),
        ))
        .expect("mock server");
    let plain = tempfile::tempdir().expect("temp project");
    let repo = git_project();
    for (label, project, extra) in [
        ("no git, transcript on", &plain, &[][..]),
        (
            "no git, --no-session-persistence",
            &plain,
            &["--no-session-persistence"][..],
        ),
        ("git repository, transcript on", &repo, &[][..]),
    ] {
        let (to_request, whole) = measure(&server, project, extra);
        println!("tack -p hi ({label})");
        println!("  process start -> first request: {}", stats(to_request));
        println!("  whole process:                  {}", stats(whole));
    }
}
