//! The agent loop: `query()`, the inner layer of seed 002 (`queryLoop` in
//! Claude Code).
//!
//! # The model
//! [`query`] takes a conversation ending in a user message (or in an
//! assistant message whose tool_uses have no results: a resumed session whose
//! last turn deferred a call; those calls run first, permission check
//! included, then the loop goes on as after any tool results) and returns a
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
//! The body of `query_loop` reads top to bottom as seed 004's per-turn steps
//! ("Step 1: State destructure" ... "Step 14: Collect toolResults, decide continue");
//! grep a step's name to find it.

mod continue_decision;
mod event;
mod recovery;
mod state;
mod stream;
mod terminal;

pub use crate::compact::{CompactTrigger, CompactedEvent};
pub use event::{AssistantMessageEvent, LoopEvent, ToolResultInfo, ToolResultsEvent};
pub use recovery::max_output_tokens::RESUME_MESSAGE;
pub use recovery::stop_hooks::{LoopHooks, StopHookInput, StopHookOutcome};
pub use state::Transition;
pub use stream::QueryStream;
pub use terminal::{DeferredToolUse, PROMPT_TOO_LONG_MESSAGE, Terminal};

pub(crate) use state::State;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::Value;
use tack_api::{ApiError, StreamEvent};
use tack_protocol::{
    ContentBlock, Message, Role, SseEvent, StopReason, ThinkingConfig, ToolDefinition, Usage,
};
use tack_tool::{ToolEnv, TurnEnd};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::compact::{
    AutocompactTracking, BlockingLimit, BlockingLimitInput, CompactError, ContextLimits,
    MicrocompactOutcome, SNIP_KEEP_RECENT, SnipOutcome, SummarySettings, ToolResultBudget,
    UsageMark, apply_message_budget, autocompact, check_blocking_limit, microcompact_config,
    should_autocompact, snip_if_needed, snip_thresholds, token_count_with_estimation,
};
use crate::context::PromptContext;
use crate::deps::QueryDeps;
use crate::executor::{
    AbortOnDrop, DEFAULT_MAX_CONCURRENCY, ExecutorEvent, StreamingToolExecutor, ToolSet,
    tool_results_dir,
};
use crate::permission::CanUseTool;
use crate::request::{RequestOptions, build_request, system_reminder};
use continue_decision::{Decision, DecisionEnv, IterationEnd, decide_continue};
use recovery::max_output_tokens::DEFAULT_MAX_OUTPUT_TOKENS;
use recovery::{Withheld, model_fallback, streaming_fallback};
use stream::{EVENT_BUFFER, Emitter, Item};

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
    /// Run when the model finishes without tool use (`None`: no hooks).
    pub stop_hooks: Option<Arc<dyn LoopHooks>>,
    /// Autocompact's circuit breaker so far in the session (the `Session`
    /// carries it across queries from `Compacted` / `CompactFailed` events).
    pub autocompact_tracking: AutocompactTracking,
    /// Asked before each request whether the model changes (`None`: never).
    pub model_switch: Option<Arc<dyn ModelSwitch>>,
}

/// Which model a query's next request goes to, asked before each one: Claude
/// Code picks the main loop's model per request (`getRuntimeMainLoopModel`),
/// so `opusplan` leaves Opus as soon as an ExitPlanMode is approved, within
/// the turn.
pub trait ModelSwitch: Send + Sync {
    /// The settings for the next request when its model is not `config`'s
    /// (the query's so far); `None` keeps them.
    fn switch(&self, config: &QueryConfig) -> Option<QueryConfig>;
}

