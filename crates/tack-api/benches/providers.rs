//! `cargo bench -p tack-api --bench providers`
//!
//! The same scripted reply (180 KB of text in 12-character deltas, then a
//! 26 KB tool input in 7-byte fragments) streamed from the testkit server over
//! loopback by each client: Anthropic Messages, OpenAI Chat Completions and
//! OpenAI Responses. Printed per provider:
//! - first request: a new client's first request (connection set-up included),
//!   time to the first event and to the whole message;
//! - warm: median time per request over 15, and the client's own on-CPU time
//!   per streamed event (the server runs on another thread), whose difference
//!   to Anthropic's is the cost of the OpenAI translation per token delta.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed bench

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;
use tack_api::{
    AnthropicClient, Auth, ClientConfig, ModelClient, OpenAiApi, OpenAiClient, OpenAiConfig,
};
use tack_protocol::{Message, MessagesRequest};
use tack_testkit::{MockServer, Reply, Script};
use tokio_util::sync::CancellationToken;

fn thread_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Duration::from_nanos(ns)
}

/// (events, time to the first event, time to the end) of one request.
async fn request(client: &dyn ModelClient) -> (u64, Duration, Duration) {
    let started = Instant::now();
    let request = MessagesRequest::new("m", 1024, vec![Message::user_text("hi")]);
    let mut stream = client.stream(request, CancellationToken::new());
    let mut n = 0u64;
    let mut first = None;
    while let Some(item) = stream.next().await {
        item.unwrap();
        first.get_or_insert_with(|| started.elapsed());
        n += 1;
    }
    (n, first.unwrap_or_default(), started.elapsed())
}

fn main() {
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reply = || {
        Reply::message()
            .text(&"The quick brown fox jumps over the lazy dog. ".repeat(4000))
            .tool_use(
                "toolu_01",
                "Write",
                json!({"file_path": "/x", "content": "fn main() {}\n".repeat(2000)}),
            )
            .usage(100, 50)
            .into()
    };
    let server = server_rt
        .block_on(MockServer::start(Script::new([reply()]).looping()))
        .unwrap();
    let base = server.base_url();
    // Built up front; each one's first request still opens its connection.
    let anthropic = ClientConfig {
        base_url: base.clone(),
        auth: Auth::ApiKey("bench".into()),
        ..ClientConfig::default()
    };
    let openai =
        |api| OpenAiClient::new(OpenAiConfig::new("b", api, format!("{base}/v1"))).unwrap();
    let clients: Vec<(&str, Arc<dyn ModelClient>)> = vec![
        (
            "anthropic",
            Arc::new(AnthropicClient::new(anthropic).unwrap()),
        ),
        ("openai-chat", Arc::new(openai(OpenAiApi::Chat))),
        ("openai-responses", Arc::new(openai(OpenAiApi::Responses))),
    ];
    println!(
        "| provider | events/request | first request: first event, whole | warm: ms/request (median of 15) | client on-CPU ns/event |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for (name, client) in &clients {
        let (events, first, whole) = rt.block_on(request(client.as_ref()));
        let mut times = Vec::new();
        let cpu = thread_cpu();
        for _ in 0..15 {
            times.push(rt.block_on(request(client.as_ref())).2);
        }
        let cpu = (thread_cpu() - cpu) / 15;
        times.sort();
        println!(
            "| {name} | {events} | {:.2} ms, {:.1} ms | {:.1} | {:.0} |",
            first.as_secs_f64() * 1e3,
            whole.as_secs_f64() * 1e3,
            times[7].as_secs_f64() * 1e3,
            cpu.as_nanos() as f64 / events as f64
        );
    }
}
