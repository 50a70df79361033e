//! One test per recovery path and context-management tier, through the real
//! Anthropic client and the testkit server: each asserts the loop's transition
//! sequence and the requests the server recorded.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{FakeTool, MODEL, Shape, shape, tool_env};
use futures::StreamExt;
use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_api::{AnthropicClient, ApiError, Auth, ClientConfig, RetryPolicy};
use tack_core::compact::CompactTrigger;
use tack_core::context::PromptContext;
use tack_core::deps::ProductionDeps;
use tack_core::executor::ToolSet;
use tack_core::permission::AllowAll;
use tack_core::query::RESUME_MESSAGE;
use tack_core::query::{
    LoopEvent, LoopHooks, QueryConfig, QueryParams, StopHookInput, StopHookOutcome, Terminal,
    Transition, query,
};
use tack_protocol::{Message, StopReason};
use tack_testkit::{MockServer, Reply, Script};
use tack_tool::Tool;
use tokio_util::sync::CancellationToken;

const FALLBACK: &str = "claude-haiku-4-5";

fn client(server: &MockServer) -> Arc<ProductionDeps> {
    let client = AnthropicClient::new(ClientConfig {
        base_url: server.base_url(),
        auth: Auth::ApiKey("sk-test".into()),
        retry: RetryPolicy {
            max_retries: 10,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
            max_retry_after: Duration::from_millis(2),
        },
        ..ClientConfig::default()
    })
    .unwrap();
    Arc::new(ProductionDeps::new(Arc::new(client)))
}

struct Run {
    events: Vec<LoopEvent>,
    bodies: Vec<Value>,
}

async fn run(
    script: Vec<Reply>,
    config: QueryConfig,
    tools: Vec<Arc<dyn Tool>>,
    stop_hooks: Option<Arc<dyn LoopHooks>>,
) -> Run {
    let server = MockServer::start(Script::new(script)).await.unwrap();
    let params = QueryParams {
        messages: vec![Message::user_text("Write the report.")],
        context: Arc::new(PromptContext {
            system_prompt: vec!["You are tack.".into()],
            user_context: None,
            system_context: None,
        }),
        tools: ToolSet::new(tools),
        tool_env: tool_env(),
        can_use_tool: Arc::new(AllowAll),
        deps: client(&server),
        config,
        cancel: CancellationToken::new(),
        stop_hooks,
        autocompact_tracking: Default::default(),
        model_switch: None,
    };
    let events: Vec<LoopEvent> = query(params).collect().await;
    let bodies = server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/messages")
        .map(|r| r.body)
        .collect();
    Run { events, bodies }
}

fn request(turn_count: u32, transition: Option<Transition>) -> Shape {
    Shape::Request {
        turn_count,
        transition,
    }
}

fn assistant(tool_uses: &[&str], stop_reason: StopReason) -> Shape {
    Shape::Assistant {
        tool_uses: tool_uses.iter().map(|s| (*s).to_owned()).collect(),
        stop_reason: Some(stop_reason),
    }
}

fn strip_cache_control(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "cache_control")
                .map(|(k, v)| (k.clone(), strip_cache_control(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_cache_control).collect()),
        other => other.clone(),
    }
}

fn messages(body: &Value) -> Value {
    strip_cache_control(&body["messages"])
}

fn is_summary_request(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
        && body
            .to_string()
            .contains("write a summary of the conversation")
}

