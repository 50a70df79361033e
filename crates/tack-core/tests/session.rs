//! The outer layer: transcript persistence order, usage and cost totals, the
//! USD budget, the result record.

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::json;
use tack_core::context::PromptContext;
use tack_core::deps::QueryDeps;
use tack_core::executor::ToolSet;
use tack_core::permission::AllowAll;
use tack_core::query::{LoopEvent, QueryConfig, Terminal};
use tack_core::session::{
    ModelUsage, ResultSubtype, Session, SessionEvent, SessionParts, SessionResult, TranscriptEntry,
    TranscriptError, TranscriptSink,
};
use tack_protocol::{ContentBlock, Message, Role, Usage};
use tack_tool::Tool;
use tokio_util::sync::CancellationToken;

/// (uuid, role) of an appended message.
type Entry = (String, Option<Role>);
/// (uuid or marker, message) of a record.
type Record = (String, Option<Message>);

/// Records (uuid, role) of every appended message.
#[derive(Default)]
struct MemorySink {
    entries: Mutex<Vec<(String, Option<Role>)>>,
    /// Every record as (uuid or "boundary:<trigger>", message if any).
    records: Mutex<Vec<(String, Option<Message>)>>,
}

impl TranscriptSink for MemorySink {
    fn append<'a>(
        &'a self,
        entry: TranscriptEntry<'a>,
    ) -> BoxFuture<'a, Result<(), TranscriptError>> {
        let mut rows: Vec<(Entry, Record)> = Vec::new();
        match entry {
            TranscriptEntry::Tombstone { uuid } => {
                rows.push(((uuid.to_owned(), None), (format!("tombstone:{uuid}"), None)));
            }
            TranscriptEntry::Branch { parent } => {
                let parent = parent.unwrap_or("-");
                rows.push(((String::new(), None), (format!("branch:{parent}"), None)));
            }
            TranscriptEntry::Compacted(c) => {
                rows.push((
                    (c.boundary_uuid.clone(), None),
                    (format!("boundary:{}", c.trigger.as_str()), None),
                ));
                for (uuid, message) in &c.messages {
                    rows.push((
                        (uuid.clone(), Some(message.role)),
                        (uuid.clone(), Some(message.clone())),
                    ));
                }
            }
            TranscriptEntry::Prompt { .. }
            | TranscriptEntry::Assistant(_)
            | TranscriptEntry::ToolResults(_)
            | TranscriptEntry::Meta { .. } => {
                let (uuid, message) = entry.message().expect("a message entry");
                rows.push((
                    (uuid.to_owned(), Some(message.role)),
                    (uuid.to_owned(), Some(message.clone())),
                ));
            }
        }
        Box::pin(async move {
            // A slow disk: the loop must still wait for it.
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            for (record, full) in rows {
                self.entries.lock().unwrap().push(record);
                self.records.lock().unwrap().push(full);
            }
            Ok(())
        })
    }
}

fn session(
    deps: Arc<dyn QueryDeps>,
    tools: Vec<Arc<dyn Tool>>,
    sink: Arc<MemorySink>,
    budget: Option<f64>,
) -> Session {
    Session::new(SessionParts {
        session_id: "sess-1".into(),
        context: Arc::new(PromptContext::default()),
        tools: ToolSet::new(tools),
        tool_env: tool_env(),
        can_use_tool: Arc::new(AllowAll),
        deps,
        // costly() reports 1M-token prompts; a window that fits them keeps
        // compaction out of these tests.
        config: QueryConfig {
            context_window: Some(100_000_000),
            ..QueryConfig::new(MODEL)
        },
        max_budget_usd: budget,
        transcript: Some(sink),
    })
}

async fn drive(session: &mut Session, prompt: &str) -> (Vec<LoopEvent>, SessionResult) {
    let mut turn = session.submit(Message::user_text(prompt), CancellationToken::new());
    let mut events = Vec::new();
    let mut result = None;
    while let Some(event) = turn.next().await {
        match event {
            SessionEvent::Loop(e) => events.push(e),
            SessionEvent::Result(r) => result = Some(r),
        }
    }
    (events, result.expect("a turn ends with a result"))
}

/// 1M input + 100k output tokens on Sonnet 4.5: $3 + $1.5.
fn costly() -> Usage {
    usage(1_000_000, 100_000)
}

