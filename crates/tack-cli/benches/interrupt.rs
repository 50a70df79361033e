//! Interrupt → result record, over the Agent SDK protocol (stream-json in and
//! out): the optimised `tack` answers a 20 s streaming answer; 1 s after the
//! first request the bench writes an `interrupt` control request and times the
//! `result` line. Each run is the next message of the same process, so every
//! run also checks that a session goes on after an interrupt. Claude Code
//! 2.1.328 answers this interrupt in 25 ms on the same machine.
//!
//! Run: `cargo bench -p tack-cli --bench interrupt`

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed bench

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};

const RUNS: usize = 20;

fn main() {
    let runtime = common::runtime();
    // A 20 s answer: a first delta, then 20 s of nothing before the rest.
    let slow = || -> Reply {
        Reply::message()
            .text("a long answer that the user interrupts")
            .stall_after(3, Duration::from_secs(20))
            .into()
    };
    let server = runtime
        .block_on(MockServer::start(Script::new((0..RUNS).map(|_| slow()))))
        .expect("mock server");
    let project = tempfile::tempdir().expect("temp project");
    let home = tempfile::tempdir().expect("temp home");
    let mut child = common::tack(project.path(), home.path(), &server)
        .args([
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tack runs");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel::<(Instant, Value)>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(value) = serde_json::from_str(&line)
                && tx.send((Instant::now(), value)).is_err()
            {
                break;
            }
        }
    });
    let mut send = |value: Value| {
        writeln!(stdin, "{value}").unwrap();
        stdin.flush().unwrap();
    };
    let mut samples = Vec::new();
    for run in 0..RUNS {
        send(
            json!({"type": "user", "message": {"role": "user", "content": format!("question {run}")},
                    "parent_tool_use_id": null, "session_id": ""}),
        );
        while server.requests().len() <= run {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_secs(1));
        let sent = Instant::now();
        send(
            json!({"type": "control_request", "request_id": format!("int{run}"),
                    "request": {"subtype": "interrupt"}}),
        );
        let at = loop {
            let (at, line) = lines
                .recv_timeout(Duration::from_secs(30))
                .expect("a result");
            if line["type"] == "result" {
                assert_eq!(line["subtype"], "error_during_execution", "{line}");
                break at;
            }
        };
        samples.push(at.duration_since(sent));
    }
    drop(stdin);
    let _ = child.wait();
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "interrupt -> result record ({RUNS} runs, one process): min {:.1} ms, median {:.1} ms, max {:.1} ms",
        ms(samples[0]),
        ms(samples[RUNS / 2]),
        ms(samples[RUNS - 1])
    );
}