/// The fixed settings of one query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryConfig {
    pub model: String,
    /// max_tokens of each request unless a recovery overrides it (default
    /// 8,000; CLAUDE_CODE_MAX_OUTPUT_TOKENS sets it). At or above the escalated
    /// cap (64k / the model's), max_output_tokens escalation does not apply.
    pub max_tokens: u32,
    /// max_tokens for the first request (`maxOutputTokensOverride`; disables
    /// escalation).
    pub max_output_tokens_override: Option<u32>,
    /// The user set `max_tokens` (CLAUDE_CODE_MAX_OUTPUT_TOKENS): a cut answer
    /// is not retried with a higher cap, only resumed (as Claude Code does).
    pub max_tokens_configured: bool,
    pub thinking: Option<ThinkingConfig>,
    /// `false` with DISABLE_PROMPT_CACHING.
    pub prompt_caching: bool,
    /// Model round-trips allowed (`--max-turns`); `None` = unlimited.
    pub max_turns: Option<u32>,
    /// Concurrency-safe tool calls running at once.
    pub max_tool_concurrency: usize,
    /// The model's context window; `None`: `tack_api::model_limits`'s for a
    /// known model, and for an unknown model no threshold-based context
    /// management at all.
    pub context_window: Option<u64>,
    pub tool_result_budget: ToolResultBudget,
    /// `--fallback-model`: used after repeated overloaded errors.
    pub fallback_model: Option<String>,
    /// Autocompact (`false` with DISABLE_AUTO_COMPACT / `autoCompactEnabled:
    /// false`); when off, the blocking limit applies instead.
    pub auto_compact: bool,
    /// Microcompact (clearing old tool results).
    pub microcompact: bool,
    /// HISTORY_SNIP: drop old middle turns before autocompact (off by default).
    pub snip: bool,
    /// Output tokens the model should aim for (token-budget continuation).
    pub token_budget: Option<u64>,
    /// Top-level request fields set as given (`output_config` for `--effort`);
    /// a field the request builder sets itself is not overridden.
    pub request_extra: serde_json::Map<String, serde_json::Value>,
}

impl QueryConfig {
    /// Defaults for `model`: 8k output tokens, caching on, no turn limit,
    /// 10 parallel tools, window from the model table, autocompact and
    /// microcompact on, snip off, no fallback model, no token budget.
    pub fn new(model: impl Into<String>) -> Self {
        QueryConfig {
            model: model.into(),
            max_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            max_output_tokens_override: None,
            max_tokens_configured: false,
            thinking: None,
            prompt_caching: true,
            max_turns: None,
            max_tool_concurrency: DEFAULT_MAX_CONCURRENCY,
            context_window: None,
            tool_result_budget: ToolResultBudget::default(),
            fallback_model: None,
            auto_compact: true,
            microcompact: true,
            snip: false,
            token_budget: None,
            request_extra: serde_json::Map::new(),
        }
    }

    /// The context limits the compaction tiers work with; `None` if the window
    /// is neither configured nor known for the model. The output reserve is
    /// the model's output cap (`tack_api::model_limits`, whose default for an
    /// unknown model is above the reserve's 20k ceiling, so any default gives
    /// the same thresholds).
    pub fn context_limits(&self) -> Option<ContextLimits> {
        let model = tack_api::model_limits(&self.model);
        let window = self
            .context_window
            .or(model.known.then_some(model.context_window))?;
        Some(ContextLimits {
            window,
            max_output: model.max_output_tokens,
        })
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
        stop_hooks,
        autocompact_tracking,
        model_switch,
    } = params;
    let mut state = State {
        auto_compact_tracking: autocompact_tracking,
        ..State::initial(messages, config.max_output_tokens_override)
    };
    let mut query = Query {
        context_limits: config.context_limits(),
        model: config.model.clone(),
        tool_definitions: tools.definitions(),
        tools_generation: tools.generation(),
        context,
        tools,
        tool_env,
        can_use_tool,
        deps,
        config,
        cancel,
        stop_hooks,
        model_switch,
        out,
    };
    if let Some(terminal) = query.pending_tools(&mut state).await {
        return terminal;
    }
    loop {
        let end = match query.iteration(state).await {
            Ok(end) => end,
            Err(terminal) => return terminal,
        };
        // Step 14: Collect toolResults, decide continue.
        match decide_continue(end, &query.decision_env()).await {
            Decision::Continue(next) => state = next,
            Decision::Stop(terminal) => return terminal,
        }
    }
}

/// One query's fixed inputs, and what a model fallback or a tool search
/// changes for the rest of it.
struct Query<'a> {
    context: Arc<PromptContext>,
    tools: ToolSet,
    tool_env: Arc<ToolEnv>,
    can_use_tool: Arc<dyn CanUseTool>,
    deps: Arc<dyn QueryDeps>,
    config: QueryConfig,
    cancel: CancellationToken,
    stop_hooks: Option<Arc<dyn LoopHooks>>,
    model_switch: Option<Arc<dyn ModelSwitch>>,
    context_limits: Option<ContextLimits>,
    out: &'a Emitter,
    /// The model for the rest of this query (changed by a model fallback or
    /// the model switch).
    model: String,
    /// The tools sent, as of the tool set's `tools_generation`.
    tool_definitions: Vec<ToolDefinition>,
    tools_generation: u64,
}