fn text_of_last_message(body: &Value) -> String {
    let last = body["messages"].as_array().unwrap().last().unwrap();
    last["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn cut(text: &str) -> Reply {
    Reply::message().text(text).stop_reason("max_tokens").into()
}

#[tokio::test]
async fn max_output_tokens_escalates_once_then_resumes_three_times_then_surfaces() {
    let r = run(
        vec![
            cut("part 0"),
            cut("part 1"),
            cut("part 2"),
            cut("part 3"),
            cut("part 4"),
        ],
        // A model whose output cap (128k) is above the escalated 64k.
        QueryConfig::new("claude-sonnet-5-5"),
        vec![],
        None,
    )
    .await;
    let resume = Shape::Meta(RESUME_MESSAGE.into());
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            Shape::Tombstone,
            request(1, Some(Transition::MaxOutputTokensEscalate)),
            assistant(&[], StopReason::MaxTokens),
            resume.clone(),
            request(1, Some(Transition::MaxOutputTokensRecovery)),
            assistant(&[], StopReason::MaxTokens),
            resume.clone(),
            request(1, Some(Transition::MaxOutputTokensRecovery)),
            assistant(&[], StopReason::MaxTokens),
            resume,
            request(1, Some(Transition::MaxOutputTokensRecovery)),
            assistant(&[], StopReason::MaxTokens),
            Shape::End(Terminal::Completed),
        ]
    );
    assert_eq!(
        r.bodies
            .iter()
            .map(|b| b["max_tokens"].clone())
            .collect::<Vec<_>>(),
        vec![
            json!(8_000),
            json!(64_000),
            json!(64_000),
            json!(64_000),
            json!(64_000)
        ]
    );
    // The escalated request is the first one again: the cut answer was voided.
    assert_eq!(messages(&r.bodies[1]), messages(&r.bodies[0]));
    // Then each retry keeps the partial answers, each followed by one resume request.
    let last = messages(&r.bodies[4]);
    let texts: Vec<String> = last
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            m["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(
        texts,
        vec![
            "Write the report.",
            "part 1",
            RESUME_MESSAGE,
            "part 2",
            RESUME_MESSAGE,
            "part 3",
            RESUME_MESSAGE
        ]
    );
    assert!(!r.bodies.iter().any(|b| b.to_string().contains("part 0")));
}

#[tokio::test]
async fn prompt_too_long_compacts_reactively_and_retries() {
    let r = run(
        vec![
            Reply::tool_use("toolu_1", "Read", json!({})),
            Reply::prompt_too_long(210_000, 200_000),
            Reply::text("<summary>The user wants a report.</summary>"),
            Reply::text("Here is the report."),
        ],
        QueryConfig::new(MODEL),
        vec![big_read(100)],
        None,
    )
    .await;
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            assistant(&["toolu_1"], StopReason::ToolUse),
            Shape::ToolResults(vec![("toolu_1".into(), false)]),
            request(2, Some(Transition::NextTurn)),
            Shape::Compacted(CompactTrigger::Reactive),
            request(2, Some(Transition::ReactiveCompactRetry)),
            assistant(&[], StopReason::EndTurn),
            Shape::End(Terminal::Completed),
        ]
    );
    assert_eq!(r.bodies.len(), 4);
    assert!(is_summary_request(&r.bodies[2]));
    // The summary request is the too-long conversation plus the instruction.
    let mut summarised = messages(&r.bodies[2]);
    let too_long = messages(&r.bodies[1]);
    let last = summarised.as_array_mut().unwrap().last_mut().unwrap();
    last["content"].as_array_mut().unwrap().pop();
    assert_eq!(summarised, too_long);
    let retried = messages(&r.bodies[3]);
    let retried = retried.as_array().unwrap();
    assert_eq!(retried.len(), 3, "summary + the trailing exchange");
    assert!(retried[0].to_string().contains("The user wants a report."));
    assert_eq!(retried[1..], too_long.as_array().unwrap()[1..]);
}

#[tokio::test]
async fn reactive_compaction_runs_once_per_turn_even_if_still_too_long() {
    let r = run(
        vec![
            Reply::tool_use("toolu_1", "Read", json!({})),
            Reply::prompt_too_long(210_000, 200_000),
            Reply::text("<summary>S</summary>"),
            Reply::prompt_too_long(205_000, 200_000),
        ],
        QueryConfig::new(MODEL),
        vec![big_read(100)],
        None,
    )
    .await;
    let shapes = shape(&r.events);
    assert_eq!(
        shapes[3..6],
        [
            request(2, Some(Transition::NextTurn)),
            Shape::Compacted(CompactTrigger::Reactive),
            request(2, Some(Transition::ReactiveCompactRetry)),
        ]
    );
    let [.., Shape::End(Terminal::PromptTooLong(got))] = &shapes[..] else {
        panic!("{shapes:?}")
    };
    let ApiError::PromptTooLong { actual, limit, .. } = got else {
        panic!("{got:?}")
    };
    assert_eq!(
        (shapes.len(), *actual, *limit),
        (7, Some(205_000), Some(200_000))
    );
    assert_eq!(r.bodies.len(), 4, "no second compaction");
    let terminal = Terminal::PromptTooLong(got.clone());
    assert!(terminal.error_message().unwrap().contains("/compact"));
}

/// A tool whose result is `size` bytes.
fn big_read(size: usize) -> Arc<dyn Tool> {
    Arc::new(FakeTool::ok("Read", true, &"r".repeat(size), 0))
}

