//! Transcript load time for a 10k-message session (`cargo bench -p tack-store`).
//! Prints figures; no criterion, the numbers go to BENCHMARKS.md.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::time::Instant;

use serde_json::json;
use tack_protocol::{ContentBlock, Message};
use tack_store::{RecordMeta, Transcript, load};

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir
        .path()
        .join("0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60.jsonl");
    let meta = RecordMeta {
        cwd: "/home/dev/proj".into(),
        git_branch: "main".into(),
        version: "0.1.0".into(),
        entrypoint: String::new(),
    };
    let mut t =
        Transcript::open(&path, "0b7b1a9e-5d0c-4f3e-9a55-2c1f7e8d4b60", meta, None).expect("open");
    let started = Instant::now();
    t.append_user(&Message::user_text("start")).expect("append");
    // 10,000 messages: 5,000 assistant tool calls and their results, ~600 B of text each.
    let body = "lorem ipsum dolor sit amet ".repeat(20);
    for i in 0..5_000 {
        let id = format!("toolu_{i}");
        t.append_assistant(
            json!({"id": format!("msg_{i}"), "type": "message", "role": "assistant", "model": "claude-test",
                   "content": [{"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": format!("/src/{i}.rs")}}],
                   "stop_reason": "tool_use", "stop_sequence": null,
                   "usage": {"input_tokens": 10, "output_tokens": 20}}),
            Some("req"),
        )
        .expect("append");
        t.append_tool_results(
            &Message::user(vec![ContentBlock::tool_result(id, body.clone(), false)]),
            Some(json!({"type": "text"})),
        )
        .expect("append");
    }
    let write_time = started.elapsed();
    let size = std::fs::metadata(&path).expect("stat").len();
    let runs = 20;
    let mut times = Vec::new();
    for _ in 0..runs {
        let t0 = Instant::now();
        let loaded = load(&path).expect("load");
        times.push(t0.elapsed());
        assert_eq!(loaded.messages.len(), 10_001);
    }
    times.sort();
    println!(
        "transcript: 10,001 messages, {:.1} MiB; writing (with fsync per line) took {:.2?} ({:.0} µs/record)",
        size as f64 / 1048576.0,
        write_time,
        write_time.as_micros() as f64 / 10_001.0
    );
    println!(
        "load 10k-message transcript: median {:.2?}, min {:.2?}, max {:.2?} ({runs} runs)",
        times[runs / 2],
        times[0],
        times[runs - 1]
    );
}