impl Query<'_> {
    /// Steps 1-13 of one iteration. Returns its end for step 14 (the state
    /// moved through the iteration whole, so the next `State` is built only by
    /// the continue decision), or the terminal it ended with.
    async fn iteration(&mut self, mut state: State) -> Result<IterationEnd, Terminal> {
        // Step 1: State destructure — `state.messages` becomes messages for
        // query, moved through the compaction tiers and then only appended to.
        if self.cancel.is_cancelled() {
            return Err(Terminal::Aborted);
        }

        // Step 2: Skill prefetch — no skills yet; it would start here and be
        // consumed with the attachments.
        self.switch_model();

        // Step 3: yield stream_request_start.
        self.out
            .emit(LoopEvent::RequestStart {
                model: self.model.clone(),
                turn_count: state.turn_count,
                transition: state.transition,
            })
            .await;

        // Steps 4-10: the compaction tiers, then the blocking limit.
        self.compact(&mut state).await?;

        // Step 11: deps.callModel.
        let (response, executor) = self.call_model(&state).await;

        // Step 12: yield messages (a recoverable error or a max_tokens cut is
        // withheld until step 14 decides).
        let (assistant, aborted) = match response {
            ModelResponse::Done(assistant) => (assistant, false),
            ModelResponse::Aborted(Some(partial)) => (partial, true),
            ModelResponse::Aborted(None) => return Err(Terminal::Aborted),
            ModelResponse::Failed { error, .. } => {
                if self.cancel.is_cancelled() {
                    return Err(Terminal::Aborted);
                }
                if !recovery::is_withheld_prompt_too_long(&error) {
                    return Err(Terminal::ModelError(error));
                }
                return Ok(IterationEnd {
                    state,
                    needs_follow_up: false,
                    withheld: Some(Withheld::PromptTooLong(error)),
                });
            }
        };
        state.token_budget = state.token_budget.record(assistant.usage.output_tokens);
        let response_tokens = usage_total(&assistant.usage);
        let needs_follow_up = assistant.message.tool_uses().next().is_some();
        if !needs_follow_up
            && !aborted
            && recovery::is_withheld_max_output_tokens(assistant.stop_reason.as_ref())
        {
            state.last_usage = Some(UsageMark {
                tokens: response_tokens,
                messages: state.messages.len() + 1,
            });
            return Ok(IterationEnd {
                state,
                needs_follow_up: false,
                withheld: Some(Withheld::MaxOutputTokens(Box::new(assistant))),
            });
        }
        state.messages.push(assistant.message.clone());
        state.last_usage = Some(UsageMark {
            tokens: response_tokens,
            messages: state.messages.len(),
        });
        self.out.emit(LoopEvent::AssistantMessage(assistant)).await;

        // Step 13: StreamingToolExecutor.
        let (aborted, tool_ended, stops) = self
            .tool_results(executor, aborted, &mut state.messages)
            .await;
        if aborted || self.cancel.is_cancelled() {
            return Err(Terminal::Aborted);
        }
        if let Some(terminal) = tool_ended {
            return Err(terminal);
        }
        Ok(IterationEnd {
            state,
            needs_follow_up: needs_follow_up && !stops,
            withheld: None,
        })
    }

    /// Runs the tool_uses of a conversation that ends in them (a deferred
    /// call resumed) as step 13 would, so the first iteration sends their
    /// results. `Some`: how the turn ended meanwhile.
    async fn pending_tools(&self, state: &mut State) -> Option<Terminal> {
        let last = state
            .messages
            .last()
            .filter(|m| m.role == Role::Assistant)?;
        let pending: Vec<(String, String, Value)> = last
            .tool_uses()
            .map(|(id, name, input)| (id.to_owned(), name.to_owned(), input.clone()))
            .collect();
        if pending.is_empty() {
            return None;
        }
        let mut executor = StreamingToolExecutor::new(
            self.tools.clone(),
            self.tool_env.clone(),
            self.can_use_tool.clone(),
            &self.cancel,
            self.config.max_tool_concurrency,
        );
        for (id, name, input) in pending {
            executor.add_tool(&id, &name, input, None);
        }
        let (aborted, ended, _stops) = self
            .tool_results(executor, false, &mut state.messages)
            .await;
        if aborted || self.cancel.is_cancelled() {
            return Some(Terminal::Aborted);
        }
        state.transition = Some(Transition::NextTurn);
        ended
    }

    /// Steps 4-10 on `state.messages`: the tiers of `compact/` in seed 004's
    /// order, then the blocking limit (`Err` when it is reached, or on abort).
    async fn compact(&self, state: &mut State) -> Result<(), Terminal> {
        let config = &self.config;
        // Step 4: getMessagesAfterCompactBoundary — the history starts after the
        // last boundary by construction (a compaction replaces it).
        let messages_for_query = std::mem::take(&mut state.messages);
        let tokens_before = token_count_with_estimation(&messages_for_query, state.last_usage);

        // Step 5: applyToolResultBudget — applied where results are made (per
        // result in the executor, per message after step 13), so the history
        // holds no oversized result to replace here.

        // Step 6: HISTORY_SNIP.
        let SnipOutcome {
            messages: messages_for_query,
            tokens_freed: snip_tokens_freed,
            ..
        } = snip_if_needed(
            messages_for_query,
            tokens_before,
            self.context_limits
                .filter(|_| config.snip)
                .map(|l| snip_thresholds(&l)),
            SNIP_KEEP_RECENT,
        );

        // Step 7: microcompact.
        let MicrocompactOutcome {
            messages: messages_for_query,
            tokens_freed: mc_tokens_freed,
            ..
        } = match self.context_limits.filter(|_| config.microcompact) {
            Some(l) => {
                self.deps
                    .microcompact(messages_for_query, microcompact_config(&l))
                    .await
            }
            None => MicrocompactOutcome {
                messages: messages_for_query,
                results_cleared: 0,
                tokens_freed: 0,
            },
        };
        state.messages = messages_for_query;

        // Step 8: contextCollapse — not implemented; autocompact covers it.
        let mut tokens = tack_api::estimate_messages(&state.messages)
            .max(tokens_before.saturating_sub(snip_tokens_freed + mc_tokens_freed));

        // Step 9: autocompact.
        let mut compacted = false;
        if let Some(l) = self.context_limits
            && config.auto_compact
            && should_autocompact(tokens, &l, &state.auto_compact_tracking)
        {
            compacted = self.autocompact(state).await?;
            if compacted {
                tokens = tack_api::estimate_messages(&state.messages);
            }
        }

        // Step 10: Blocking limit check (only with autocompact off).
        let limit = check_blocking_limit(BlockingLimitInput {
            limits: self.context_limits,
            estimated_tokens: tokens,
            exempt: config.auto_compact || compacted,
        });
        match limit {
            BlockingLimit::Below => Ok(()),
            BlockingLimit::AtLimit { .. } => Err(Terminal::BlockingLimit),
        }
    }

    /// Step 9, once it is due: replaces `state.messages` with the summary and
    /// returns whether it did; a failure is counted by the circuit breaker
    /// (unless a hook blocked it) and yielded.
    async fn autocompact(&self, state: &mut State) -> Result<bool, Terminal> {
        let result = autocompact(
            self.deps.as_ref(),
            self.summary_settings(),
            &state.messages,
            self.stop_hooks.as_ref().map(|hooks| hooks.pre_compact()),
            &self.cancel,
        )
        .await;
        if self.cancel.is_cancelled() {
            return Err(Terminal::Aborted);
        }
        let tracking = &mut state.auto_compact_tracking;
        match result {
            Ok(event) => {
                state.messages = event.messages.iter().map(|(_, m)| m.clone()).collect();
                *tracking = tracking.after_success();
                state.last_usage = None;
                self.out.emit(LoopEvent::Compacted(event)).await;
                Ok(true)
            }
            Err(error) => {
                if !matches!(error, CompactError::BlockedByHook(_)) {
                    *tracking = tracking.after_failure();
                }
                self.out
                    .emit(LoopEvent::CompactFailed {
                        trigger: CompactTrigger::Auto,
                        consecutive_failures: tracking.consecutive_failures,
                        error: error.to_string(),
                    })
                    .await;
                Ok(false)
            }
        }
    }

    /// The model (and what follows from it: output cap, window) for this
    /// request, when the switch says it changed since the last one.
    fn switch_model(&mut self) {
        let Some(next) = self
            .model_switch
            .as_ref()
            .and_then(|s| s.switch(&self.config))
        else {
            return;
        };
        self.model = next.model.clone();
        self.context_limits = next.context_limits();
        self.config = next;
    }

    /// Step 11: the streaming model call, with tools starting as their blocks
    /// complete, inside the two retry layers: model fallback (repeated 529s)
    /// and streaming fallback (a stream dying after content).
    async fn call_model(&mut self, state: &State) -> (ModelResponse, StreamingToolExecutor) {
        self.follow_moves();
        let config = &self.config;
        let max_tokens = state
            .max_output_tokens_override
            .unwrap_or(config.max_tokens);
        let mut streaming_fallbacks = 0;
        // Deferred tools the model loaded (tool search) are sent from now on.
        if self.tools.generation() != self.tools_generation {
            self.tools_generation = self.tools.generation();
            self.tool_definitions = self.tools.definitions();
        }
        loop {
            // First let the consumer catch up (invariant 7).
            self.out.barrier().await;
            let mut request = build_request(
                &self.context,
                &state.messages,
                &RequestOptions {
                    model: &self.model,
                    max_tokens,
                    tools: &self.tool_definitions,
                    thinking: config.thinking.clone(),
                    prompt_caching: config.prompt_caching,
                },
            );
            for (key, value) in &config.request_extra {
                request
                    .extra
                    .entry(key.clone())
                    .or_insert_with(|| value.clone());
            }
            let mut executor = StreamingToolExecutor::new(
                self.tools.clone(),
                self.tool_env.clone(),
                self.can_use_tool.clone(),
                &self.cancel,
                config.max_tool_concurrency,
            );
            let fallback = model_fallback::fallback_target(config, &self.model);
            let response = stream_response(
                self.deps.as_ref(),
                request,
                &self.cancel,
                &mut executor,
                self.out,
                fallback.is_some(),
            )
            .await;
            match response {
                // Step 12's tombstone: void what was streamed, cancel its tools
                // (their synthetic results are dropped with the attempt), retry.
                ModelResponse::Failed {
                    error,
                    streamed: Some(voided),
                } if !self.cancel.is_cancelled()
                    && streaming_fallback::should_retry(&error, streaming_fallbacks) =>
                {
                    streaming_fallbacks += 1;
                    drop(executor.abort());
                    self.out
                        .emit(LoopEvent::Tombstone {
                            uuid: voided.uuid,
                            message_id: voided.id,
                        })
                        .await;
                }
                ModelResponse::Failed {
                    error,
                    streamed: None,
                } if model_fallback::is_overloaded(&error) && fallback.is_some() => {
                    let to = fallback.unwrap_or_default().to_owned();
                    self.out
                        .emit(LoopEvent::ModelFallback {
                            from: std::mem::replace(&mut self.model, to.clone()),
                            to,
                        })
                        .await;
                }
                other => return (other, executor),
            }
        }
    }

    /// Step 13: collects the remaining results in tool_use order, streaming
    /// progress meanwhile (only the synthetic ones if `aborted`), applies step
    /// 5's per-message budget, appends the results to `messages` and yields
    /// them. Returns whether the tools were aborted, and how a tool ended the
    /// turn, if one did: an end-turn tool's answer (or its spent retries), else
    /// a hook's `continue: false`.
    async fn tool_results(
        &self,
        mut executor: StreamingToolExecutor,
        mut aborted: bool,
        messages: &mut Vec<Message>,
    ) -> (bool, Option<Terminal>, bool) {
        let mut outcomes = Vec::new();
        if aborted {
            outcomes = executor.abort();
        }
        while !aborted {
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => {
                    outcomes.extend(executor.abort());
                    aborted = true;
                }
                event = executor.next_event() => match event {
                    ExecutorEvent::Progress(progress) => {
                        self.out.emit(LoopEvent::ToolProgress(progress)).await;
                    }
                    ExecutorEvent::Result(outcome) => outcomes.push(outcome),
                    ExecutorEvent::Finished => break,
                },
            }
        }
        for progress in executor.drain_progress() {
            self.out.emit(LoopEvent::ToolProgress(progress)).await;
        }
        drop(executor);

        // Step 5's per-message half (compact/tool_result_budget.rs).
        if !aborted {
            apply_message_budget(
                &mut outcomes,
                &tool_results_dir(&self.tool_env),
                &self.config.tool_result_budget,
            );
        }

        // A deferred call ends the turn with every call of the message
        // pending: none of their results is sent or kept.
        if let Some(deferred) = outcomes.iter().find(|o| o.deferred) {
            let input = messages
                .last()
                .and_then(|m| m.tool_uses().find(|(id, ..)| *id == deferred.tool_use_id))
                .map_or(Value::Null, |(.., input)| input.clone());
            let call = DeferredToolUse {
                id: deferred.tool_use_id.clone(),
                name: deferred.tool_name.clone(),
                input,
            };
            return (aborted, Some(Terminal::ToolDeferred(call)), false);
        }
        let stops = (outcomes.iter()).any(|o| o.turn_end == Some(TurnEnd::Stop));
        let tool_ended = match outcomes.iter().find_map(|o| o.turn_end.clone()) {
            Some(TurnEnd::Answer(value)) => Some(Terminal::Answered(value)),
            Some(TurnEnd::RetriesExhausted(message)) => {
                Some(Terminal::StructuredOutputRetryExhausted(message))
            }
            // Ends like a turn without tool calls: the Stop hooks decide.
            Some(TurnEnd::Stop) => None,
            None if outcomes.iter().any(|o| o.stops_turn) => Some(Terminal::HookStopped),
            None => None,
        };
        // Attachments (rules loaded by the calls' files) join the tool
        // results here, after all of them, as Claude Code's do; then what
        // arrived from outside meanwhile (a teammate's message, a Monitor's
        // line), as it came.
        if !outcomes.is_empty() {
            let attachments = outcomes.iter().flat_map(|o| &o.attachments);
            let arrived = self.tool_env.arrivals().take_soon();
            let blocks: Vec<ContentBlock> = outcomes
                .iter()
                .map(|o| o.to_block())
                .chain(attachments.map(|a| ContentBlock::text(system_reminder(a))))
                .chain(arrived.into_iter().map(|a| ContentBlock::text(a.text)))
                .collect();
            let message = Message::user(blocks);
            messages.push(message.clone());
            let results = outcomes
                .into_iter()
                .map(|o| ToolResultInfo {
                    tool_use_id: o.tool_use_id,
                    tool_name: o.tool_name,
                    is_error: o.is_error,
                    structured: o.structured,
                })
                .collect();
            self.out
                .emit(LoopEvent::ToolResults(ToolResultsEvent {
                    uuid: self.deps.new_id(),
                    message,
                    results,
                }))
                .await;
        }
        (aborted, tool_ended, stops)
    }

    /// The session moved to another folder (EnterWorktree): the system
    /// prompt and git snapshot from now on are the new folder's; the user
    /// context, already sent, stays.
    fn follow_moves(&mut self) {
        let Some(moved) = self.tool_env.prompt_place().current() else {
            return;
        };
        if moved.system_prompt != self.context.system_prompt
            || moved.system_context != self.context.system_context
        {
            self.context = Arc::new(PromptContext {
                system_prompt: moved.system_prompt.clone(),
                system_context: moved.system_context.clone(),
                user_context: self.context.user_context.clone(),
            });
        }
    }

    fn summary_settings(&self) -> SummarySettings<'_> {
        SummarySettings {
            context: &self.context,
            model: &self.model,
            prompt_caching: self.config.prompt_caching,
        }
    }

    fn decision_env(&self) -> DecisionEnv<'_> {
        DecisionEnv {
            deps: self.deps.as_ref(),
            config: &self.config,
            model: &self.model,
            summary: self.summary_settings(),
            stop_hooks: self.stop_hooks.as_deref(),
            cancel: &self.cancel,
            out: self.out,
        }
    }
}

