//! The agent loop: `query()`, the inner layer of seed 002 (`queryLoop` in
//! Claude Code).
//!
//! # The model
//! [`query`] takes a conversation ending in a user message and returns a
//! [`QueryStream`] of [`LoopEvent`]s that ends with exactly one
//! [`LoopEvent::Terminal`]. The consumer drives: the loop runs in a tokio task
//! behind a small bounded channel, so it waits whenever the consumer falls behind,
//! and before each model request it waits until the consumer has taken every
//! earlier event (so a consumer that persists each message before pulling the next
//! event has it on disk before the request leaves). Dropping the stream cancels
//! everything below it: the model stream, every running tool.
//!
//! One [`CancellationToken`] (`QueryParams::cancel`) reaches every leaf: the HTTP
//! stream gets a child of it, the tool executor another, each tool call a child of
//! that. When it fires the loop gives every tool_use without a result a synthetic
//! `is_error` result, yields them, and ends with [`Terminal::Aborted`] at once,
//! without waiting for tools to wind down.
//!
//! The body of [`query_loop`] reads top to bottom as seed 004's per-turn steps
//! ("Step 1: State destructure" ... "Step 14: Collect toolResults, decide continue");
//! grep a step's name to find it.

mod continue_decision;
mod event;
mod recovery;
mod state;
mod stream;
mod terminal;

pub use continue_decision::{Decision, IterationEnd, StopHooks, decide_continue};
pub use event::{AssistantMessageEvent, LoopEvent, ToolResultInfo, ToolResultsEvent};
pub use recovery::Withheld;
pub use state::{State, Transition};
pub use stream::{EVENT_BUFFER, QueryStream};
pub use terminal::Terminal;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tack_api::{ApiError, StreamEvent};
use tack_protocol::{ContentBlock, Message, SseEvent, StopReason, ThinkingConfig, Usage};
use tack_tool::ToolEnv;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::context::PromptContext;
use crate::deps::QueryDeps;
use crate::executor::{
    AbortOnDrop, DEFAULT_MAX_CONCURRENCY, ExecutorEvent, StreamingToolExecutor, ToolSet,
    tool_results_dir,
};
use crate::permission::CanUseTool;
use crate::pipeline::autocompact::AutocompactOutcome;
use crate::pipeline::blocking_limit::{BlockingLimit, BlockingLimitInput, check_blocking_limit};
use crate::pipeline::snip::SnipOutcome;
use crate::pipeline::tool_result_budget::ToolResultBudget;
use crate::pipeline::{
    attachments, collapse, compact_boundary, microcompact::MicrocompactOutcome, snip,
    tool_result_budget,
};
use crate::request::{RequestOptions, build_request};
use stream::{Emitter, Item};

/// Everything one `query()` call needs.
pub struct QueryParams {
    /// The conversation so far, ending with the new user message.
    pub messages: Vec<Message>,
    /// System prompt, user context and system context (sent by `build_request`).
    pub context: Arc<PromptContext>,
    pub tools: ToolSet,
    pub tool_env: Arc<ToolEnv>,
    pub can_use_tool: Arc<dyn CanUseTool>,
    pub deps: Arc<dyn QueryDeps>,
    pub config: QueryConfig,
    /// The user's abort. The loop works with a child, so dropping the stream does
    /// not fire the caller's token.
    pub cancel: CancellationToken,
}

/// The fixed settings of one query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryConfig {
    pub model: String,
    /// max_tokens of each request unless a recovery overrides it.
    pub max_tokens: u32,
    /// max_tokens for the first request (`maxOutputTokensOverride`).
    pub max_output_tokens_override: Option<u32>,
    pub thinking: Option<ThinkingConfig>,
    /// `false` with DISABLE_PROMPT_CACHING.
    pub prompt_caching: bool,
    /// Model round-trips allowed (`--max-turns`); `None` = unlimited.
    pub max_turns: Option<u32>,
    /// Concurrency-safe tool calls running at once.
    pub max_tool_concurrency: usize,
    /// The model's context window, for the blocking-limit check; `None` disables it.
    pub context_window: Option<u64>,
    pub tool_result_budget: ToolResultBudget,
}

