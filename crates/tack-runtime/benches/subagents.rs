//! Sub-agent figures, printed: (1) the overhead of a sub-agent, from the
//! parent's request that returns the Agent call to the sub-agent's first
//! model request (server arrival times), next to the same gap for a trivial
//! tool (Glob) and its follow-up request; (2) memory per running sub-agent
//! with 10 in parallel (RSS delta while all 10 wait on their first reply).
//!
//! `cargo bench -p tack-runtime --bench subagents` (harness = false).

#![allow(clippy::unwrap_used)] // a benchmark: a failed unwrap is a failed run

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use serde_json::json;
use tack_runtime::{Env, Place, RuntimeEvent, SessionOptions, UserInput};
use tack_testkit::{MockServer, Reply, Script};

const RUNS: usize = 15;

fn place(project: &std::path::Path, home: &std::path::Path, server: &MockServer) -> Place {
    let vars: HashMap<String, String> = [
        ("HOME", home.to_string_lossy().into_owned()),
        ("ANTHROPIC_BASE_URL", server.base_url()),
        ("ANTHROPIC_API_KEY", "test".to_owned()),
        ("CLAUDE_CODE_MAX_RETRIES", "0".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Place::new(project.to_path_buf(), Env(vars)).unwrap()
}

/// Runs one turn against `script`; returns the server's request arrival times.
async fn turn(script: Script, options: SessionOptions) -> Vec<SystemTime> {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = MockServer::start(script).await.unwrap();
    let place = place(project.path(), home.path(), &server);
    let loaded = tack_runtime::load_settings(&place, None).unwrap();
    let runtime = tack_runtime::start(place, &loaded, options).await.unwrap();
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text("go")).unwrap();
    drop(handle);
    while let Some(e) = events.next().await {
        if matches!(e, RuntimeEvent::Ended) {
            break;
        }
    }
    server.requests().iter().map(|r| r.received_at).collect()
}

fn gap(times: &[SystemTime]) -> Duration {
    times[1].duration_since(times[0]).unwrap()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4
}

async fn overhead() {
    let mut agent = Vec::new();
    let mut glob = Vec::new();
    for _ in 0..RUNS {
        let script = Script::new([
            Reply::tool_use(
                "toolu_1",
                "Agent",
                json!({"description": "d", "prompt": "p", "subagent_type": "general-purpose"}),
            ),
            Reply::text("sub"),
            Reply::text("done"),
        ]);
        agent.push(gap(&turn(script, SessionOptions::default()).await));
        let script = Script::new([
            Reply::tool_use("toolu_1", "Glob", json!({"pattern": "*.nothing"})),
            Reply::text("done"),
        ]);
        glob.push(gap(&turn(script, SessionOptions::default()).await));
    }
    let (agent, glob) = (median(agent), median(glob));
    println!(
        "Agent call → sub-agent's first request: median {agent:?}; Glob call → next request: \
         median {glob:?}; sub-agent overhead: {:?} ({RUNS} runs each)",
        agent.saturating_sub(glob)
    );
}

async fn memory() {
    const N: usize = 10;
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut replies = vec![Reply::text("warm")];
    let calls: Vec<Reply> = vec![{
        let mut r = Reply::message();
        for i in 0..N {
            r = r.tool_use(
                &format!("toolu_{i}"),
                "Agent",
                json!({"description": "d", "prompt": format!("task {i}"), "subagent_type": "general-purpose"}),
            );
        }
        r.into()
    }];
    replies.extend(calls);
    // Each sub-agent waits 3 s on its first reply, so all 10 are alive at once.
    for _ in 0..N {
        replies.push(
            Reply::message()
                .text("sub")
                .stall_after(1, Duration::from_secs(3))
                .into(),
        );
    }
    replies.push(Reply::text("done"));
    let server = MockServer::start(Script::new(replies)).await.unwrap();
    let place = place(project.path(), home.path(), &server);
    let loaded = tack_runtime::load_settings(&place, None).unwrap();
    let runtime = tack_runtime::start(place, &loaded, SessionOptions::default())
        .await
        .unwrap();
    let (handle, mut events) = runtime.spawn();
    // A warm-up turn: the client, context and transcript exist before measuring.
    handle.submit(UserInput::text("warm up")).unwrap();
    while let Some(e) = events.next().await {
        if matches!(e, RuntimeEvent::TurnEnded(_)) {
            break;
        }
    }
    let before = rss_kib();
    handle.submit(UserInput::text("go")).unwrap();
    drop(handle);
    let pump = tokio::spawn(async move { while events.next().await.is_some() {} });
    while server.requests().len() < 2 + N {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // All 10 wait on their stalled replies now.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let during = rss_kib();
    pump.await.unwrap();
    println!(
        "RSS before: {before} KiB; with {N} sub-agents running: {during} KiB; per sub-agent: {} KiB",
        during.saturating_sub(before) / N as u64
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(overhead());
    rt.block_on(memory());
}