/// Every token of the prompt and the answer, as the API counted them.
fn usage_total(usage: &Usage) -> u64 {
    usage.input_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
        + usage.output_tokens
}

enum ModelResponse {
    Done(AssistantMessageEvent),
    /// Cancelled; the blocks completed before the abort, if any.
    Aborted(Option<AssistantMessageEvent>),
    /// The request failed; `streamed` if content had been streamed already.
    Failed {
        error: ApiError,
        streamed: Option<Voided>,
    },
}

/// A response whose content was streamed before its request failed.
struct Voided {
    uuid: String,
    id: String,
}

/// The message as assembled from the stream so far.
struct Partial {
    uuid: String,
    id: String,
    model: String,
    request_id: Option<String>,
    usage: Usage,
    blocks: Vec<ContentBlock>,
    content_started: bool,
}

impl Partial {
    fn finish(
        self,
        stop_reason: Option<StopReason>,
        api_duration: Duration,
    ) -> AssistantMessageEvent {
        AssistantMessageEvent {
            uuid: self.uuid,
            message: Message::assistant(self.blocks),
            id: self.id,
            model: self.model,
            request_id: self.request_id,
            usage: self.usage,
            stop_reason,
            api_duration,
        }
    }

    fn failed(self, error: ApiError) -> ModelResponse {
        let streamed = self.content_started.then_some(Voided {
            uuid: self.uuid,
            id: self.id,
        });
        ModelResponse::Failed { error, streamed }
    }
}

