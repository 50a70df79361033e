//! The streaming tool executor through the loop: tools start when their block
//! finishes streaming, safe ones overlap, unsafe ones run alone and in order.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_core::permission::AllowAll;
use tack_core::query::{LoopEvent, QueryConfig, query};
use tack_protocol::{ContentBlock, StopReason};
use tack_tool::Tool;
use tokio_util::sync::CancellationToken;

const GAP: Duration = Duration::from_millis(200);
const START_SLACK: Duration = Duration::from_millis(5);

/// A response streaming one tool_use block per (id, name), `GAP` apart.
fn paced_tool_uses(calls: &[(&str, &str)]) -> Response {
    let mut response = Response::start(usage(1, 1));
    let mut blocks = Vec::new();
    for (i, (id, name)) in calls.iter().enumerate() {
        if i > 0 {
            response = response.sleep(GAP);
        }
        let block = ContentBlock::tool_use(*id, *name, json!({}));
        response = response.block(block.clone());
        blocks.push(block);
    }
    response.finish(blocks, StopReason::ToolUse, usage(1, 1))
}

fn block_done(log: &ModelLog, id: &str) -> Instant {
    log.block_done_at
        .iter()
        .find(|(i, _)| i == id)
        .map(|(_, t)| *t)
        .unwrap()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::test(start_paused = true)]
async fn read_only_tools_start_as_their_blocks_finish_and_overlap() {
    let model = FakeModel::new([
        paced_tool_uses(&[("r1", "Read1"), ("r2", "Read2"), ("r3", "Read3")]),
        Response::text("done"),
    ]);
    // Durations chosen so they finish in reverse order (700, 600, 550 ms after r1's block).
    let tools = [("Read1", 700), ("Read2", 400), ("Read3", 150)]
        .map(|(name, sleep)| Arc::new(FakeTool::ok(name, true, name, sleep)));
    let dyn_tools: Vec<Arc<dyn Tool>> = tools.iter().map(|t| t.clone() as Arc<dyn Tool>).collect();
    let events = collect(query(params(
        model.clone(),
        dyn_tools,
        "go",
        CancellationToken::new(),
    )))
    .await;

    let log = model.log.lock().unwrap();
    let runs: Vec<Run> = tools
        .iter()
        .map(|t| t.runs.lock().unwrap()[0].clone())
        .collect();
    for (run, id) in runs.iter().zip(["r1", "r2", "r3"]) {
        let lag = run.started.duration_since(block_done(&log, id));
        assert!(
            lag < START_SLACK,
            "{id} started {:.2} ms after its block",
            ms(lag)
        );
    }
    // All three were running at once: the last start precedes the first end.
    let last_start = runs.iter().map(|r| r.started).max().unwrap();
    let first_end = runs.iter().map(|r| r.ended.unwrap()).min().unwrap();
    assert!(last_start < first_end, "the tools did not overlap");
    // r1 started before the model finished streaming.
    assert!(runs[0].started < log.message_done_at[0]);
    // Results in tool_use order, though they finished in reverse.
    let results = events.iter().find_map(|e| match e {
        LoopEvent::ToolResults(r) => Some(results_of(&r.message)),
        _ => None,
    });
    assert_eq!(
        results,
        Some(vec![
            ("r1".into(), "Read1".into(), false),
            ("r2".into(), "Read2".into(), false),
            ("r3".into(), "Read3".into(), false),
        ])
    );
}

#[tokio::test(start_paused = true)]
async fn an_unsafe_tool_between_reads_runs_alone_and_in_order() {
    let model = FakeModel::new([
        paced_tool_uses(&[("r1", "Read1"), ("w", "Write"), ("r2", "Read2")]),
        Response::text("done"),
    ]);
    // r1 runs 0-300 ms; w (block at 200) must wait for it, runs 300-450; r2 (block at
    // 400) must wait for w.
    let read1 = Arc::new(FakeTool::ok("Read1", true, "1", 300));
    let write = Arc::new(FakeTool::ok("Write", false, "w", 150));
    let read2 = Arc::new(FakeTool::ok("Read2", true, "2", 50));
    let tools: Vec<Arc<dyn Tool>> = vec![read1.clone(), write.clone(), read2.clone()];
    let events = collect(query(params(
        model.clone(),
        tools,
        "go",
        CancellationToken::new(),
    )))
    .await;

    let log = model.log.lock().unwrap();
    let [r1, w, r2] = [&read1, &write, &read2].map(|t| t.runs.lock().unwrap()[0].clone());
    assert!(r1.started.duration_since(block_done(&log, "r1")) < START_SLACK);
    assert!(
        w.started >= r1.ended.unwrap(),
        "the unsafe tool overlapped the read before it"
    );
    assert!(
        w.started.duration_since(r1.ended.unwrap()) < START_SLACK,
        "the unsafe tool did not start when the read before it ended"
    );
    assert!(
        r2.started >= w.ended.unwrap(),
        "the read after the unsafe tool overlapped it"
    );
    assert!(r2.started.duration_since(w.ended.unwrap()) < START_SLACK);
    let results = events.iter().find_map(|e| match e {
        LoopEvent::ToolResults(r) => Some(results_of(&r.message)),
        _ => None,
    });
    assert_eq!(
        results,
        Some(vec![
            ("r1".into(), "1".into(), false),
            ("w".into(), "w".into(), false),
            ("r2".into(), "2".into(), false)
        ])
    );
}

#[tokio::test(start_paused = true)]
async fn concurrency_is_bounded() {
    let ids = ["a", "b", "c", "d", "e"];
    let calls: Vec<_> = ids.iter().map(|id| (*id, "Read", json!({}))).collect();
    let model = FakeModel::new([Response::tool_uses(&calls), Response::text("done")]);
    let read = Arc::new(FakeTool::ok("Read", true, "x", 50));
    let config = QueryConfig {
        max_tool_concurrency: 2,
        ..QueryConfig::new(MODEL)
    };
    let p = params_with(
        model,
        vec![read.clone()],
        Arc::new(AllowAll),
        "go",
        CancellationToken::new(),
        config,
    );
    collect(query(p)).await;
    let runs = read.runs.lock().unwrap().clone();
    assert_eq!(runs.len(), 5);
    let max_running = runs
        .iter()
        .map(|r| {
            runs.iter()
                .filter(|o| o.started <= r.started && o.ended.unwrap() > r.started)
                .count()
        })
        .max()
        .unwrap();
    assert_eq!(max_running, 2);
}
