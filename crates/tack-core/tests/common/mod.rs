//! Fakes for the loop tests: a scripted model behind `QueryDeps`, tools that do
//! what a test tells them and record when they ran, and a projection of the event
//! stream that tests compare whole.
#![allow(dead_code)] // each test file uses a different subset

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use serde_json::{Value, json};
use tack_api::{ApiError, StreamEvent, ToolInputError};
use tack_core::compact::CompactTrigger;
use tack_core::context::PromptContext;
use tack_core::deps::QueryDeps;
use tack_core::executor::ToolSet;
use tack_core::permission::{AllowAll, CanUseTool};
use tack_core::query::{LoopEvent, QueryConfig, QueryParams, Terminal, Transition};
use tack_protocol::{
    ContentBlock, DeltaUsage, Message, MessageDeltaBody, MessageResponse, MessagesRequest, Role,
    SseEvent, StopReason, ToolResultContent, Usage,
};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};
use tokio_util::sync::CancellationToken;

pub const MODEL: &str = "claude-sonnet-4-5";

/// One step of a scripted response: wait, then yield.
#[allow(clippy::large_enum_variant)] // test data
#[derive(Debug, Clone)]
pub enum Step {
    Event(Result<StreamEvent, ApiError>),
    Sleep(Duration),
    /// Never yields again (until the stream is dropped).
    Hang,
}

/// A scripted response.
#[derive(Debug, Clone, Default)]
pub struct Response {
    pub steps: Vec<Step>,
}

impl Response {
    /// A complete, well-formed response with these blocks.
    pub fn blocks(blocks: Vec<ContentBlock>, usage: Usage) -> Self {
        let stop_reason = if blocks
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. }))
        {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        };
        let mut r = Response::start(usage.clone());
        for block in blocks.clone() {
            r = r.block(block);
        }
        r.finish(blocks, stop_reason, usage)
    }

    pub fn text(text: &str) -> Self {
        Response::blocks(vec![ContentBlock::text(text)], usage(10, 5))
    }

    pub fn tool_uses(calls: &[(&str, &str, Value)]) -> Self {
        let blocks = calls
            .iter()
            .map(|(id, name, input)| ContentBlock::tool_use(*id, *name, input.clone()));
        Response::blocks(blocks.collect(), usage(10, 5))
    }

    /// `message_start` only.
    pub fn start(usage: Usage) -> Self {
        let message = MessageResponse {
            id: "msg_fake".into(),
            kind: "message".into(),
            role: Role::Assistant,
            model: MODEL.into(),
            content: Vec::new(),
            stop_reason: None,
            stop_sequence: None,
            usage,
            stop_details: None,
        };
        Response {
            steps: vec![sse(SseEvent::MessageStart { message })],
        }
    }

    /// content_block_start, content_block_stop, BlockDone for `block`.
    pub fn block(self, block: ContentBlock) -> Self {
        self.block_with_error(block, None)
    }

    pub fn block_with_error(
        mut self,
        block: ContentBlock,
        input_error: Option<ToolInputError>,
    ) -> Self {
        let index = self
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Event(Ok(StreamEvent::BlockDone { .. }))))
            .count();
        self.steps.push(sse(SseEvent::ContentBlockStart {
            index,
            content_block: block.clone(),
        }));
        self.steps.push(sse(SseEvent::ContentBlockStop { index }));
        self.steps.push(Step::Event(Ok(StreamEvent::BlockDone {
            index,
            block,
            input_error,
        })));
        self
    }

    pub fn sleep(mut self, d: Duration) -> Self {
        self.steps.push(Step::Sleep(d));
        self
    }

    pub fn hang(mut self) -> Self {
        self.steps.push(Step::Hang);
        self
    }

    pub fn error(mut self, e: ApiError) -> Self {
        self.steps.push(Step::Event(Err(e)));
        self
    }

    /// message_delta, message_stop, MessageDone.
    pub fn finish(
        mut self,
        content: Vec<ContentBlock>,
        stop_reason: StopReason,
        usage: Usage,
    ) -> Self {
        self.steps.push(sse(SseEvent::MessageDelta {
            delta: MessageDeltaBody {
                stop_reason: Some(stop_reason.clone()),
                ..Default::default()
            },
            usage: DeltaUsage {
                output_tokens: usage.output_tokens,
                ..Default::default()
            },
        }));
        self.steps.push(sse(SseEvent::MessageStop));
        self.steps
            .push(Step::Event(Ok(StreamEvent::MessageDone(MessageResponse {
                id: "msg_fake".into(),
                kind: "message".into(),
                role: Role::Assistant,
                model: MODEL.into(),
                content,
                stop_reason: Some(stop_reason),
                stop_sequence: None,
                usage,
                stop_details: None,
            }))));
        self
    }
}

