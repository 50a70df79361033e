//! Loop overhead: the time from the model's `message_stop` (the client yielding
//! `MessageDone`) to the next request leaving (`QueryDeps::call_model` being
//! called), with histories of 10, 100 and 1000 messages. The tool is instant, so
//! what is measured is the loop's own work: assistant message assembly, executor
//! spawn and result collection, the tool-result message, the transcript barrier,
//! the compaction tiers and `build_request`.
//!
//! Also prints the memory retained per history message, measured with a counting
//! global allocator, against the message's JSON size.
//!
//! `cargo bench -p tack-core --bench loop_overhead`

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use serde_json::{Value, json};
use tack_api::{ApiError, StreamEvent};
use tack_core::context::PromptContext;
use tack_core::deps::QueryDeps;
use tack_core::executor::ToolSet;
use tack_core::permission::AllowAll;
use tack_core::query::{QueryConfig, QueryParams, query};
use tack_protocol::{
    ContentBlock, Message, MessageResponse, MessagesRequest, Role, StopReason, Usage,
};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};
use tokio_util::sync::CancellationToken;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to `System` with the caller's arguments
// unchanged, so `System`'s guarantees are this allocator's; the counter is
// only bookkeeping and never touches the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract (a non-zero size).
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator, that is from `System`, with
        // `layout` (the caller's contract).
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` with `layout`, and `new_size` is
        // valid for it (the caller's contract).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const MODEL: &str = "claude-sonnet-4-5";

/// A realistic history: the prompt, then (assistant text + Read tool_use, user
/// tool_result with ~1.5 KB of file content) pairs.
fn history(len: usize) -> Vec<Message> {
    let mut messages = vec![Message::user_text(
        "Refactor the parser module to use the new lexer.",
    )];
    let mut i = 0;
    while messages.len() < len {
        messages.push(Message::assistant(vec![
            ContentBlock::text(
                format!("Let me read file {i} to see how the lexer is used there. ").repeat(2),
            ),
            ContentBlock::tool_use(
                format!("toolu_{i:020}"),
                "Read",
                json!({"file_path": format!("/proj/src/parser/file_{i}.rs")}),
            ),
        ]));
        messages.push(Message::user(vec![ContentBlock::tool_result(
            format!("toolu_{i:020}"),
            format!("{i:>6}\tfn parse_item(&mut self) -> Result<Item, ParseError> {{ self.lexer.next() }}\n").repeat(18),
            false,
        )]));
        i += 1;
    }
    messages.truncate(len);
    messages
}

fn response(
    blocks: Vec<ContentBlock>,
    stop_reason: StopReason,
) -> Vec<Result<StreamEvent, ApiError>> {
    let mut events: Vec<_> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| {
            Ok(StreamEvent::BlockDone {
                index,
                block: block.clone(),
                input_error: None,
            })
        })
        .collect();
    events.push(Ok(StreamEvent::MessageDone(MessageResponse {
        id: "msg_bench".into(),
        kind: "message".into(),
        role: Role::Assistant,
        model: MODEL.into(),
        content: blocks,
        stop_reason: Some(stop_reason),
        stop_sequence: None,
        usage: Usage {
            input_tokens: 1000,
            output_tokens: 50,
            ..Usage::default()
        },
        stop_details: None,
    })));
    events
}

/// Answers instantly: first a tool_use, then text. Records message_stop and
/// request times.
struct InstantModel {
    responses: Mutex<VecDeque<Vec<Result<StreamEvent, ApiError>>>>,
    times: Arc<Mutex<Vec<Instant>>>,
}

impl QueryDeps for InstantModel {
    fn call_model(
        &self,
        _request: MessagesRequest,
        _cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        self.times.lock().unwrap().push(Instant::now());
        let events = self.responses.lock().unwrap().pop_front().unwrap();
        let times = self.times.clone();
        let n = events.len();
        futures::stream::iter(events.into_iter().enumerate().map(move |(i, e)| {
            if i + 1 == n {
                times.lock().unwrap().push(Instant::now());
            }
            e
        }))
        .boxed()
    }

    fn new_id(&self) -> String {
        String::from("uuid")
    }
}

struct InstantRead;

impl Tool for InstantRead {
    fn name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> String {
        "Reads a file".into()
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]})
    }
    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }
    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(Ok(ToolOutput::text("fn main() {}\n"))))
    }
}

/// One query over `history`: one tool turn, then a final answer. Returns the gap
/// between the first response's message_stop and the second request.
async fn one_gap(history: Vec<Message>, env: Arc<ToolEnv>) -> Duration {
    let times = Arc::new(Mutex::new(Vec::new()));
    let deps = Arc::new(InstantModel {
        responses: Mutex::new(VecDeque::from([
            response(
                vec![ContentBlock::tool_use(
                    "toolu_bench",
                    "Read",
                    json!({"file_path": "/proj/x.rs"}),
                )],
                StopReason::ToolUse,
            ),
            response(vec![ContentBlock::text("done")], StopReason::EndTurn),
        ])),
        times: times.clone(),
    });
    let params = QueryParams {
        messages: history,
        context: Arc::new(PromptContext {
            system_prompt: vec!["You are tack.".into()],
            user_context: Some("CLAUDE.md: use tabs".into()),
            system_context: None,
        }),
        tools: ToolSet::new(vec![Arc::new(InstantRead)]),
        tool_env: env,
        can_use_tool: Arc::new(AllowAll),
        deps,
        config: QueryConfig::new(MODEL),
        cancel: CancellationToken::new(),
        stop_hooks: None,
        autocompact_tracking: Default::default(),
        model_switch: None,
    };
    let mut stream = query(params);
    while stream.next().await.is_some() {}
    let t = times.lock().unwrap();
    // [request 1, message_stop 1, request 2, message_stop 2]
    t[2].duration_since(t[1])
}

fn loop_overhead(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir();
    let env = Arc::new(ToolEnv::new(dir.clone(), dir));
    let mut group = c.benchmark_group("loop_overhead");
    group.sample_size(10);
    for len in [10usize, 100, 1000] {
        let base = history(len);
        group.bench_with_input(
            BenchmarkId::new("message_stop_to_next_request", len),
            &base,
            |b, base| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let h = base.clone();
                        total += rt.block_on(one_gap(h, env.clone()));
                    }
                    total
                })
            },
        );
    }
    group.finish();
}

/// Live heap bytes per message of a history built by parsing JSON (as a resumed
/// transcript is), against the compact JSON size of the same messages.
fn memory_per_message(_c: &mut Criterion) {
    for (label, messages) in [
        ("realistic (Read tool turns)", history(1000)),
        (
            "tiny (\"ok\" text)",
            (0..1000).map(|_| Message::user_text("ok")).collect(),
        ),
    ] {
        let json: Vec<String> = messages
            .iter()
            .map(|m| serde_json::to_string(m).unwrap())
            .collect();
        drop(messages);
        let json_bytes: usize = json.iter().map(String::len).sum();
        let before = LIVE.load(Ordering::Relaxed);
        let parsed: Vec<Message> = json
            .iter()
            .map(|s| serde_json::from_str(s).unwrap())
            .collect();
        let retained = LIVE.load(Ordering::Relaxed) - before;
        let n = parsed.len();
        println!(
            "memory/{label}: {} B retained per message, {} B JSON per message, ratio {:.2}",
            retained / n,
            json_bytes / n,
            retained as f64 / json_bytes as f64
        );
        drop(parsed);
    }
}

criterion_group!(benches, loop_overhead, memory_per_message);
criterion_main!(benches);
