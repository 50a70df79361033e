//! Loop tests with fake deps: transitions and terminals, not message text.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use futures::StreamExt;
use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_api::{ApiError, ToolInputError};
use tack_core::permission::{PermissionDecision, PermissionFn};
use tack_core::query::{LoopEvent, QueryConfig, Terminal, Transition, query};
use tack_protocol::{ContentBlock, Message, StopReason};
use tack_tool::Tool;
use tokio_util::sync::CancellationToken;

fn tool(t: FakeTool) -> Arc<dyn Tool> {
    Arc::new(t)
}

#[tokio::test(start_paused = true)]
async fn a_reply_without_tool_use_completes() {
    let model = FakeModel::new([Response::text("hi")]);
    let events = collect(query(params(
        model.clone(),
        vec![],
        "hello",
        CancellationToken::new(),
    )))
    .await;
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::Assistant {
                tool_uses: vec![],
                stop_reason: Some(StopReason::EndTurn)
            },
            Shape::End(Terminal::Completed),
        ]
    );
    // Raw partials are forwarded too.
    assert!(events.iter().any(|e| matches!(e, LoopEvent::Stream(_))));
}

#[tokio::test(start_paused = true)]
async fn tool_use_continues_with_next_turn_and_appends_only() {
    let model = FakeModel::new([
        Response::tool_uses(&[("toolu_1", "Read", json!({"path": "a"}))]),
        Response::text("done"),
    ]);
    let read = tool(FakeTool::ok("Read", true, "contents of a", 0));
    let events = collect(query(params(
        model.clone(),
        vec![read],
        "go",
        CancellationToken::new(),
    )))
    .await;
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::Assistant {
                tool_uses: vec!["toolu_1".into()],
                stop_reason: Some(StopReason::ToolUse)
            },
            Shape::ToolResults(vec![("toolu_1".into(), false)]),
            Shape::Request {
                turn_count: 2,
                transition: Some(Transition::NextTurn)
            },
            Shape::Assistant {
                tool_uses: vec![],
                stop_reason: Some(StopReason::EndTurn)
            },
            Shape::End(Terminal::Completed),
        ]
    );
    // The second request is the first plus the assistant message and the results,
    // exactly as they were yielded (messages are only appended).
    let requests = model.requests();
    let appended: Vec<Message> = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::AssistantMessage(a) => Some(a.message.clone()),
            LoopEvent::ToolResults(r) => Some(r.message.clone()),
            _ => None,
        })
        .take(2)
        .collect();
    let mut expected = without_cache_control(&requests[0].messages);
    expected.extend(appended);
    assert_eq!(without_cache_control(&requests[1].messages), expected);
    assert_eq!(
        results_of(requests[1].messages.last().unwrap()),
        vec![("toolu_1".into(), "contents of a".into(), false)]
    );
}

#[tokio::test(start_paused = true)]
async fn soon_arrivals_follow_the_tool_results_and_idle_ones_wait() {
    let model = FakeModel::new([
        Response::tool_uses(&[("toolu_1", "Read", json!({"path": "a"}))]),
        Response::text("done"),
    ]);
    let read = tool(FakeTool::ok("Read", true, "contents of a", 10));
    let params = params(model.clone(), vec![read], "go", CancellationToken::new());
    let arrivals = params.tool_env.arrivals().clone();
    arrivals.push(tack_tool::Arrival::idle(
        "<scheduled-task>later</scheduled-task>",
    ));
    arrivals.push(tack_tool::Arrival::soon(
        "<teammate-message teammate_id=\"a\">hi</teammate-message>",
    ));
    collect(query(params)).await;
    let requests = model.requests();
    assert_eq!(
        without_cache_control(&requests[1].messages)
            .last()
            .map(|m| m.content.clone()),
        Some(vec![
            ContentBlock::tool_result("toolu_1", "contents of a", false),
            ContentBlock::text("<teammate-message teammate_id=\"a\">hi</teammate-message>"),
        ])
    );
    assert_eq!(
        arrivals.take_all(),
        vec![tack_tool::Arrival::idle(
            "<scheduled-task>later</scheduled-task>"
        )]
    );
}

