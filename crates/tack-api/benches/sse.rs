//! `cargo bench -p tack-api`
//!
//! - `sse_decode`: framer + decode + assembly of a recorded-style ~1 MB stream
//!   (thousands of small text deltas, one large tool_use input in many fragments),
//!   fed in 16 KiB chunks like a socket delivers it; MB/s, and events/s printed.
//! - `client_e2e`: `AnthropicClient` streaming a large scripted reply from the
//!   testkit server over loopback; time per streamed event (server included).

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use serde_json::json;
use tack_api::{AnthropicClient, Auth, ClientConfig, ModelClient, StreamDecoder, StreamEvent};
use tack_protocol::{Message, MessagesRequest};
use tack_testkit::{MockServer, Reply, Script};
use tokio_util::sync::CancellationToken;

const CHUNK: usize = 16 * 1024;

/// A ~1 MB stream in the API's exact wire format, key order included (`json!`
/// would sort the keys, so the events are written out).
fn recorded_stream() -> Vec<u8> {
    let mut s = String::new();
    let mut event = |name: &str, data: &str| {
        s.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    let delta = |index: usize, kind: &str, field: &str, value: &str| {
        let value = serde_json::Value::from(value);
        format!(
            r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"{kind}","{field}":{value}}}}}"#
        )
    };
    event(
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_01Gq7uN4","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2190,"cache_creation_input_tokens":0,"cache_read_input_tokens":15872,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":3,"service_tier":"standard"}}}"#,
    );
    event(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    let words = [
        "Let me ",
        "look at ",
        "the failing ",
        "test: ",
        "`cargo test -p tack-core`",
        " prints ",
        "\"quoted\" ",
        "résumé ✓ ",
        "\n",
    ];
    for i in 0..5200 {
        let text = format!(
            "{}{}",
            words[i % words.len()],
            words[(i * 7 + 3) % words.len()]
        );
        event(
            "content_block_delta",
            &delta(0, "text_delta", "text", &text),
        );
        if i % 500 == 0 {
            event("ping", r#"{"type": "ping"}"#);
        }
    }
    event(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    );
    event(
        "content_block_start",
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"Write","input":{}}}"#,
    );
    let file: String = (0..4000)
        .map(|i| format!("    let x{i} = \"value {i}\"; // line\n"))
        .collect();
    let input = json!({"file_path": "/home/dev/tack/src/big.rs", "content": file}).to_string();
    event(
        "content_block_delta",
        &delta(1, "input_json_delta", "partial_json", ""),
    );
    let mut rest = input.as_str();
    while !rest.is_empty() {
        let mut cut = rest.len().min(60);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (fragment, tail) = rest.split_at(cut);
        event(
            "content_block_delta",
            &delta(1, "input_json_delta", "partial_json", fragment),
        );
        rest = tail;
    }
    event(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":1}"#,
    );
    event(
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":41230}}"#,
    );
    event("message_stop", r#"{"type":"message_stop"}"#);
    s.into_bytes()
}

/// Decodes the whole stream; returns the number of events produced.
fn decode_all(stream: &[u8], out: &mut VecDeque<StreamEvent>) -> usize {
    let mut decoder = StreamDecoder::new();
    let mut n = 0;
    for chunk in stream.chunks(CHUNK) {
        if let Err(e) = decoder.feed(chunk, out) {
            panic!("decode: {e}");
        }
        n += out.len();
        out.clear();
    }
    if let Err(e) = decoder.finish(out) {
        panic!("finish: {e}");
    }
    n + out.len()
}

/// Time on CPU of this thread (Linux `schedstat`), so figures from a shared,
/// loaded machine can be told apart from time spent waiting for a core.
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Wall-clock and on-CPU time per round over `rounds` runs of `f`, for the
/// figures criterion does not print (events/s, ns/event).
fn time_per_round(rounds: u32, mut f: impl FnMut()) -> (Duration, Option<Duration>) {
    let cpu = thread_cpu();
    let started = Instant::now();
    for _ in 0..rounds {
        f();
    }
    let wall = started.elapsed() / rounds;
    let cpu = thread_cpu().zip(cpu).map(|(b, a)| (b - a) / rounds);
    (wall, cpu)
}