fn sse(e: SseEvent) -> Step {
    Step::Event(Ok(StreamEvent::Sse(e)))
}

pub fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    }
}

/// What the fake model saw and did.
#[derive(Debug, Default)]
pub struct ModelLog {
    pub requests: Vec<MessagesRequest>,
    /// When each request arrived.
    pub requested_at: Vec<Instant>,
    /// When each BlockDone was yielded, by tool_use id.
    pub block_done_at: Vec<(String, Instant)>,
    /// When each MessageDone was yielded (the model's message_stop).
    pub message_done_at: Vec<Instant>,
}

pub type OnRequest = Box<dyn Fn(&MessagesRequest) + Send + Sync>;

/// A `QueryDeps` that answers each `call_model` with the next scripted response.
pub struct FakeModel {
    responses: Mutex<VecDeque<Response>>,
    pub log: Arc<Mutex<ModelLog>>,
    next_id: Mutex<u64>,
    /// Called at each request (e.g. to check what was persisted by then).
    pub on_request: Option<OnRequest>,
}

impl FakeModel {
    pub fn new(responses: impl IntoIterator<Item = Response>) -> Arc<Self> {
        Arc::new(Self::build(responses))
    }

    pub fn build(responses: impl IntoIterator<Item = Response>) -> Self {
        FakeModel {
            responses: Mutex::new(responses.into_iter().collect()),
            log: Arc::default(),
            next_id: Mutex::new(0),
            on_request: None,
        }
    }

    pub fn requests(&self) -> Vec<MessagesRequest> {
        self.log.lock().unwrap().requests.clone()
    }
}

impl QueryDeps for FakeModel {
    fn call_model(
        &self,
        request: MessagesRequest,
        _cancel: CancellationToken,
    ) -> BoxStream<'static, Result<StreamEvent, ApiError>> {
        if let Some(f) = &self.on_request {
            f(&request);
        }
        {
            let mut log = self.log.lock().unwrap();
            log.requests.push(request);
            log.requested_at.push(Instant::now());
        }
        let response = self
            .responses
            .lock()
            .unwrap()
            .pop_front()
            .expect("the fake model ran out of scripted responses");
        let log = self.log.clone();
        futures::stream::unfold(
            (response.steps.into_iter(), log),
            |(mut steps, log)| async move {
                loop {
                    match steps.next()? {
                        Step::Sleep(d) => tokio::time::sleep(d).await,
                        Step::Hang => std::future::pending::<()>().await,
                        Step::Event(event) => {
                            match &event {
                                Ok(StreamEvent::BlockDone {
                                    block: ContentBlock::ToolUse { id, .. },
                                    ..
                                }) => {
                                    log.lock()
                                        .unwrap()
                                        .block_done_at
                                        .push((id.clone(), Instant::now()));
                                }
                                Ok(StreamEvent::MessageDone(_)) => {
                                    log.lock().unwrap().message_done_at.push(Instant::now());
                                }
                                _ => {}
                            }
                            return Some((event, (steps, log)));
                        }
                    }
                }
            },
        )
        .boxed()
    }

    fn new_id(&self) -> String {
        let mut n = self.next_id.lock().unwrap();
        *n += 1;
        format!("uuid-{n}")
    }
}