#[tokio::test(start_paused = true)]
async fn max_turns_stops_after_the_tool_results() {
    let model = FakeModel::new([Response::tool_uses(&[("toolu_1", "Read", json!({}))])]);
    let read = tool(FakeTool::ok("Read", true, "x", 0));
    let config = QueryConfig {
        max_turns: Some(1),
        ..QueryConfig::new(MODEL)
    };
    let p = params_with(
        model.clone(),
        vec![read],
        Arc::new(tack_core::permission::AllowAll),
        "go",
        CancellationToken::new(),
        config,
    );
    let events = collect(query(p)).await;
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::Assistant {
                tool_uses: vec!["toolu_1".into()],
                stop_reason: Some(StopReason::ToolUse)
            },
            Shape::ToolResults(vec![("toolu_1".into(), false)]),
            Shape::End(Terminal::MaxTurns { turn_count: 2 }),
        ]
    );
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn tool_failures_are_reported_to_the_model_not_the_loop() {
    let model = FakeModel::new([
        Response::start(usage(1, 1))
            .block(ContentBlock::tool_use("t_fail", "Fail", json!({})))
            .block(ContentBlock::tool_use("t_unknown", "Nope", json!({})))
            .block_with_error(
                ContentBlock::tool_use("t_json", "Read", json!({})),
                Some(ToolInputError {
                    id: "t_json".into(),
                    name: "Read".into(),
                    raw: "{\"path\": \"a".into(),
                    message: "EOF while parsing a string".into(),
                }),
            )
            .block(ContentBlock::tool_use("t_invalid", "Read", json!({})))
            .block(ContentBlock::tool_use("t_panic", "Panic", json!({})))
            .block(ContentBlock::tool_use(
                "t_denied",
                "Write",
                json!({"path": "x"}),
            ))
            .block(ContentBlock::tool_use(
                "t_edited",
                "Read",
                json!({"path": "secret"}),
            ))
            .finish(
                vec![
                    ContentBlock::tool_use("t_fail", "Fail", json!({})),
                    ContentBlock::tool_use("t_unknown", "Nope", json!({})),
                    ContentBlock::tool_use("t_json", "Read", json!({})),
                    ContentBlock::tool_use("t_invalid", "Read", json!({})),
                    ContentBlock::tool_use("t_panic", "Panic", json!({})),
                    ContentBlock::tool_use("t_denied", "Write", json!({"path": "x"})),
                    ContentBlock::tool_use("t_edited", "Read", json!({"path": "secret"})),
                ],
                StopReason::ToolUse,
                usage(1, 1),
            ),
        Response::text("ok"),
    ]);
    let tools = vec![
        tool(FakeTool::new(
            "Fail",
            true,
            Behavior::Fail("disk on fire".into()),
        )),
        tool(FakeTool::ok("Read", true, "read ok", 0).requiring("path")),
        tool(FakeTool::new("Panic", true, Behavior::Panic("boom".into()))),
        tool(FakeTool::ok("Write", false, "written", 0)),
    ];
    let permission = PermissionFn(
        |name: &str, input: &Value| -> BoxFuture<'static, PermissionDecision> {
            let decision = match (name, input.get("path").and_then(Value::as_str)) {
                ("Write", _) => PermissionDecision::Deny {
                    message: "The user denied Write.".into(),
                },
                (_, Some("secret")) => {
                    PermissionDecision::AllowWithInput(json!({"path": "public"}))
                }
                _ => PermissionDecision::Allow,
            };
            Box::pin(std::future::ready(decision))
        },
    );
    let p = params_with(
        model.clone(),
        tools,
        Arc::new(permission),
        "go",
        CancellationToken::new(),
        QueryConfig::new(MODEL),
    );
    let events = collect(query(p)).await;
    let results = events
        .iter()
        .find_map(|e| match e {
            LoopEvent::ToolResults(r) => Some(results_of(&r.message)),
            _ => None,
        })
        .unwrap();
    let expected: Vec<(String, String, bool)> = vec![
        (
            "t_fail".into(),
            "<tool_use_error>disk on fire</tool_use_error>".into(),
            true,
        ),
        (
            "t_unknown".into(),
            "<tool_use_error>Error: No such tool available: Nope</tool_use_error>".into(),
            true,
        ),
        (
            "t_json".into(),
            "<tool_use_error>InputValidationError: the input of Read was not valid JSON \
             (EOF while parsing a string). Call the tool again with a complete JSON object. \
             Received: {\"path\": \"a</tool_use_error>"
                .into(),
            true,
        ),
        (
            "t_invalid".into(),
            "<tool_use_error>InputValidationError: path is required</tool_use_error>".into(),
            true,
        ),
        (
            "t_panic".into(),
            "<tool_use_error>tool Panic panicked: boom</tool_use_error>".into(),
            true,
        ),
        ("t_denied".into(), "The user denied Write.".into(), true),
        ("t_edited".into(), "read ok".into(), false),
    ];
    assert_eq!(results, expected);
    // The loop carried on: the model saw the errors and answered.
    assert_eq!(
        shape(&events).last(),
        Some(&Shape::End(Terminal::Completed))
    );
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn progress_is_streamed_before_the_result() {
    let model = FakeModel::new([
        Response::tool_uses(&[("toolu_1", "Slow", json!({}))]),
        Response::text("done"),
    ]);
    let slow = tool(FakeTool::new(
        "Slow",
        true,
        Behavior::Progress(vec![json!({"line": 1}), json!({"line": 2})]),
    ));
    let events = collect(query(params(
        model,
        vec![slow],
        "go",
        CancellationToken::new(),
    )))
    .await;
    let progress: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolProgress(p) => Some((p.tool_use_id.clone(), p.data.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        vec![
            ("toolu_1".into(), json!({"line": 1})),
            ("toolu_1".into(), json!({"line": 2}))
        ]
    );
    let s = shape(&events);
    let first_progress = s
        .iter()
        .position(|x| matches!(x, Shape::Progress(_)))
        .unwrap();
    let results = s
        .iter()
        .position(|x| matches!(x, Shape::ToolResults(_)))
        .unwrap();
    assert!(first_progress < results);
}

#[tokio::test(start_paused = true)]
async fn model_errors_end_the_loop_and_prompt_too_long_is_surfaced() {
    let overloaded = ApiError::Overloaded {
        retry_after: None,
        message: "Overloaded".into(),
    };
    let model = FakeModel::new([Response::start(usage(1, 0)).error(overloaded.clone())]);
    let events = collect(query(params(model, vec![], "go", CancellationToken::new()))).await;
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::End(Terminal::ModelError(overloaded))
        ]
    );

    let too_long = ApiError::PromptTooLong {
        actual: Some(210_000),
        limit: Some(200_000),
        message: "prompt is too long".into(),
    };
    let model = FakeModel::new([Response::default().error(too_long.clone())]);
    let events = collect(query(params(model, vec![], "go", CancellationToken::new()))).await;
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::End(Terminal::PromptTooLong(too_long))
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn the_blocking_limit_refuses_to_send() {
    let model = FakeModel::new([]);
    let config = QueryConfig {
        context_window: Some(3_100),
        auto_compact: false,
        ..QueryConfig::new(MODEL)
    };
    let p = params_with(
        model.clone(),
        vec![],
        Arc::new(tack_core::permission::AllowAll),
        &"x".repeat(4_000),
        CancellationToken::new(),
        config,
    );
    let events = collect(query(p)).await;
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::End(Terminal::BlockingLimit)
        ]
    );
    assert_eq!(model.requests().len(), 0);
}

