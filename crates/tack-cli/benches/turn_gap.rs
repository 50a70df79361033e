//! The loop's own time between model calls, as a whole process sees it: from
//! the scripted server handing over a reply's `message_stop` to the next
//! request arriving, in a `tack -p` session of 200 tool turns (each a Glob
//! that finds one file). The budget: ≤ 3 ms after the first tool turn, ≤ 5 ms
//! at the 200th (Claude Code 2.1.328: 59 / 36 ms). The gap holds reading the
//! stream's end, running the tool, the transcript's writes (with their
//! `fsync`s), building and sending the next request.
//!
//! Run: `cargo bench -p tack-cli --bench turn_gap` (measure the real release
//! binary by copying it over `target/release/tack` first: a `cargo bench`
//! build relinks it without its hot-symbol order).

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed bench

mod common;

use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use tack_testkit::{MockServer, Reply, Script};

const RUNS: usize = 5;
const TURNS: usize = 200;

fn script() -> Script {
    let calls = (0..TURNS)
        .map(|i| Reply::tool_use(&format!("toolu_{i:04}"), "Glob", json!({"pattern": "*.md"})));
    Script::new(calls.chain([Reply::text("done")]))
}

/// The gaps of one session, in order: gap `i` follows reply `i`.
fn gaps(server: &MockServer) -> Vec<Duration> {
    let ends = server.stream_ends();
    let requests = server.requests();
    ends.iter()
        .zip(requests.iter().skip(1))
        .map(|(end, next)| next.received_at.duration_since(*end).unwrap_or_default())
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let runtime = common::runtime();
    let repo = common::git_project();
    std::fs::write(repo.path().join("README.md"), "# bench\n").unwrap();
    let home = tempfile::tempdir().expect("temp home");
    let (mut first, mut last) = (Vec::new(), Vec::new());
    for run in 0..RUNS {
        let server = runtime.block_on(MockServer::start(script())).unwrap();
        let status = common::tack(repo.path(), home.path(), &server)
            .args([
                "-p",
                "list the markdown files",
                "--dangerously-skip-permissions",
            ])
            .args(["--max-turns", &(TURNS + 1).to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "run {run}: tack failed: {status}");
        let gaps = gaps(&server);
        assert_eq!(gaps.len(), TURNS, "run {run}: one gap per tool turn");
        // The first tool turn's gap, and the 200th's as the median of the
        // last ten (one turn is a single noisy sample).
        first.push(ms(gaps[0]));
        last.push(median(gaps[TURNS - 10..].iter().copied().map(ms).collect()));
        let all = median(gaps.iter().copied().map(ms).collect());
        println!(
            "run {run}: after turn 1 {:.2} ms, turns {}-{} median {:.2} ms, all {TURNS} median {all:.2} ms",
            first[run],
            TURNS - 9,
            TURNS,
            last[run],
        );
    }
    println!(
        "message_stop → next request, `tack -p` with {TURNS} Glob turns (git repository, transcript on), median of {RUNS} runs: after the 1st tool turn {:.2} ms, at the 200th {:.2} ms",
        median(first),
        median(last),
    );
}