#[tokio::test]
async fn autocompact_summarises_and_continues_from_the_summary() {
    // Window 40k → effective 20k → autocompact above 7k tokens.
    let config = QueryConfig {
        context_window: Some(40_000),
        ..QueryConfig::new(MODEL)
    };
    let r = run(
        vec![
            Reply::tool_use("toolu_1", "Read", json!({"file_path": "/nowhere/a.rs"})),
            Reply::text("<summary>Read a.rs; it is long.</summary>"),
            Reply::text("Done."),
        ],
        config,
        vec![big_read(32_000)],
        None,
    )
    .await;
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            assistant(&["toolu_1"], StopReason::ToolUse),
            Shape::ToolResults(vec![("toolu_1".into(), false)]),
            request(2, Some(Transition::NextTurn)),
            Shape::Compacted(CompactTrigger::Auto),
            assistant(&[], StopReason::EndTurn),
            Shape::End(Terminal::Completed),
        ]
    );
    assert_eq!(r.bodies.len(), 3);
    assert!(is_summary_request(&r.bodies[1]));
    let summary_prompt = text_of_last_message(&r.bodies[1]);
    for topic in ["intent", "decisions", "Files", "Errors", "Pending work"] {
        assert!(summary_prompt.contains(topic), "{topic}: {summary_prompt}");
    }
    // The next request: summary first, then the kept trailing exchange.
    let after = messages(&r.bodies[2]);
    let after = after.as_array().unwrap();
    assert_eq!(after.len(), 3);
    assert!(after[0].to_string().contains("Read a.rs; it is long."));
    assert_eq!(after[1]["content"][0]["id"], "toolu_1");
    assert_eq!(after[2]["content"][0]["tool_use_id"], "toolu_1");
}

/// Only PreCompact is implemented (Stop keeps the default): it always blocks,
/// counting its calls.
struct BlockingPreCompact(Mutex<u32>);

impl LoopHooks for BlockingPreCompact {
    fn pre_compact(&self) -> BoxFuture<'_, Result<(), String>> {
        *self.0.lock().unwrap() += 1;
        Box::pin(async { Err("not now".to_owned()) })
    }
}

#[tokio::test]
async fn a_pre_compact_hook_can_skip_an_autocompaction_without_charging_the_breaker() {
    let config = QueryConfig {
        context_window: Some(40_000),
        ..QueryConfig::new(MODEL)
    };
    let hooks = Arc::new(BlockingPreCompact(Mutex::new(0)));
    let tool = |i: u32| Reply::tool_use(&format!("toolu_{i}"), "Read", json!({}));
    let r = run(
        vec![tool(1), tool(2), tool(3), tool(4), Reply::text("done")],
        config,
        vec![big_read(32_000)],
        Some(hooks.clone()),
    )
    .await;
    // Asked before each of the four compactions the context called for; each
    // blocked, none sent a summary request, and the breaker never opened (it
    // would have stopped asking after three).
    assert_eq!(*hooks.0.lock().unwrap(), 4);
    assert!(!r.bodies.iter().any(is_summary_request));
    let skipped: Vec<Shape> = shape(&r.events)
        .into_iter()
        .filter(|s| matches!(s, Shape::CompactFailed(_) | Shape::Compacted(_)))
        .collect();
    assert_eq!(skipped, vec![Shape::CompactFailed(0); 4]);
    assert_eq!(
        shape(&r.events).last(),
        Some(&Shape::End(Terminal::Completed))
    );
}

#[tokio::test]
async fn autocompact_circuit_breaker_opens_after_exactly_three_failures() {
    let config = QueryConfig {
        context_window: Some(40_000),
        ..QueryConfig::new(MODEL)
    };
    let fail = || Reply::http_error(400, "invalid_request_error", "summary refused");
    let tool = |i: u32| Reply::tool_use(&format!("toolu_{i}"), "Read", json!({}));
    let r = run(
        vec![
            tool(1),
            fail(),
            tool(2),
            fail(),
            tool(3),
            fail(),
            tool(4),
            Reply::text("done"),
        ],
        config,
        vec![big_read(32_000)],
        None,
    )
    .await;
    let failures: Vec<Shape> = shape(&r.events)
        .into_iter()
        .filter(|s| matches!(s, Shape::CompactFailed(_) | Shape::Compacted(_)))
        .collect();
    assert_eq!(
        failures,
        vec![
            Shape::CompactFailed(1),
            Shape::CompactFailed(2),
            Shape::CompactFailed(3)
        ]
    );
    assert_eq!(
        r.bodies.iter().map(is_summary_request).collect::<Vec<_>>(),
        vec![false, true, false, true, false, true, false, false]
    );
    assert_eq!(
        shape(&r.events).last(),
        Some(&Shape::End(Terminal::Completed))
    );
}