/// Collects events until the terminal, cancelling `cancel` after `after`;
/// returns the events and the time from the cancel to the terminal.
async fn run_and_abort(
    stream: tack_core::query::QueryStream,
    cancel: CancellationToken,
    after: Duration,
) -> (Vec<LoopEvent>, Duration) {
    let fired = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let f = fired.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        *f.lock().unwrap() = Some(Instant::now());
        cancel.cancel();
    });
    let events: Vec<LoopEvent> = stream.collect().await;
    let fired_at = fired
        .lock()
        .unwrap()
        .expect("the abort fired before the loop ended");
    (events, fired_at.elapsed())
}

#[tokio::test(start_paused = true)]
async fn abort_mid_stream_answers_every_tool_use_and_ends_fast() {
    // The model streams one tool_use, then hangs; the tool would take 10 s.
    let model = FakeModel::new([Response::start(usage(1, 0))
        .block(ContentBlock::tool_use("toolu_1", "Read", json!({})))
        .hang()]);
    let read = FakeTool::new(
        "Read",
        true,
        Behavior::IgnoreCancel {
            sleep: Duration::from_secs(10),
        },
    );
    let cancel = CancellationToken::new();
    let stream = query(params(model, vec![tool(read)], "go", cancel.clone()));
    let started = Instant::now();
    let (events, since_abort) = run_and_abort(stream, cancel, Duration::from_millis(50)).await;
    let total = started.elapsed();
    assert!(
        since_abort < Duration::from_millis(100),
        "terminal {since_abort:?} after the abort"
    );
    assert!(total < Duration::from_millis(500));
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::Assistant {
                tool_uses: vec!["toolu_1".into()],
                stop_reason: None
            },
            Shape::ToolResults(vec![("toolu_1".into(), true)]),
            Shape::End(Terminal::Aborted),
        ]
    );
    let message = events.iter().find_map(|e| match e {
        LoopEvent::ToolResults(r) => Some(r.message.clone()),
        _ => None,
    });
    assert_eq!(
        message,
        Some(Message::user(vec![ContentBlock::tool_result(
            "toolu_1",
            "Interrupted by user",
            true
        )]))
    );
}