impl QueryConfig {
    /// Defaults for `model`: 32k output tokens, caching on, no turn limit,
    /// 10 parallel tools, no blocking-limit check.
    pub fn new(model: impl Into<String>) -> Self {
        QueryConfig {
            model: model.into(),
            max_tokens: 32_000,
            max_output_tokens_override: None,
            thinking: None,
            prompt_caching: true,
            max_turns: None,
            max_tool_concurrency: DEFAULT_MAX_CONCURRENCY,
            context_window: None,
            tool_result_budget: ToolResultBudget::default(),
        }
    }
}

/// Runs the agent loop; see the module docs. Must be called within a tokio runtime.
pub fn query(params: QueryParams) -> QueryStream {
    let (tx, rx) = mpsc::channel::<Item>(EVENT_BUFFER);
    let cancel = params.cancel.child_token();
    let params = QueryParams {
        cancel: cancel.clone(),
        ..params
    };
    let task = tokio::spawn(async move {
        let out = Emitter::new(tx);
        let terminal = query_loop(params, &out).await;
        out.emit(LoopEvent::Terminal(terminal)).await;
    });
    QueryStream::new(rx, cancel.drop_guard(), AbortOnDrop(task))
}

async fn query_loop(params: QueryParams, out: &Emitter) -> Terminal {
    let QueryParams {
        messages,
        context,
        tools,
        tool_env,
        can_use_tool,
        deps,
        config,
        cancel,
    } = params;
    let tool_definitions = tools.definitions();
    let mut state = State::initial(messages, config.max_output_tokens_override);

    loop {
        // Step 1: State destructure.
        let State {
            messages,
            turn_count,
            max_output_tokens_recovery_count,
            has_attempted_reactive_compact,
            max_output_tokens_override,
            stop_hook_active,
            auto_compact_tracking,
            transition,
        } = state;
        if cancel.is_cancelled() {
            return Terminal::Aborted;
        }

        // Step 2: Skill prefetch — no skills yet; it would start here and be
        // consumed with the attachments.

        // Step 3: yield stream_request_start.
        out.emit(LoopEvent::RequestStart {
            model: config.model.clone(),
            turn_count,
            transition,
        })
        .await;

        // Step 4: getMessagesAfterCompactBoundary. From here `messages_for_query`
        // is moved through the stages, then only appended to.
        let messages_for_query = compact_boundary::messages_after_compact_boundary(messages);

        // Step 5: applyToolResultBudget (before microcompact, see pipeline docs).
        let messages_for_query = tool_result_budget::apply_tool_result_budget(
            messages_for_query,
            &config.tool_result_budget,
        );

        // Step 6: HISTORY_SNIP.
        let SnipOutcome {
            messages: messages_for_query,
            tokens_freed: snip_tokens_freed,
        } = snip::snip_if_needed(messages_for_query);

        // Step 7: microcompact.
        let MicrocompactOutcome {
            messages: messages_for_query,
            tokens_freed: mc_tokens_freed,
        } = deps.microcompact(messages_for_query).await;

        // Step 8: contextCollapse.
        let collapsed = collapse::apply_collapses_if_needed(messages_for_query);

        // Step 9: autocompact (stands down while collapse manages the context).
        let AutocompactOutcome {
            messages: mut messages_for_query,
            compacted,
            tracking,
        } = if collapsed.active {
            AutocompactOutcome {
                messages: collapsed.messages,
                compacted: false,
                tracking: auto_compact_tracking,
            }
        } else {
            deps.autocompact(collapsed.messages, auto_compact_tracking)
                .await
        };
        let auto_compact_tracking = tracking;

        // Step 10: Blocking limit check.
        let limit = check_blocking_limit(
            &messages_for_query,
            BlockingLimitInput {
                context_window: config.context_window,
                tokens_freed: snip_tokens_freed + mc_tokens_freed,
                exempt: compacted || collapsed.active,
            },
        );
        match limit {
            BlockingLimit::Below => {}
            BlockingLimit::AtLimit { .. } => return Terminal::BlockingLimit,
        }

        // Step 11: deps.callModel — streaming model call, with tools starting as
        // their blocks complete. First let the consumer catch up (invariant 7).
        out.barrier().await;
        let request = build_request(
            &context,
            &messages_for_query,
            &RequestOptions {
                model: &config.model,
                max_tokens: max_output_tokens_override.unwrap_or(config.max_tokens),
                tools: &tool_definitions,
                thinking: config.thinking.clone(),
                prompt_caching: config.prompt_caching,
            },
        );
        let mut executor = StreamingToolExecutor::new(
            tools.clone(),
            tool_env.clone(),
            can_use_tool.clone(),
            &cancel,
            config.max_tool_concurrency,
        );
        let response = stream_response(deps.as_ref(), request, &cancel, &mut executor, out).await;

        // Step 12: yield messages. (Streaming fallback and its tombstones belong to
        // the recovery issue.)
        let (assistant, aborted) = match response {
            ModelResponse::Done(assistant) => (assistant, false),
            ModelResponse::Aborted(Some(partial)) => (partial, true),
            ModelResponse::Aborted(None) => return Terminal::Aborted,
            ModelResponse::Failed(error) => {
                if !recovery::is_withheld_prompt_too_long(&error) {
                    // Model fallback (fallback_model) belongs to the recovery issue.
                    return Terminal::ModelError(error);
                }
                let state_now = State {
                    messages: messages_for_query,
                    turn_count,
                    max_output_tokens_recovery_count,
                    has_attempted_reactive_compact,
                    max_output_tokens_override,
                    stop_hook_active,
                    auto_compact_tracking,
                    transition,
                };
                match decide_continue(IterationEnd {
                    state: state_now,
                    needs_follow_up: false,
                    withheld: Some(Withheld::PromptTooLong(error)),
                    max_turns: config.max_turns,
                }) {
                    Decision::Continue(next) => {
                        state = next;
                        continue;
                    }
                    Decision::Stop(terminal) => return terminal,
                }
            }
        };
        let needs_follow_up = assistant.message.tool_uses().next().is_some();
        let withheld = recovery::is_withheld_max_output_tokens(assistant.stop_reason.as_ref())
            .then_some(Withheld::MaxOutputTokens);
        messages_for_query.push(assistant.message.clone());
        out.emit(LoopEvent::AssistantMessage(assistant)).await;

        // Step 13: StreamingToolExecutor — collect the remaining results in
        // tool_use order, streaming progress meanwhile.
        let mut outcomes = Vec::new();
        let mut aborted = aborted;
        if aborted {
            outcomes = executor.abort();
        }
        while !aborted {
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    outcomes.extend(executor.abort());
                    aborted = true;
                }
                event = executor.next_event() => match event {
                    ExecutorEvent::Progress(progress) => {
                        out.emit(LoopEvent::ToolProgress(progress)).await;
                    }
                    ExecutorEvent::Result(outcome) => outcomes.push(outcome),
                    ExecutorEvent::Finished => break,
                },
            }
        }
        for progress in executor.drain_progress() {
            out.emit(LoopEvent::ToolProgress(progress)).await;
        }
        drop(executor);

        // Step 5's per-message half (see pipeline/tool_result_budget.rs).
        if !aborted {
            tool_result_budget::apply_message_budget(
                &mut outcomes,
                &tool_results_dir(&tool_env),
                &config.tool_result_budget,
            );
        }

        // Attachments: injected with the tool results.
        if !outcomes.is_empty() {
            let mut blocks: Vec<ContentBlock> = outcomes.iter().map(|o| o.to_block()).collect();
            if !aborted {
                blocks.extend(attachments::attachments_for(&messages_for_query));
            }
            let message = Message::user(blocks);
            messages_for_query.push(message.clone());
            let results = outcomes
                .into_iter()
                .map(|o| ToolResultInfo {
                    tool_use_id: o.tool_use_id,
                    tool_name: o.tool_name,
                    is_error: o.is_error,
                    structured: o.structured,
                })
                .collect();
            out.emit(LoopEvent::ToolResults(ToolResultsEvent {
                uuid: deps.new_id(),
                message,
                results,
            }))
            .await;
        }
        if aborted || cancel.is_cancelled() {
            return Terminal::Aborted;
        }

        // Step 14: Collect toolResults, decide continue.
        let state_now = State {
            messages: messages_for_query,
            turn_count,
            max_output_tokens_recovery_count,
            has_attempted_reactive_compact,
            max_output_tokens_override,
            stop_hook_active,
            auto_compact_tracking,
            transition,
        };
        match decide_continue(IterationEnd {
            state: state_now,
            needs_follow_up,
            withheld,
            max_turns: config.max_turns,
        }) {
            Decision::Continue(next) => state = next,
            Decision::Stop(terminal) => return terminal,
        }
    }
}