/// What a fake tool does when called.
#[derive(Clone)]
pub enum Behavior {
    /// Sleeps, then returns this text.
    Ok {
        text: String,
        sleep: Duration,
    },
    /// Returns `Err(ToolError)`.
    Fail(String),
    Panic(String),
    /// Sleeps for `sleep` ignoring cancellation, then returns.
    IgnoreCancel {
        sleep: Duration,
    },
    /// Sends progress, then returns.
    Progress(Vec<Value>),
}

/// When a tool call ran.
#[derive(Debug, Clone)]
pub struct Run {
    pub tool_use_id: String,
    pub started: Instant,
    pub ended: Option<Instant>,
    /// The call's cancellation token (fired on abort or drop).
    pub cancel: CancellationToken,
}

impl Run {
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Waits (at most 5 s) until this call's token fires; true if it did.
    pub async fn wait_cancelled(&self) -> bool {
        tokio::time::timeout(Duration::from_secs(5), self.cancel.cancelled())
            .await
            .is_ok()
    }
}

/// Waits (at most 5 s, checking every millisecond) until `condition` holds.
/// For conditions with no event to await, such as "a tool has started".
pub async fn wait_for(condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !condition() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

pub struct FakeTool {
    pub name: &'static str,
    pub read_only: bool,
    pub behavior: Behavior,
    pub runs: Arc<Mutex<Vec<Run>>>,
    /// Required input field (validate fails without it).
    pub required: Option<&'static str>,
}

impl FakeTool {
    pub fn new(name: &'static str, read_only: bool, behavior: Behavior) -> Self {
        FakeTool {
            name,
            read_only,
            behavior,
            runs: Arc::default(),
            required: None,
        }
    }

    pub fn requiring(mut self, field: &'static str) -> Self {
        self.required = Some(field);
        self
    }

    pub fn ok(name: &'static str, read_only: bool, text: &str, sleep_ms: u64) -> Self {
        FakeTool::new(
            name,
            read_only,
            Behavior::Ok {
                text: text.into(),
                sleep: Duration::from_millis(sleep_ms),
            },
        )
    }
}

impl Tool for FakeTool {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> String {
        format!("fake {}", self.name)
    }

    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        self.read_only
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        match self.required {
            Some(field) if input.get(field).is_none() => Err(ToolError::new(format!(
                "InputValidationError: {field} is required"
            ))),
            Some(_) | None => Ok(()),
        }
    }

    fn call<'a>(&'a self, _input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let index = {
                let mut runs = self.runs.lock().unwrap();
                runs.push(Run {
                    tool_use_id: ctx.tool_use_id.clone(),
                    started: Instant::now(),
                    ended: None,
                    cancel: ctx.cancel.clone(),
                });
                runs.len() - 1
            };
            let end = |_cancelled: bool| {
                self.runs.lock().unwrap()[index].ended = Some(Instant::now());
            };
            match &self.behavior {
                Behavior::Ok { text, sleep } => {
                    tokio::select! {
                        () = tokio::time::sleep(*sleep) => {}
                        () = ctx.cancel.cancelled() => {
                            end(true);
                            return Err(ToolError::new("cancelled"));
                        }
                    }
                    end(false);
                    Ok(ToolOutput::text(text.clone()))
                }
                Behavior::Fail(message) => Err(ToolError::new(message.clone())),
                Behavior::Panic(message) => panic!("{message}"),
                Behavior::IgnoreCancel { sleep } => {
                    tokio::time::sleep(*sleep).await;
                    end(false);
                    Ok(ToolOutput::text("late"))
                }
                Behavior::Progress(items) => {
                    for item in items {
                        ctx.progress.send(item.clone());
                        tokio::task::yield_now().await;
                    }
                    Ok(ToolOutput::text("progressed"))
                }
            }
        })
    }
}

pub fn tool_env() -> Arc<ToolEnv> {
    let dir = std::env::temp_dir();
    Arc::new(ToolEnv::new(dir.clone(), dir))
}