#[tokio::test(start_paused = true)]
async fn every_message_is_persisted_before_the_next_request() {
    let sink = Arc::new(MemorySink::default());
    let mut model = FakeModel::build([
        Response::blocks(
            vec![ContentBlock::tool_use("toolu_1", "Read", json!({}))],
            costly(),
        ),
        Response::blocks(vec![ContentBlock::text("done")], costly()),
        Response::text("again"),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (s, k) = (seen.clone(), sink.clone());
    model.on_request = Some(Box::new(move |_| {
        s.lock().unwrap().push(k.entries.lock().unwrap().len())
    }));
    let model = Arc::new(model);
    let read: Arc<dyn Tool> = Arc::new(FakeTool::ok("Read", true, "x", 0));
    let mut session = session(model.clone(), vec![read], sink.clone(), None);

    let (_, result) = drive(&mut session, "go").await;
    // At request 1 the prompt was on disk; at request 2 also the assistant message
    // and the tool results.
    assert_eq!(*seen.lock().unwrap(), vec![1, 3]);
    assert_eq!(
        *sink.entries.lock().unwrap(),
        vec![
            ("uuid-1".into(), Some(Role::User)),
            ("uuid-2".into(), Some(Role::Assistant)),
            ("uuid-3".into(), Some(Role::User)),
            ("uuid-4".into(), Some(Role::Assistant)),
        ]
    );
    assert_eq!(session.messages().len(), 4);
    let expected_usage = usage(2_000_000, 200_000);
    let model_usage = ModelUsage {
        input_tokens: 2_000_000,
        output_tokens: 200_000,
        cost_usd: 9.0,
        cost_known: true,
        ..ModelUsage::default()
    };
    assert_eq!(
        SessionResult {
            duration: Default::default(),
            duration_api: Default::default(),
            ..result
        },
        SessionResult {
            subtype: ResultSubtype::Success,
            is_error: false,
            terminal: Some(Terminal::Completed),
            result: "done".into(),
            errors: vec![],
            duration: Default::default(),
            duration_api: Default::default(),
            num_turns: 2,
            total_cost_usd: 9.0,
            usage: expected_usage,
            model_usage: [(MODEL.to_owned(), model_usage)].into(),
            session_id: "sess-1".into(),
        }
    );

    // A second submit continues the same conversation.
    let (_, result) = drive(&mut session, "more").await;
    assert_eq!(
        (result.subtype, result.num_turns, result.result.as_str()),
        (ResultSubtype::Success, 1, "again")
    );
    assert_eq!(model.requests()[2].messages.len(), 5);
    assert_eq!(session.messages().len(), 6);
}

#[tokio::test(start_paused = true)]
async fn the_budget_stops_the_turn_and_closes_open_tool_uses() {
    let sink = Arc::new(MemorySink::default());
    let model = FakeModel::new([
        Response::blocks(
            vec![ContentBlock::tool_use("toolu_1", "Read", json!({}))],
            costly(),
        ),
        Response::text("never sent"),
    ]);
    let read: Arc<dyn Tool> = Arc::new(FakeTool::ok("Read", true, "x", 1_000));
    let mut session = session(model.clone(), vec![read], sink.clone(), Some(1.0));
    let (events, result) = drive(&mut session, "go").await;

    assert_eq!(result.subtype, ResultSubtype::ErrorMaxBudgetUsd);
    assert_eq!(result.terminal, None);
    assert!(result.is_error);
    assert_eq!(model.requests().len(), 1);
    // The open tool_use got a result, yielded and persisted.
    let last = events.last().unwrap();
    let LoopEvent::ToolResults(results) = last else {
        panic!("expected tool results, got {last:?}")
    };
    assert_eq!(
        results_of(&results.message),
        vec![("toolu_1".into(), "Interrupted by user".into(), true)]
    );
    assert_eq!(session.messages().last(), Some(&results.message));
    assert_eq!(sink.entries.lock().unwrap().len(), 3);
}

/// A tool that spends like a sub-agent: it records a model call in the ledger.
struct SideCallTool {
    ledger: tack_core::session::UsageLedger,
}

impl Tool for SideCallTool {
    fn name(&self) -> &str {
        "Agent"
    }
    fn description(&self) -> String {
        "spends".into()
    }
    fn input_schema(&self) -> serde_json::Value {
        json!({"type": "object"})
    }
    fn is_read_only(&self, _input: &serde_json::Value) -> bool {
        true
    }
    fn validate(
        &self,
        _input: &serde_json::Value,
        _ctx: &tack_tool::ToolContext,
    ) -> Result<(), tack_tool::ToolError> {
        Ok(())
    }
    fn call<'a>(
        &'a self,
        _input: serde_json::Value,
        _ctx: &'a tack_tool::ToolContext,
    ) -> BoxFuture<'a, tack_tool::ToolResult> {
        self.ledger.record(
            "claude-haiku-4-5",
            &costly(),
            std::time::Duration::from_millis(7),
        );
        Box::pin(std::future::ready(Ok(tack_tool::ToolOutput::text("done"))))
    }
}

