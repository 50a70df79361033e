//! Tokens sent per turn over a 100-turn session, with and without microcompact,
//! and the prompt-cache read ratio (cache_read / all input) — through the real
//! Anthropic client against the testkit server, whose cache simulation derives
//! usage from the `cache_control` breakpoints tack sends.
//!
//! `cargo bench -p tack-core --bench context_tokens` prints a table.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_api::{AnthropicClient, Auth, ClientConfig};
use tack_core::context::PromptContext;
use tack_core::deps::ProductionDeps;
use tack_core::executor::ToolSet;
use tack_core::permission::AllowAll;
use tack_core::query::{LoopEvent, QueryConfig, QueryParams, query};
use tack_protocol::Message;
use tack_testkit::{MockServer, Reply, Script};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};
use tokio_util::sync::CancellationToken;

const TURNS: usize = 100;
/// Bytes of each Read result (~1k tokens): 100 turns stay under the
/// autocompact threshold even without microcompact, so both runs see the same
/// replies and differ only by microcompact.
const RESULT_BYTES: usize = 4_000;

struct Read;

impl Tool for Read {
    fn name(&self) -> &str {
        "Read"
    }
    fn description(&self) -> String {
        "Reads a file.".into()
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object", "properties": {"file_path": {"type": "string"}}})
    }
    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }
    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        let path = input["file_path"].as_str().unwrap_or_default().to_owned();
        Box::pin(async move {
            let body = format!("{path}\n{}", "fn x() {}\n".repeat(RESULT_BYTES / 10));
            Ok(ToolOutput::text(body))
        })
    }
}

/// (input, cache_read, cache_write) per model request.
async fn session(microcompact: bool) -> Vec<(u64, u64, u64)> {
    let mut replies: Vec<Reply> = (1..=TURNS)
        .map(|n| {
            Reply::message()
                .text(&format!("Reading file {n}."))
                .tool_use(
                    &format!("toolu_{n}"),
                    "Read",
                    json!({"file_path": format!("/src/f{n}.rs")}),
                )
                .into()
        })
        .collect();
    replies.push(Reply::text("Done."));
    let server = MockServer::start(Script::new(replies)).await.unwrap();
    let client = AnthropicClient::new(ClientConfig {
        base_url: server.base_url(),
        auth: Auth::ApiKey("sk-bench".into()),
        ..ClientConfig::default()
    })
    .unwrap();
    let dir = std::env::temp_dir();
    let params = QueryParams {
        messages: vec![Message::user_text("Read every file under src/.")],
        context: Arc::new(PromptContext {
            system_prompt: vec!["You are tack, a coding agent.".repeat(40)],
            user_context: Some("CLAUDE.md: use tabs.".into()),
            system_context: Some("gitStatus: clean".into()),
        }),
        tools: ToolSet::new(vec![Arc::new(Read)]),
        tool_env: Arc::new(ToolEnv::new(dir.clone(), dir)),
        can_use_tool: Arc::new(AllowAll),
        deps: Arc::new(ProductionDeps::new(Arc::new(client))),
        config: QueryConfig {
            context_window: Some(200_000),
            microcompact,
            ..QueryConfig::new("claude-sonnet-4-5")
        },
        cancel: CancellationToken::new(),
        stop_hooks: None,
        autocompact_tracking: Default::default(),
        model_switch: None,
    };
    let events: Vec<LoopEvent> = query(params).collect().await;
    events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::AssistantMessage(a) => Some((
                a.usage.input_tokens,
                a.usage.cache_read_input_tokens,
                a.usage.cache_creation_input_tokens,
            )),
            _ => None,
        })
        .collect()
}

fn total((input, read, write): (u64, u64, u64)) -> u64 {
    input + read + write
}

fn ratio(u: (u64, u64, u64)) -> f64 {
    u.1 as f64 / total(u).max(1) as f64
}

fn main() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let without = rt.block_on(session(false));
    let with = rt.block_on(session(true));
    assert_eq!((without.len(), with.len()), (TURNS + 1, TURNS + 1));

    println!("turn | sent, no microcompact | cache read % | sent, microcompact | cache read %");
    println!("---: | ---: | ---: | ---: | ---:");
    for i in (0..=TURNS).filter(|i| *i < 5 || (i + 1) % 10 == 0 || *i == TURNS) {
        println!(
            "{} | {} | {:.1} | {} | {:.1}",
            i + 1,
            total(without[i]),
            100.0 * ratio(without[i]),
            total(with[i]),
            100.0 * ratio(with[i]),
        );
    }
    for (name, run) in [("no microcompact", &without), ("microcompact", &with)] {
        let sent: u64 = run.iter().copied().map(total).sum();
        let read: u64 = run.iter().map(|u| u.1).sum();
        let after3: Vec<f64> = run[3..].iter().copied().map(ratio).collect();
        let read_after3: u64 = run[3..].iter().map(|u| u.1).sum();
        let sent_after3: u64 = run[3..].iter().copied().map(total).sum();
        let min = after3.iter().copied().fold(f64::INFINITY, f64::min);
        let below = after3.iter().filter(|r| **r < 0.9).count();
        println!(
            "{name}: {sent} tokens sent in {} requests; cache reads {:.1}% overall, \
             {:.1}% after turn 3 (min {:.1}%, {below} requests below 90%); \
             max per request {}",
            run.len(),
            100.0 * read as f64 / sent as f64,
            100.0 * read_after3 as f64 / sent_after3 as f64,
            100.0 * min,
            run.iter().copied().map(total).max().unwrap_or_default(),
        );
    }
}