#[tokio::test]
async fn with_autocompact_off_the_blocking_limit_stops_before_sending() {
    // Window 30k → effective 10k → blocking limit at 7k tokens.
    let config = QueryConfig {
        context_window: Some(30_000),
        auto_compact: false,
        ..QueryConfig::new(MODEL)
    };
    let r = run(
        vec![Reply::tool_use("toolu_1", "Read", json!({}))],
        config,
        vec![big_read(32_000)],
        None,
    )
    .await;
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            assistant(&["toolu_1"], StopReason::ToolUse),
            Shape::ToolResults(vec![("toolu_1".into(), false)]),
            request(2, Some(Transition::NextTurn)),
            Shape::End(Terminal::BlockingLimit),
        ]
    );
    assert_eq!(r.bodies.len(), 1);
}

#[tokio::test]
async fn repeated_overloaded_errors_switch_to_the_fallback_model() {
    let config = QueryConfig {
        fallback_model: Some(FALLBACK.into()),
        ..QueryConfig::new(MODEL)
    };
    let r = run(
        vec![
            Reply::overloaded(),
            Reply::overloaded(),
            Reply::overloaded(),
            Reply::tool_use("toolu_1", "Read", json!({})),
            Reply::text("done"),
        ],
        config,
        vec![big_read(10)],
        None,
    )
    .await;
    let retries = r
        .events
        .iter()
        .filter(|e| matches!(e, LoopEvent::Retry { .. }))
        .count();
    assert_eq!(retries, 3);
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            Shape::ModelFallback {
                from: MODEL.into(),
                to: FALLBACK.into()
            },
            assistant(&["toolu_1"], StopReason::ToolUse),
            Shape::ToolResults(vec![("toolu_1".into(), false)]),
            request(2, Some(Transition::NextTurn)),
            assistant(&[], StopReason::EndTurn),
            Shape::End(Terminal::Completed),
        ]
    );
    // Three attempts on the primary, then the fallback for the rest of the query.
    assert_eq!(
        r.bodies
            .iter()
            .map(|b| b["model"].clone())
            .collect::<Vec<_>>(),
        vec![
            json!(MODEL),
            json!(MODEL),
            json!(MODEL),
            json!(FALLBACK),
            json!(FALLBACK)
        ]
    );
    assert_eq!(messages(&r.bodies[3]), messages(&r.bodies[0]));
}

struct Scripted {
    outcomes: Mutex<Vec<StopHookOutcome>>,
    seen_active: Mutex<Vec<bool>>,
}

impl LoopHooks for Scripted {
    fn stop<'a>(&'a self, input: StopHookInput<'a>) -> BoxFuture<'a, StopHookOutcome> {
        self.seen_active
            .lock()
            .unwrap()
            .push(input.stop_hook_active);
        let outcome = self.outcomes.lock().unwrap().remove(0);
        Box::pin(async move { outcome })
    }
}

#[tokio::test]
async fn a_blocking_stop_hook_injects_its_reason_and_continues_once() {
    let hooks = Arc::new(Scripted {
        outcomes: Mutex::new(vec![
            StopHookOutcome::Block {
                reason: "tests are failing".into(),
            },
            StopHookOutcome::Pass,
        ]),
        seen_active: Mutex::default(),
    });
    let r = run(
        vec![Reply::text("done"), Reply::text("fixed the tests")],
        QueryConfig::new(MODEL),
        vec![],
        Some(hooks.clone()),
    )
    .await;
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            assistant(&[], StopReason::EndTurn),
            Shape::Meta("Stop hook feedback:\ntests are failing".into()),
            request(1, Some(Transition::StopHookBlocking)),
            assistant(&[], StopReason::EndTurn),
            Shape::End(Terminal::Completed),
        ]
    );
    assert_eq!(*hooks.seen_active.lock().unwrap(), vec![false, true]);
    assert_eq!(
        text_of_last_message(&r.bodies[1]),
        "Stop hook feedback:\ntests are failing"
    );

    let prevent = Arc::new(Scripted {
        outcomes: Mutex::new(vec![StopHookOutcome::Prevent {
            reason: "no".into(),
        }]),
        seen_active: Mutex::default(),
    });
    let r = run(
        vec![Reply::text("done")],
        QueryConfig::new(MODEL),
        vec![],
        Some(prevent),
    )
    .await;
    assert_eq!(
        shape(&r.events).last(),
        Some(&Shape::End(Terminal::StopHookPrevented))
    );
}

