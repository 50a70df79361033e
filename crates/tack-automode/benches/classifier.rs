//! `cargo bench -p tack-automode --bench classifier`
//!
//! The time auto mode's classifier adds to a classified call beyond the
//! model's own time: render the action, build the request over a 200-entry
//! transcript (system prompt, one block per entry, breakpoints), serialise it
//! as a client does before sending, read the answer to its final message and
//! parse the verdict. The model is an in-process `ModelClient` that answers at
//! once, so everything measured is tack's. Printed: the median and 90th
//! percentile over many runs for an allow (one request) and a block (two),
//! and the transcript's own costs (one entry pushed; 200 messages converted).

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed bench

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::stream::{self, BoxStream, StreamExt};
use serde_json::json;
use tack_api::{ApiError, ModelClient, StreamEvent};
use tack_automode::{AutoModeConfig, Classifier, Entry, Transcript, Verdict};
use tack_protocol::{
    ContentBlock, Message, MessageResponse, MessagesRequest, Role, StopReason, Usage,
};
use tokio_util::sync::CancellationToken;

/// Answers stage 1 with `first`, stage 2 with a reasoned block; serialises
/// each request as the HTTP clients do.
struct AtOnce {
    first: &'static str,
}

impl ModelClient for AtOnce {
    fn stream(
        &self,
        request: MessagesRequest,
        _cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        let body = serde_json::to_vec(&request).unwrap();
        std::hint::black_box(body);
        let (text, stop) = if request.stop_sequences.is_empty() {
            (
                "Force pushing main rewrites shared history. <block>yes</block><category>History rewrite</category><reason>It would overwrite main on origin.</reason>",
                StopReason::EndTurn,
            )
        } else {
            (self.first, StopReason::StopSequence)
        };
        let message = MessageResponse {
            id: "msg_bench".into(),
            kind: "message".into(),
            role: Role::Assistant,
            model: request.model,
            content: vec![ContentBlock::text(text)],
            stop_reason: Some(stop),
            stop_sequence: None,
            usage: Usage::default(),
            stop_details: None,
        };
        stream::iter([Ok(StreamEvent::MessageDone(message))]).boxed()
    }
}

/// 100 turns: a user message, a tool call, its result (left out by the
/// transcript) — 200 transcript entries, with edits and writes of realistic size.
fn conversation() -> Vec<Message> {
    let mut messages = Vec::new();
    for i in 0..100 {
        messages.push(Message::user_text(format!(
            "Step {i}: now fix the failing test in src/module_{i}.rs and keep the public API as it is; run the tests afterwards."
        )));
        let input = match i % 4 {
            0 => {
                json!({"command": format!("cargo test -p crate_{i} -- --nocapture 2>&1 | tail -50")})
            }
            1 => json!({"file_path": format!("/work/project/src/module_{i}.rs")}),
            2 => json!({
                "file_path": format!("/work/project/src/module_{i}.rs"),
                "old_string": "fn old() {}\n".repeat(40),
                "new_string": "fn new() {}\n".repeat(45),
            }),
            _ => json!({
                "file_path": format!("/work/project/src/new_{i}.rs"),
                "content": "pub fn generated() -> u32 { 42 }\n".repeat(100),
            }),
        };
        let name = ["Bash", "Read", "Edit", "Write"][i % 4];
        messages.push(Message::assistant(vec![
            ContentBlock::text("Let me do that."),
            ContentBlock::tool_use(format!("toolu_{i}"), name, input),
        ]));
        messages.push(Message::user(vec![ContentBlock::tool_result(
            format!("toolu_{i}"),
            "ok\n".repeat(200),
            false,
        )]));
    }
    messages
}

fn percentiles(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    (at(0.5), at(0.9))
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let messages = conversation();
    let transcript = Transcript::from_messages(&messages);
    assert_eq!(transcript.len(), 200);
    let action = Entry::ToolCall {
        name: "Bash".into(),
        input: json!({"command": "git push --force origin main"}),
    };
    let environment = "Working directory: /work/project\nBranch: main\nStatus: 3 files changed";
    let cancel = CancellationToken::new();
    const RUNS: usize = 2000;

    println!("| what (200-entry transcript) | median ms | p90 ms | runs |");
    println!("| --- | --- | --- | --- |");
    for (label, first, expected_requests) in [
        ("classified call, allowed (1 request)", "<block>no", 1),
        ("classified call, blocked (2 requests)", "<block>yes", 2),
    ] {
        let classifier = Classifier::new(
            Arc::new(AtOnce { first }),
            "claude-sonnet-4-5".into(),
            AutoModeConfig::defaults(),
        );
        let mut times = Vec::with_capacity(RUNS);
        for _ in 0..RUNS + 100 {
            let started = Instant::now();
            let classification = rt.block_on(classifier.classify_counted(
                &transcript,
                &action,
                environment,
                &cancel,
            ));
            times.push(started.elapsed());
            assert_eq!(classification.requests, expected_requests);
            assert!(!matches!(classification.verdict, Verdict::Failed { .. }));
        }
        let (median, p90) = percentiles(times.split_off(100));
        println!("| {label} | {median:.3} | {p90:.3} | {RUNS} |");
    }

    let mut times = Vec::with_capacity(RUNS);
    for i in 0..RUNS {
        let mut grown = transcript.clone();
        let entry = Entry::ToolCall {
            name: "Bash".into(),
            input: json!({"command": format!("cargo test -p crate_{i}")}),
        };
        let started = Instant::now();
        grown.push(entry);
        times.push(started.elapsed());
    }
    let (median, p90) = percentiles(times);
    println!("| one entry pushed onto the transcript | {median:.4} | {p90:.4} | {RUNS} |");

    let mut times = Vec::with_capacity(RUNS / 10);
    for _ in 0..RUNS / 10 {
        let started = Instant::now();
        std::hint::black_box(Transcript::from_messages(&messages));
        times.push(started.elapsed());
    }
    let (median, p90) = percentiles(times);
    println!(
        "| the transcript rebuilt from 300 messages (`from_messages`) | {median:.3} | {p90:.3} | {} |",
        RUNS / 10
    );
}