pub fn params(
    deps: Arc<dyn QueryDeps>,
    tools: Vec<Arc<dyn Tool>>,
    prompt: &str,
    cancel: CancellationToken,
) -> QueryParams {
    params_with(
        deps,
        tools,
        Arc::new(AllowAll),
        prompt,
        cancel,
        QueryConfig::new(MODEL),
    )
}

pub fn params_with(
    deps: Arc<dyn QueryDeps>,
    tools: Vec<Arc<dyn Tool>>,
    can_use_tool: Arc<dyn CanUseTool>,
    prompt: &str,
    cancel: CancellationToken,
    config: QueryConfig,
) -> QueryParams {
    QueryParams {
        messages: vec![Message::user_text(prompt)],
        context: Arc::new(PromptContext::default()),
        tools: ToolSet::new(tools),
        tool_env: tool_env(),
        can_use_tool,
        deps,
        config,
        cancel,
        stop_hooks: None,
        autocompact_tracking: Default::default(),
        model_switch: None,
    }
}

/// The shape of the event stream without message text or raw SSE.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Request {
        turn_count: u32,
        transition: Option<Transition>,
    },
    Assistant {
        tool_uses: Vec<String>,
        stop_reason: Option<StopReason>,
    },
    /// (tool_use_id, is_error) per result.
    ToolResults(Vec<(String, bool)>),
    Progress(String),
    Tombstone,
    ModelFallback {
        from: String,
        to: String,
    },
    Compacted(CompactTrigger),
    /// consecutive_failures
    CompactFailed(u32),
    /// The text of a message the loop appended.
    Meta(String),
    End(Terminal),
}

pub fn shape(events: &[LoopEvent]) -> Vec<Shape> {
    events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::RequestStart {
                turn_count,
                transition,
                ..
            } => Some(Shape::Request {
                turn_count: *turn_count,
                transition: *transition,
            }),
            LoopEvent::AssistantMessage(a) => Some(Shape::Assistant {
                tool_uses: a
                    .message
                    .tool_uses()
                    .map(|(id, _, _)| id.to_owned())
                    .collect(),
                stop_reason: a.stop_reason.clone(),
            }),
            LoopEvent::ToolResults(r) => Some(Shape::ToolResults(
                r.results
                    .iter()
                    .map(|i| (i.tool_use_id.clone(), i.is_error))
                    .collect(),
            )),
            LoopEvent::ToolProgress(p) => Some(Shape::Progress(p.tool_use_id.clone())),
            LoopEvent::Terminal(t) => Some(Shape::End(t.clone())),
            LoopEvent::Tombstone { .. } => Some(Shape::Tombstone),
            LoopEvent::ModelFallback { from, to } => Some(Shape::ModelFallback {
                from: from.clone(),
                to: to.clone(),
            }),
            LoopEvent::Compacted(c) => Some(Shape::Compacted(c.trigger)),
            LoopEvent::CompactFailed {
                consecutive_failures,
                ..
            } => Some(Shape::CompactFailed(*consecutive_failures)),
            LoopEvent::MetaMessage { message, .. } => Some(Shape::Meta(message.text())),
            LoopEvent::Stream(_) | LoopEvent::Retry { .. } => None,
        })
        .collect()
}

/// Runs the stream to its end.
pub async fn collect(stream: tack_core::query::QueryStream) -> Vec<LoopEvent> {
    stream.collect().await
}

/// The tool_result blocks of a message as (id, text, is_error).
pub fn results_of(message: &Message) -> Vec<(String, String, bool)> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                ..
            } => Some((
                tool_use_id.clone(),
                content
                    .as_ref()
                    .map(ToolResultContent::to_text)
                    .unwrap_or_default(),
                *is_error,
            )),
            _ => None,
        })
        .collect()
}

/// `messages` without cache breakpoints (the request builder adds them).
pub fn without_cache_control(messages: &[Message]) -> Vec<Message> {
    let mut messages = messages.to_vec();
    for block in messages.iter_mut().flat_map(|m| m.content.iter_mut()) {
        if let Some(slot) = block.cache_control_mut() {
            *slot = None;
        }
    }
    messages
}