#[tokio::test]
async fn a_stop_hook_that_blocks_again_is_obeyed_only_once_per_exit_point() {
    let hooks = Arc::new(Scripted {
        outcomes: Mutex::new(vec![
            StopHookOutcome::Block {
                reason: "not yet".into(),
            },
            StopHookOutcome::Block {
                reason: "still not".into(),
            },
        ]),
        seen_active: Mutex::default(),
    });
    let r = run(
        vec![Reply::text("done"), Reply::text("done again")],
        QueryConfig::new(MODEL),
        vec![],
        Some(hooks.clone()),
    )
    .await;
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            assistant(&[], StopReason::EndTurn),
            Shape::Meta("Stop hook feedback:\nnot yet".into()),
            request(1, Some(Transition::StopHookBlocking)),
            assistant(&[], StopReason::EndTurn),
            Shape::End(Terminal::Completed),
        ]
    );
    assert_eq!(*hooks.seen_active.lock().unwrap(), vec![false, true]);
    assert_eq!(r.bodies.len(), 2);
}

#[tokio::test]
async fn token_budget_continues_until_returns_diminish() {
    let config = QueryConfig {
        token_budget: Some(10_000),
        ..QueryConfig::new(MODEL)
    };
    let r = run(
        vec![
            Reply::message().text("a").usage(10, 1_000).into(),
            Reply::message().text("b").usage(10, 800).into(),
            Reply::message().text("c").usage(10, 100).into(),
        ],
        config,
        vec![],
        None,
    )
    .await;
    assert_eq!(
        shape(&r.events),
        vec![
            request(1, None),
            assistant(&[], StopReason::EndTurn),
            Shape::Meta(
                "Stopped at 10% of the token target (1000 / 10000). Keep working — do not summarize."
                    .into()
            ),
            request(1, Some(Transition::TokenBudgetContinuation)),
            assistant(&[], StopReason::EndTurn),
            Shape::Meta(
                "Stopped at 18% of the token target (1800 / 10000). Keep working — do not summarize."
                    .into()
            ),
            request(1, Some(Transition::TokenBudgetContinuation)),
            assistant(&[], StopReason::EndTurn),
            Shape::End(Terminal::Completed),
        ]
    );
    assert_eq!(r.bodies.len(), 3);
}

// ---- Through a Session: transcript effects ----

use tack_core::session::{
    Session, SessionEvent, SessionParts, TranscriptEntry, TranscriptError, TranscriptSink,
};

/// Every transcript record: a message (uuid, message) or a marker line.
#[derive(Default)]
struct Transcript {
    records: Mutex<Vec<(String, Option<Message>)>>,
}