#[tokio::test(start_paused = true)]
async fn side_calls_in_the_ledger_count_in_totals_model_usage_and_the_budget() {
    let sink = Arc::new(MemorySink::default());
    let model = FakeModel::new([
        Response::blocks(
            vec![ContentBlock::tool_use("toolu_1", "Agent", json!({}))],
            usage(10, 5),
        ),
        Response::text("never sent"),
    ]);
    let ledger = tack_core::session::UsageLedger::default();
    let tool: Arc<dyn Tool> = Arc::new(SideCallTool {
        ledger: ledger.clone(),
    });
    let mut session =
        session(model.clone(), vec![tool], sink, Some(1.0)).with_usage_ledger(ledger.clone());
    let (_, result) = drive(&mut session, "go").await;
    // The side call's $1.5 (haiku: $1/M in, $5/M out), made while the
    // message streamed, crossed the budget with it: no second request.
    assert_eq!(result.subtype, ResultSubtype::ErrorMaxBudgetUsd);
    assert_eq!(result.num_turns, 1);
    assert_eq!(model.requests().len(), 1);
    let own = tack_api::cost(MODEL, &usage(10, 5)).usd;
    let side = tack_api::cost("claude-haiku-4-5", &costly()).usd;
    assert_eq!(result.total_cost_usd, own + side);
    assert_eq!(
        result.model_usage.keys().collect::<Vec<_>>(),
        ["claude-haiku-4-5", MODEL]
    );
    assert_eq!(
        result.model_usage["claude-haiku-4-5"],
        ModelUsage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cost_usd: side,
            cost_known: true,
            ..ModelUsage::default()
        }
    );
    // Recorded once, counted once.
    assert_eq!(session.totals().total_cost_usd, own + side);
}

#[tokio::test(start_paused = true)]
async fn rewinding_drops_a_prompt_and_what_followed_and_branches_the_transcript() {
    let sink = Arc::new(MemorySink::default());
    let model = Arc::new(FakeModel::build([
        Response::text("one"),
        Response::text("two"),
        Response::text("three"),
    ]));
    let mut session = session(model.clone(), vec![], sink.clone(), None);
    drive(&mut session, "first").await;
    drive(&mut session, "second").await;
    let prompts: Vec<(String, String)> = session
        .prompts()
        .map(|(uuid, m)| (uuid.to_owned(), m.text()))
        .collect();
    assert_eq!(
        prompts,
        vec![
            ("uuid-1".to_owned(), "first".to_owned()),
            ("uuid-3".to_owned(), "second".to_owned()),
        ]
    );

    // An answer is no prompt: nothing changes.
    assert_eq!(session.rewind_to("uuid-2").await.unwrap(), None);
    assert_eq!(session.messages().len(), 4);

    let dropped = session.rewind_to("uuid-3").await.unwrap();
    assert_eq!(dropped, Some(Message::user_text("second")));
    assert_eq!(
        session.messages(),
        &[
            Message::user_text("first"),
            Message::assistant(vec![ContentBlock::text("one")])
        ]
    );
    drive(&mut session, "again").await;
    // The next request has the rewound conversation and the new prompt.
    let last = model.requests()[2].messages.clone();
    assert_eq!(
        last.iter().map(Message::text).collect::<Vec<_>>(),
        vec!["first", "one", "again"]
    );
    let records: Vec<String> = sink
        .records
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.0.clone())
        .collect();
    assert_eq!(
        records,
        vec![
            "uuid-1",
            "uuid-2",
            "uuid-3",
            "uuid-4",
            "branch:uuid-2",
            "uuid-5",
            "uuid-6"
        ]
    );
    // Back to the first prompt: the chain starts again from nothing.
    assert_eq!(
        session.rewind_to("uuid-1").await.unwrap(),
        Some(Message::user_text("first"))
    );
    assert_eq!(session.messages(), &[] as &[Message]);
    assert_eq!(session.prompts().count(), 0);
    assert_eq!(sink.records.lock().unwrap().last().unwrap().0, "branch:-");
}