#[tokio::test(start_paused = true)]
async fn abort_mid_tool_gives_synthetic_results_and_cancels_the_tools() {
    let model = FakeModel::new([Response::tool_uses(&[
        ("toolu_1", "Quick", json!({})),
        ("toolu_2", "Slow", json!({})),
        ("toolu_3", "Stubborn", json!({})),
    ])]);
    let quick = FakeTool::ok("Quick", true, "quick", 0);
    let slow = FakeTool::ok("Slow", true, "slow", 10_000);
    let slow_runs = slow.runs.clone();
    let stubborn = FakeTool::new(
        "Stubborn",
        true,
        Behavior::IgnoreCancel {
            sleep: Duration::from_secs(10),
        },
    );
    let cancel = CancellationToken::new();
    let stream = query(params(
        model,
        vec![tool(quick), tool(slow), tool(stubborn)],
        "go",
        cancel.clone(),
    ));
    let (events, since_abort) = run_and_abort(stream, cancel, Duration::from_millis(100)).await;
    assert!(
        since_abort < Duration::from_millis(100),
        "terminal {since_abort:?} after the abort"
    );
    assert_eq!(
        shape(&events),
        vec![
            Shape::Request {
                turn_count: 1,
                transition: None
            },
            Shape::Assistant {
                tool_uses: vec!["toolu_1".into(), "toolu_2".into(), "toolu_3".into()],
                stop_reason: Some(StopReason::ToolUse)
            },
            Shape::ToolResults(vec![
                ("toolu_1".into(), false),
                ("toolu_2".into(), true),
                ("toolu_3".into(), true)
            ]),
            Shape::End(Terminal::Aborted),
        ]
    );
    let results = events.iter().find_map(|e| match e {
        LoopEvent::ToolResults(r) => Some(results_of(&r.message)),
        _ => None,
    });
    assert_eq!(
        results,
        Some(vec![
            ("toolu_1".into(), "quick".into(), false),
            ("toolu_2".into(), "Interrupted by user".into(), true),
            ("toolu_3".into(), "Interrupted by user".into(), true),
        ])
    );
    // The cancellation reached the tool that listens for it.
    let runs = slow_runs.lock().unwrap().clone();
    assert_eq!(runs.len(), 1);
    assert!(
        runs[0].wait_cancelled().await,
        "the slow tool was not cancelled"
    );
}