impl TranscriptSink for Transcript {
    fn append<'a>(
        &'a self,
        entry: TranscriptEntry<'a>,
    ) -> BoxFuture<'a, Result<(), TranscriptError>> {
        let mut records = self.records.lock().unwrap();
        match entry {
            TranscriptEntry::Tombstone { uuid } => {
                records.push((format!("tombstone {uuid}"), None))
            }
            TranscriptEntry::Branch { parent } => {
                records.push((format!("branch {}", parent.unwrap_or("-")), None))
            }
            TranscriptEntry::Compacted(c) => {
                records.push((format!("boundary {}", c.trigger.as_str()), None));
                records.extend(c.messages.iter().map(|(u, m)| (u.clone(), Some(m.clone()))));
            }
            TranscriptEntry::Prompt { .. }
            | TranscriptEntry::Assistant(_)
            | TranscriptEntry::ToolResults(_)
            | TranscriptEntry::Meta { .. } => {
                let (uuid, message) = entry.message().expect("a message entry");
                records.push((uuid.to_owned(), Some(message.clone())));
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

impl Transcript {
    /// What a resume would load: the messages after the last boundary.
    fn resumed(&self) -> Vec<Message> {
        let records = self.records.lock().unwrap();
        let start = records
            .iter()
            .rposition(|(k, _)| k.starts_with("boundary"))
            .map_or(0, |i| i + 1);
        records[start..]
            .iter()
            .filter_map(|(_, m)| m.clone())
            .collect()
    }
}

fn session(server: &MockServer, tools: Vec<Arc<dyn Tool>>, sink: Arc<Transcript>) -> Session {
    Session::new(SessionParts {
        session_id: "sess-r".into(),
        context: Arc::new(PromptContext::default()),
        tools: ToolSet::new(tools),
        tool_env: tool_env(),
        can_use_tool: Arc::new(AllowAll),
        deps: client(server),
        config: QueryConfig::new(MODEL),
        max_budget_usd: None,
        transcript: Some(sink),
    })
}

async fn drive(session: &mut Session, prompt: &str) -> Vec<LoopEvent> {
    let mut turn = session.submit(Message::user_text(prompt), CancellationToken::new());
    let mut events = Vec::new();
    while let Some(event) = turn.next().await {
        match event {
            SessionEvent::Loop(e) => events.push(e),
            SessionEvent::Result(_) => {}
        }
    }
    events
}

#[tokio::test]
async fn a_stream_dying_after_content_is_tombstoned_and_retried() {
    let server = MockServer::start(Script::new([
        // message_start, ping, thinking (start, delta, signature, stop), tool_use
        // (start, input, stop), text (start, first delta) — then the error.
        Reply::message()
            .thinking("Let me think.", "sig-of-the-dead-attempt")
            .tool_use("toolu_dead", "Slow", json!({}))
            .text("a partial answer that dies")
            .error_event_after(11, "overloaded_error", "Overloaded")
            .into(),
        Reply::text("the complete answer"),
    ]))
    .await
    .unwrap();
    let slow = FakeTool::ok("Slow", true, "slow result", 10_000);
    let runs = slow.runs.clone();
    let sink = Arc::new(Transcript::default());
    let mut session = session(&server, vec![Arc::new(slow)], sink.clone());
    let events = drive(&mut session, "go").await;

    assert_eq!(
        shape(&events),
        vec![
            request(1, None),
            Shape::Tombstone,
            assistant(&[], StopReason::EndTurn),
        ]
    );
    let tombstone = events
        .iter()
        .find_map(|e| match e {
            LoopEvent::Tombstone { message_id, .. } => Some(message_id.clone()),
            _ => None,
        })
        .unwrap();
    assert!(tombstone.starts_with("msg_"), "{tombstone}");
    // The tool started from the dead attempt was cancelled; its result is nowhere.
    let runs = runs.lock().unwrap();
    assert_eq!(
        runs.iter()
            .map(|r| (r.tool_use_id.as_str(), r.cancelled()))
            .collect::<Vec<_>>(),
        vec![("toolu_dead", true)]
    );
    // Same request again; nothing of the dead attempt in it or in the transcript.
    let bodies: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 2);
    assert_eq!(messages(&bodies[1]), messages(&bodies[0]));
    let resumed = format!("{:?}", sink.resumed());
    for dead in ["partial answer", "sig-of-the-dead-attempt", "toolu_dead"] {
        assert!(!resumed.contains(dead), "{dead} in {resumed}");
        assert!(!format!("{:?}", session.messages()).contains(dead));
    }
    assert_eq!(
        sink.resumed(),
        vec![
            Message::user_text("go"),
            Message::assistant(vec![tack_protocol::ContentBlock::text(
                "the complete answer"
            )])
        ]
    );
}

#[tokio::test]
async fn manual_compact_replaces_the_history_and_persists_a_boundary() {
    let server = MockServer::start(Script::new([
        Reply::text("First answer."),
        Reply::text("<analysis>...</analysis><summary>We discussed X.</summary>"),
        Reply::text("Second answer."),
    ]))
    .await
    .unwrap();
    let sink = Arc::new(Transcript::default());
    let mut session = session(&server, vec![], sink.clone());
    drive(&mut session, "Tell me about X.").await;

    let compacted = session
        .compact(Some("focus on X".into()), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        (
            compacted.trigger,
            compacted.summary.as_str(),
            compacted.messages.len()
        ),
        (CompactTrigger::Manual, "We discussed X.", 1)
    );
    assert_eq!(session.messages().len(), 1);
    assert_eq!(sink.resumed(), session.messages());
    let summary_body = &server.requests()[1].body;
    assert!(is_summary_request(summary_body));
    assert!(text_of_last_message(summary_body).ends_with("focus on X"));

    drive(&mut session, "And Y?").await;
    let next = messages(&server.requests()[2].body);
    let next = next.as_array().unwrap();
    assert_eq!(next.len(), 1, "summary and prompt merge into one user turn");
    let text = next[0].to_string();
    assert!(text.contains("We discussed X.") && text.contains("And Y?"));
    assert!(!text.contains("First answer."));
    assert_eq!(sink.resumed().len(), 3);
}