static PRINTED_DECODE: std::sync::Once = std::sync::Once::new();
static PRINTED_E2E: std::sync::Once = std::sync::Once::new();

fn sse_decode(c: &mut Criterion) {
    let stream = recorded_stream();
    let sse_events = stream.windows(7).filter(|w| w == b"event: ").count();
    let mut out = VecDeque::new();
    let mut group = c.benchmark_group("sse_decode");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(stream.len() as u64));
    group.bench_function("1mb_recorded_stream", |b| {
        PRINTED_DECODE.call_once(|| {
            let events = decode_all(&stream, &mut out);
            let (wall, cpu) = time_per_round(200, || {
                std::hint::black_box(decode_all(&stream, &mut out));
            });
            let report = |what: &str, t: Duration| {
                println!(
                    "sse_decode ({what}): {} bytes, {sse_events} SSE events -> {events} StreamEvents; \
                     {:.0} MB/s, {:.2} M SSE events/s, {:.0} ns/event",
                    stream.len(),
                    stream.len() as f64 / t.as_secs_f64() / 1e6,
                    sse_events as f64 / t.as_secs_f64() / 1e6,
                    t.as_nanos() as f64 / sse_events as f64,
                );
            };
            report("wall", wall);
            if let Some(cpu) = cpu {
                report("on-CPU", cpu);
            }
        });
        b.iter(|| decode_all(&stream, &mut out))
    });
    group.finish();
}

fn client_e2e(c: &mut Criterion) {
    let mut group = c.benchmark_group("client_e2e");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("loopback_large_reply", |b| {
        // The server gets its own runtime thread; the client runs on this thread
        // alone, so this thread's CPU time is the client's cost.
        let server_rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
            Ok(rt) => rt,
            Err(e) => panic!("runtime: {e}"),
        };
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => panic!("runtime: {e}"),
        };
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(4000);
        let reply = Reply::message()
            .text(&text)
            .tool_use("toolu_01", "Write", json!({"file_path": "/x", "content": "fn main() {}\n".repeat(2000)}))
            .usage(100, 50);
        let server = match server_rt.block_on(MockServer::start(Script::new([reply.into()]).looping())) {
            Ok(s) => s,
            Err(e) => panic!("server: {e}"),
        };
        let config = ClientConfig {
            base_url: server.base_url(),
            auth: Auth::ApiKey("bench".into()),
            ..ClientConfig::default()
        };
        let client = match AnthropicClient::new(config) {
            Ok(client) => client,
            Err(e) => panic!("client: {e}"),
        };
        let run = || {
            rt.block_on(async {
                let request = MessagesRequest::new("claude-sonnet-4-5", 1024, vec![Message::user_text("hi")]);
                let mut stream = client.stream(request, CancellationToken::new());
                let mut n = 0u64;
                while let Some(item) = stream.next().await {
                    if let Err(e) = item {
                        panic!("stream: {e}");
                    }
                    n += 1;
                }
                n
            })
        };
        PRINTED_E2E.call_once(|| {
            let events = run();
            let (wall, cpu) = time_per_round(5, || {
                std::hint::black_box(run());
            });
            let per_event = |t: Duration| t.as_nanos() as f64 / events as f64;
            println!(
                "client_e2e: {events} StreamEvents per request; {:.2} ms/request, {:.0} ns/event wall \
                 (server included); client on-CPU {:.0} ns/event",
                wall.as_secs_f64() * 1e3,
                per_event(wall),
                cpu.map_or(f64::NAN, per_event),
            );
        });
        b.iter(run);
        drop(server);
    });
    group.finish();
}

criterion_group!(benches, sse_decode, client_e2e);
criterion_main!(benches);