#[tokio::test(start_paused = true)]
async fn dropping_the_stream_cancels_running_tools() {
    let model = FakeModel::new([Response::tool_uses(&[("toolu_1", "Slow", json!({}))])]);
    let slow = FakeTool::ok("Slow", true, "slow", 10_000);
    let runs = slow.runs.clone();
    let caller_cancel = CancellationToken::new();
    let mut stream = query(params(model, vec![tool(slow)], "go", caller_cancel.clone()));
    // Read until the assistant message, then until the tool has started.
    while let Some(event) = stream.next().await {
        if matches!(event, LoopEvent::AssistantMessage(_)) {
            break;
        }
    }
    wait_for(|| !runs.lock().unwrap().is_empty()).await;
    let started = runs.lock().unwrap().clone();
    assert_eq!(started.len(), 1, "the tool never started");
    assert!(!started[0].cancelled());
    drop(stream);
    assert!(
        started[0].wait_cancelled().await,
        "dropping the stream did not cancel the tool"
    );
    assert!(
        !caller_cancel.is_cancelled(),
        "the caller's token is not fired by a drop"
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_consumer_holds_the_loop_back() {
    // 100 text deltas; with nobody reading, the loop stops at the buffer.
    let mut response = Response::start(usage(1, 1));
    for _ in 0..100 {
        response
            .steps
            .push(Step::Event(Ok(tack_api::StreamEvent::Sse(
                tack_protocol::SseEvent::Ping,
            ))));
    }
    let response = response.finish(
        vec![ContentBlock::text("x")],
        StopReason::EndTurn,
        usage(1, 1),
    );
    let model = FakeModel::new([response]);
    let log = model.log.clone();
    let mut stream = query(params(model, vec![], "go", CancellationToken::new()));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        log.lock().unwrap().message_done_at.len(),
        0,
        "the loop ran ahead of its consumer"
    );
    let mut n = 0;
    while let Some(event) = stream.next().await {
        n += 1;
        if matches!(event, LoopEvent::Terminal(_)) {
            break;
        }
    }
    assert_eq!(n, 1 + 1 + 100 + 2 + 1 + 1); // request, message_start, pings, delta+stop, assistant, terminal
}

#[tokio::test(start_paused = true)]
async fn oversized_results_go_to_disk_with_a_preview() {
    let model = FakeModel::new([
        Response::tool_uses(&[("toolu_big", "Big", json!({}))]),
        Response::text("done"),
    ]);
    let big = tool(FakeTool::ok("Big", true, &"x".repeat(60_000), 0));
    let dir = tempfile::tempdir().unwrap();
    let mut p = params(model, vec![big], "go", CancellationToken::new());
    p.tool_env = Arc::new(tack_tool::ToolEnv::new(
        dir.path().to_owned(),
        dir.path().to_owned(),
    ));
    let events = collect(query(p)).await;
    let results = events
        .iter()
        .find_map(|e| match e {
            LoopEvent::ToolResults(r) => Some(results_of(&r.message)),
            _ => None,
        })
        .unwrap();
    let stored = dir.path().join("tool-results").join("toolu_big.txt");
    assert_eq!(std::fs::read_to_string(&stored).unwrap().len(), 60_000);
    assert!(
        results[0].1.starts_with("<persisted-output>"),
        "{}",
        &results[0].1[..100]
    );
    assert!(results[0].1.contains(&stored.display().to_string()));
    assert!(results[0].1.len() < 3_000);
}

/// A fake PostToolUse hook: feedback for `Write`, context for `Read`, and it
/// records what it was shown.
struct FakePostHook(std::sync::Mutex<Vec<(String, Value, String)>>);

impl tack_core::permission::CanUseTool for FakePostHook {
    fn check<'a>(
        &'a self,
        _tool: &'a dyn Tool,
        _input: &'a Value,
        _ctx: &'a tack_tool::ToolContext,
    ) -> BoxFuture<'a, PermissionDecision> {
        Box::pin(std::future::ready(PermissionDecision::Allow))
    }

    fn post_tool_use<'a>(
        &'a self,
        tool: &'a dyn Tool,
        input: &'a Value,
        result: &'a tack_core::executor::ToolCallOutcome,
        _ctx: &'a tack_tool::ToolContext,
    ) -> BoxFuture<'a, tack_core::permission::PostToolUseOutcome> {
        if result.is_error {
            return Box::pin(std::future::ready(Default::default()));
        }
        self.0.lock().unwrap().push((
            tool.name().to_owned(),
            input.clone(),
            result.content.to_text(),
        ));
        let outcome = match tool.name() {
            "Write" => tack_core::permission::PostToolUseOutcome {
                block_reason: Some("lint failed: x.rs".into()),
                additional_context: None,
                stops_turn: false,
                attachments: Vec::new(),
            },
            _ => tack_core::permission::PostToolUseOutcome {
                block_reason: None,
                additional_context: Some("read was audited".into()),
                stops_turn: false,
                attachments: Vec::new(),
            },
        };
        Box::pin(std::future::ready(outcome))
    }
}

