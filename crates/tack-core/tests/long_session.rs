//! Long sessions stay inside the context window: a scripted 300-turn session
//! with 20 KB tool results, through microcompact and autocompact (and a variant
//! with snip), where every request is checked for validity.

use crate::common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use common::{FakeTool, MODEL, Response, Shape, params_with, shape, usage};
use futures::StreamExt;
use futures::stream::BoxStream;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_api::{ApiError, StreamEvent, estimate_request};
use tack_core::compact::CLEARED_PLACEHOLDER;
use tack_core::compact::CompactTrigger;
use tack_core::deps::QueryDeps;
use tack_core::permission::AllowAll;
use tack_core::query::{QueryConfig, Terminal, query};
use tack_core::request::MAX_CACHE_BREAKPOINTS;
use tack_protocol::{ContentBlock, MessagesRequest, Role};
use tokio_util::sync::CancellationToken;

/// Works for `turns` turns (a Read and an Edit each), answers summaries, then
/// stops; checks every request it gets.
struct Agent {
    turns: usize,
    state: Mutex<AgentLog>,
}

#[derive(Default)]
struct AgentLog {
    main_requests: usize,
    summaries: usize,
    /// Estimated prompt tokens of each main request.
    tokens: Vec<u64>,
    saw_cleared: bool,
    saw_snip_note: bool,
}

/// Panics unless `request` is one the API accepts.
fn check_valid(request: &MessagesRequest) {
    let messages = &request.messages;
    assert_eq!(messages.first().map(|m| m.role), Some(Role::User));
    for pair in messages.windows(2) {
        assert_ne!(pair[0].role, pair[1].role, "roles alternate");
    }
    let mut answered = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let results: Vec<&str> = m
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        if !results.is_empty() {
            let previous: Vec<&str> = messages[i - 1].tool_uses().map(|(id, _, _)| id).collect();
            assert_eq!(
                results, previous,
                "message {i} answers the tool_uses before it"
            );
            answered.extend(previous);
        }
    }
    for m in &messages[..messages.len() - 1] {
        for (id, _, _) in m.tool_uses() {
            assert!(answered.contains(id), "{id} unanswered");
        }
    }
    assert!(request.cache_breakpoints() <= MAX_CACHE_BREAKPOINTS);
}

impl QueryDeps for Agent {
    fn call_model(
        &self,
        request: MessagesRequest,
        _cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        check_valid(&request);
        let tokens = estimate_request(&request);
        assert!(tokens < 200_000, "request of {tokens} tokens");
        let mut log = self.state.lock().unwrap();
        let body = serde_json::to_string(&request.messages).unwrap();
        log.saw_cleared |= body.contains(CLEARED_PLACEHOLDER);
        log.saw_snip_note |= body.contains("earlier messages of this conversation were removed");
        let response = if request.tools.is_empty() {
            log.summaries += 1;
            Response::text("<summary>Reading and editing files, turn by turn.</summary>")
        } else {
            log.main_requests += 1;
            log.tokens.push(tokens);
            let n = log.main_requests;
            if n > self.turns {
                Response::text("all done")
            } else {
                Response::blocks(
                    vec![
                        ContentBlock::tool_use(
                            format!("toolu_r{n}"),
                            "Read",
                            json!({"file_path": format!("/src/f{n}.rs")}),
                        ),
                        ContentBlock::tool_use(format!("toolu_e{n}"), "Edit", json!({})),
                    ],
                    // Realistic usage, so the loop's usage-based estimate is exercised.
                    usage(tokens, 60),
                )
            }
        };
        let steps: Vec<_> = response
            .steps
            .into_iter()
            .filter_map(|s| match s {
                common::Step::Event(e) => Some(e),
                common::Step::Sleep(_) | common::Step::Hang => None,
            })
            .collect();
        futures::stream::iter(steps).boxed()
    }
}

async fn run(turns: usize, config: QueryConfig) -> (Vec<Shape>, AgentLog) {
    let agent = Arc::new(Agent {
        turns,
        state: Mutex::default(),
    });
    let read = Arc::new(FakeTool::ok("Read", true, &"r".repeat(20_000), 0));
    let edit = Arc::new(FakeTool::ok("Edit", false, &"e".repeat(4_000), 0));
    let params = params_with(
        agent.clone(),
        vec![read, edit],
        Arc::new(AllowAll),
        "Refactor every file.",
        CancellationToken::new(),
        config,
    );
    let events: Vec<_> = query(params).collect().await;
    let log = std::mem::take(&mut *agent.state.lock().unwrap());
    (shape(&events), log)
}

#[tokio::test]
async fn three_hundred_turns_stay_within_a_200k_window() {
    let config = QueryConfig {
        context_window: Some(200_000),
        ..QueryConfig::new(MODEL)
    };
    let (shapes, log) = run(300, config).await;
    assert_eq!(shapes.last(), Some(&Shape::End(Terminal::Completed)));
    let compactions = shapes
        .iter()
        .filter(|s| **s == Shape::Compacted(CompactTrigger::Auto))
        .count();
    assert_eq!(
        (
            log.main_requests,
            log.summaries,
            compactions,
            log.saw_cleared
        ),
        (301, compactions, compactions, true)
    );
    assert!(compactions >= 1, "autocompact ran");
    // Under the autocompact threshold plus one turn's growth, far from the window.
    let max = log.tokens.iter().max().copied().unwrap_or_default();
    assert!(max < 180_000, "largest request: {max}");
}

#[tokio::test]
async fn with_snip_on_old_turns_are_dropped_instead_of_summarised() {
    let config = QueryConfig {
        context_window: Some(120_000),
        snip: true,
        ..QueryConfig::new(MODEL)
    };
    let (shapes, log) = run(80, config).await;
    assert_eq!(shapes.last(), Some(&Shape::End(Terminal::Completed)));
    assert_eq!((log.summaries, log.saw_snip_note), (0, true));
    let max = log.tokens.iter().max().copied().unwrap_or_default();
    assert!(max < 100_000, "largest request: {max}");
}
