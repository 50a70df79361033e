//! Monitor on real processes: lines batched into events, the end of the
//! command told, `timeout_ms` stopping it and everything it started, `ws`
//! refused, TaskOutput reading what it printed.

use crate::common;

use std::time::Duration;

use common::Session;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_tool::Arrival;

/// The next `n` arrivals of the session, waiting for each.
async fn arrivals(s: &Session, n: usize) -> Vec<Arrival> {
    let mut got = Vec::new();
    while got.len() < n {
        tokio::time::timeout(Duration::from_secs(20), s.env.arrivals().changed())
            .await
            .expect("an arrival");
        got.extend(s.env.arrivals().take_all());
    }
    got
}

fn id_of(started: &str) -> String {
    started["Monitor ".len().."Monitor ".len() + 9].to_owned()
}

#[tokio::test]
async fn lines_arrive_batched_and_the_end_is_told() {
    let s = Session::new();
    // Two lines at once, a third after a pause longer than the batch window.
    let started = s
        .ok(
            "Monitor",
            json!({"description": "count", "command": "echo one; echo two; sleep 0.6; echo three"}),
        )
        .await;
    let id = id_of(&started);
    let event = |body: &str| {
        Arrival::soon(format!(
            "<monitor-event task_id=\"{id}\" description=\"count\">\n{body}\n</monitor-event>"
        ))
    };
    assert_eq!(
        arrivals(&s, 3).await,
        [
            event("one\ntwo"),
            event("three"),
            event("[The command exited (code 0); the monitor has ended.]"),
        ]
    );
    // TaskOutput reads everything it printed.
    let output = s.ok("TaskOutput", json!({"task_id": id})).await;
    assert!(output.contains("one\ntwo\nthree\n"), "{output}");
}

#[tokio::test]
async fn timeout_ms_stops_the_command_and_what_it_started() {
    let s = Session::with_grace(Duration::from_millis(200));
    let pid_file = s.path("child.pid");
    let command = format!(
        "sleep 600 & echo $! > {}; echo started; wait",
        pid_file.display()
    );
    let started = s
        .ok(
            "Monitor",
            json!({"description": "sleeper", "command": command, "timeout_ms": 1000}),
        )
        .await;
    let id = id_of(&started);
    let got = arrivals(&s, 2).await;
    assert_eq!(
        got.iter().map(|a| a.text.as_str()).collect::<Vec<_>>(),
        [
            format!(
                "<monitor-event task_id=\"{id}\" description=\"sleeper\">\nstarted\n</monitor-event>"
            ),
            format!(
                "<monitor-event task_id=\"{id}\" description=\"sleeper\">\n[The monitor timed out after 1s and was stopped; start it again if still needed.]\n</monitor-event>"
            ),
        ]
    );
    let pid: i32 = common::read_to_string(&pid_file).trim().parse().unwrap();
    // SAFETY: signal 0 only asks whether the process exists.
    let alive = || unsafe { libc::kill(pid, 0) } == 0;
    // Its reaping (by init) may lag the kill a little.
    for _ in 0..40 {
        if !alive() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(), "the command's child outlived the monitor");
}

#[tokio::test]
async fn ws_or_command_is_required_not_both() {
    let s = Session::new();
    assert_eq!(
        [
            s.err(
                "Monitor",
                json!({"description": "feed", "ws": "wss://example.invalid/feed", "command": "ls"})
            )
            .await,
            s.err(
                "Monitor",
                json!({"description": "feed", "ws": "http://example.invalid/"})
            )
            .await,
            s.err("Monitor", json!({"description": "nothing"})).await,
        ],
        [
            "Give `command` or `ws`, not both.",
            "`ws` must be a ws:// or wss:// URL with a host, not http://example.invalid/",
            "`command` is required: the shell command to watch (or `ws`, a WebSocket URL).",
        ]
    );
}