enum ModelResponse {
    Done(AssistantMessageEvent),
    /// Cancelled; the blocks completed before the abort, if any.
    Aborted(Option<AssistantMessageEvent>),
    Failed(ApiError),
}

/// The message as assembled from the stream so far.
struct Partial {
    id: String,
    model: String,
    usage: Usage,
    blocks: Vec<ContentBlock>,
}

impl Partial {
    fn finish(
        self,
        uuid: String,
        stop_reason: Option<StopReason>,
        api_duration: Duration,
    ) -> AssistantMessageEvent {
        AssistantMessageEvent {
            uuid,
            message: Message::assistant(self.blocks),
            id: self.id,
            model: self.model,
            usage: self.usage,
            stop_reason,
            api_duration,
        }
    }
}

/// Step 11's body: pulls the model stream, forwarding raw events and retries,
/// handing each finished tool_use block to the executor, and forwarding progress
/// of tools already running.
async fn stream_response(
    deps: &dyn QueryDeps,
    request: tack_protocol::MessagesRequest,
    cancel: &CancellationToken,
    executor: &mut StreamingToolExecutor,
    out: &Emitter,
) -> ModelResponse {
    let started = Instant::now();
    let mut partial = Partial {
        id: String::new(),
        model: request.model.clone(),
        usage: Usage::default(),
        blocks: Vec::new(),
    };
    let mut stream = deps.call_model(request, cancel.child_token());
    let aborted = |partial: Partial| {
        if partial.blocks.is_empty() {
            ModelResponse::Aborted(None)
        } else {
            ModelResponse::Aborted(Some(partial.finish(deps.new_id(), None, started.elapsed())))
        }
    };
    loop {
        let event = tokio::select! {
            biased;
            () = cancel.cancelled() => return aborted(partial),
            Some(progress) = executor.next_progress() => {
                out.emit(LoopEvent::ToolProgress(progress)).await;
                continue;
            }
            event = stream.next() => event,
        };
        match event {
            None => {
                return ModelResponse::Failed(ApiError::Connection {
                    message: "the response stream ended before the message was complete".into(),
                });
            }
            Some(Err(_)) if cancel.is_cancelled() => return aborted(partial),
            Some(Err(error)) => return ModelResponse::Failed(error),
            Some(Ok(StreamEvent::Retry {
                attempt,
                max_retries,
                delay,
                error,
            })) => {
                out.emit(LoopEvent::Retry {
                    attempt,
                    max_retries,
                    delay,
                    error,
                })
                .await;
            }
            Some(Ok(StreamEvent::Sse(event))) => {
                if let SseEvent::MessageStart { message } = &event {
                    partial.id.clone_from(&message.id);
                    partial.model.clone_from(&message.model);
                    partial.usage = message.usage.clone();
                }
                out.emit(LoopEvent::Stream(event)).await;
            }
            Some(Ok(StreamEvent::BlockDone {
                index: _,
                block,
                input_error,
            })) => {
                if let ContentBlock::ToolUse {
                    id, name, input, ..
                } = &block
                {
                    executor.add_tool(id, name, input.clone(), input_error.as_ref());
                }
                partial.blocks.push(block);
            }
            Some(Ok(StreamEvent::MessageDone(response))) => {
                // A client that reported no BlockDone for a tool_use still gets it run.
                for block in &response.content {
                    if let ContentBlock::ToolUse {
                        id, name, input, ..
                    } = block
                        && !executor.has_call(id)
                    {
                        executor.add_tool(id, name, input.clone(), None);
                    }
                }
                return ModelResponse::Done(AssistantMessageEvent {
                    uuid: deps.new_id(),
                    message: Message::assistant(response.content),
                    id: response.id,
                    model: response.model,
                    usage: response.usage,
                    stop_reason: response.stop_reason,
                    api_duration: started.elapsed(),
                });
            }
        }
    }
}