/// Step 11's body: pulls the model stream, forwarding raw events and retries,
/// handing each finished tool_use block to the executor, and forwarding progress
/// of tools already running. With `fallback_available`, gives up after
/// [`model_fallback::OVERLOADED_RETRIES_BEFORE_FALLBACK`] consecutive overloaded
/// retries (returning the overloaded error).
async fn stream_response(
    deps: &dyn QueryDeps,
    request: tack_protocol::MessagesRequest,
    cancel: &CancellationToken,
    executor: &mut StreamingToolExecutor,
    out: &Emitter,
    fallback_available: bool,
) -> ModelResponse {
    let started = Instant::now();
    let mut partial = Partial {
        uuid: deps.new_id(),
        id: String::new(),
        model: request.model.clone(),
        request_id: None,
        usage: Usage::default(),
        blocks: Vec::new(),
        content_started: false,
    };
    let mut overloaded_retries = 0;
    let mut stream = deps.call_model(request, cancel.child_token());
    let aborted = |partial: Partial| {
        if partial.blocks.is_empty() {
            ModelResponse::Aborted(None)
        } else {
            ModelResponse::Aborted(Some(partial.finish(None, started.elapsed())))
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
                return partial.failed(ApiError::Connection {
                    message: "the response stream ended before the message was complete".into(),
                });
            }
            Some(Err(_)) if cancel.is_cancelled() => return aborted(partial),
            Some(Err(error)) => return partial.failed(error),
            Some(Ok(StreamEvent::Retry {
                attempt,
                max_retries,
                delay,
                error,
            })) => {
                if model_fallback::is_overloaded(&error) {
                    overloaded_retries += 1;
                } else {
                    overloaded_retries = 0;
                }
                let give_up = fallback_available
                    && overloaded_retries >= model_fallback::OVERLOADED_RETRIES_BEFORE_FALLBACK;
                out.emit(LoopEvent::Retry {
                    attempt,
                    max_retries,
                    delay,
                    error: error.clone(),
                })
                .await;
                if give_up {
                    return partial.failed(error);
                }
            }
            Some(Ok(StreamEvent::RequestId(id))) => partial.request_id = Some(id),
            Some(Ok(StreamEvent::Sse(event))) => {
                match &event {
                    SseEvent::MessageStart { message } => {
                        partial.id.clone_from(&message.id);
                        partial.model.clone_from(&message.model);
                        partial.usage = message.usage.clone();
                    }
                    SseEvent::ContentBlockStart { .. } => partial.content_started = true,
                    SseEvent::ContentBlockDelta { .. }
                    | SseEvent::ContentBlockStop { .. }
                    | SseEvent::MessageDelta { .. }
                    | SseEvent::MessageStop
                    | SseEvent::Ping
                    | SseEvent::Error { .. }
                    | SseEvent::Unknown(_) => {}
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
                partial.content_started = true;
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
                    uuid: partial.uuid,
                    message: Message::assistant(response.content),
                    id: response.id,
                    model: response.model,
                    request_id: partial.request_id,
                    usage: response.usage,
                    stop_reason: response.stop_reason,
                    api_duration: started.elapsed(),
                });
            }
        }
    }
}