#[tokio::test(start_paused = true)]
async fn post_tool_use_feedback_is_appended_to_successful_results_only() {
    let model = FakeModel::new([
        Response::tool_uses(&[
            ("t_write", "Write", json!({"path": "x.rs"})),
            ("t_read", "Read", json!({"path": "y"})),
            ("t_fail", "Fail", json!({})),
        ]),
        Response::text("ok"),
    ]);
    let tools = vec![
        tool(FakeTool::ok("Write", false, "written", 0)),
        tool(FakeTool::ok("Read", true, "read ok", 0)),
        tool(FakeTool::new("Fail", true, Behavior::Fail("nope".into()))),
    ];
    let hook = Arc::new(FakePostHook(Default::default()));
    let p = params_with(
        model.clone(),
        tools,
        hook.clone(),
        "go",
        CancellationToken::new(),
        QueryConfig::new(MODEL),
    );
    let events = collect(query(p)).await;
    let results = events
        .iter()
        .find_map(|e| match e {
            LoopEvent::ToolResults(r) => Some(results_of(&r.message)),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        results,
        vec![
            (
                "t_write".to_owned(),
                "written\n\nPostToolUse hook feedback:\nlint failed: x.rs".to_owned(),
                false
            ),
            (
                "t_read".to_owned(),
                "read ok\n\n<system-reminder>\nread was audited\n</system-reminder>".to_owned(),
                false
            ),
            (
                "t_fail".to_owned(),
                "<tool_use_error>nope</tool_use_error>".to_owned(),
                true
            ),
        ]
    );
    // Only the successful calls were shown to the hook, with their input and result.
    let seen = hook.0.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![
            (
                "Write".to_owned(),
                json!({"path": "x.rs"}),
                "written".to_owned()
            ),
            (
                "Read".to_owned(),
                json!({"path": "y"}),
                "read ok".to_owned()
            ),
        ]
    );
    assert_eq!(model.requests().len(), 2);
}
