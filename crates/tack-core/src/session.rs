//! `Session`: the outer layer (QueryEngine in the seeds) around [`query`].
//!
//! # The model
//! A `Session` owns the conversation across user messages. [`Session::submit`]
//! returns a [`SessionTurn`], which the caller (CLI, SDK) drives by awaiting
//! [`SessionTurn::next`] until it returns `None`. Each call yields one
//! [`SessionEvent`]: the loop's events as they arrive, then one final
//! [`SessionEvent::Result`] carrying what stream-json's `result` record needs.
//!
//! For every message appended to the conversation (the prompt, each assistant
//! message, each tool-result message) the turn first calls the
//! [`TranscriptSink`] and awaits it, *then* yields the event. The loop does not
//! send its next model request before the consumer has asked for the event after
//! the last message, so a message the user has seen is on disk before the next
//! model call (invariant 7), with no cooperation needed from the caller.
//!
//! Usage and USD cost are accumulated per model for the whole session; the
//! `max_budget_usd` check runs after every yielded message (seed 002: "预算检查在
//! yield 之后"), and when it is exceeded the turn stops the loop, closes any
//! tool_use left without a result, and ends with
//! [`ResultSubtype::ErrorMaxBudgetUsd`].
//!
//! Dropping a `SessionTurn` cancels the loop; a tool_use left without a result is
//! answered with an "Interrupted by user" result at the next `submit`, so the
//! conversation is always valid to send.
//!
//! Model calls made for the session outside its loop (a sub-agent's, a web
//! tool's side request) are recorded in a [`UsageLedger`] given with
//! [`Session::with_usage_ledger`]; the session folds them into its totals after
//! every event of a turn (before the budget check) and before each result.
//!
//! Compaction: on `LoopEvent::Compacted` (autocompact, reactive) and in
//! [`Session::compact`] (the manual `/compact [instructions]`), the session
//! writes a [`TranscriptEntry::Compacted`] (the boundary and each post-compact
//! message) and replaces its history with them; a resumed transcript starts after the
//! last boundary. Autocompact's circuit breaker is carried across submits.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;
use tack_protocol::{ContentBlock, Message, Role, Usage};
use tack_tool::ToolEnv;
use tokio_util::sync::CancellationToken;

use crate::compact::{
    AutocompactTracking, CompactError, CompactTrigger, SummarySettings, compact_history,
};
use crate::context::PromptContext;
use crate::deps::QueryDeps;
use crate::executor::{INTERRUPTED_BY_USER, ToolSet};
use crate::permission::CanUseTool;
use crate::query::{
    AssistantMessageEvent, CompactedEvent, LoopEvent, LoopHooks, ModelSwitch, QueryConfig,
    QueryParams, QueryStream, Terminal, ToolResultInfo, ToolResultsEvent, query,
};

/// Where the session's messages are persisted (the JSONL session store).
///
/// `append` is awaited before the event that carries the message is yielded, and
/// therefore before the next model request. An error ends the turn with
/// [`ResultSubtype::ErrorDuringExecution`]: better stop than run on with a
/// transcript that cannot be resumed.
pub trait TranscriptSink: Send + Sync {
    fn append<'a>(
        &'a self,
        entry: TranscriptEntry<'a>,
    ) -> BoxFuture<'a, Result<(), TranscriptError>>;
}

/// One transcript record, borrowed from the event that carries it (so a sink
/// can write everything a resumable transcript needs: API ids, usage, the
/// tools' structured output).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TranscriptEntry<'a> {
    /// The user's prompt (a new turn).
    Prompt { uuid: &'a str, message: &'a Message },
    /// A complete assistant message.
    Assistant(&'a AssistantMessageEvent),
    /// The tool results of one iteration (also the synthetic "interrupted"
    /// results the session writes for tool calls a dropped turn left open).
    ToolResults(&'a ToolResultsEvent),
    /// A user message the loop appended itself (Claude Code's `isMeta`).
    Meta { uuid: &'a str, message: &'a Message },
    /// The message with this uuid is void (streaming fallback).
    Tombstone { uuid: &'a str },
    /// The conversation was rewound: the next record continues from `parent`
    /// (`None`: from nothing), so the chain branches there and what came
    /// after it is off the conversation (Claude Code's rewind).
    Branch { parent: Option<&'a str> },
    /// The compact boundary (Claude Code's `{"type":"system","subtype":
    /// "compact_boundary","compactMetadata":{"trigger","preTokens"}}`) and the
    /// messages after it, which are the whole conversation from then on (the
    /// first one carries the summary).
    Compacted(&'a CompactedEvent),
}

impl<'a> TranscriptEntry<'a> {
    /// The conversation message this entry appends, with its uuid, if any.
    pub fn message(&self) -> Option<(&'a str, &'a Message)> {
        match *self {
            TranscriptEntry::Prompt { uuid, message } | TranscriptEntry::Meta { uuid, message } => {
                Some((uuid, message))
            }
            TranscriptEntry::Assistant(a) => Some((&a.uuid, &a.message)),
            TranscriptEntry::ToolResults(r) => Some((&r.uuid, &r.message)),
            TranscriptEntry::Tombstone { .. }
            | TranscriptEntry::Branch { .. }
            | TranscriptEntry::Compacted(_) => None,
        }
    }
}

/// A manual `/compact` failed; the history is unchanged (unless the transcript
/// failed half-way, which ends nothing but is reported).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionCompactError {
    #[error(transparent)]
    Compact(#[from] CompactError),
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
}

/// The transcript could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("could not write the session transcript: {message}")]
pub struct TranscriptError {
    pub message: String,
}

impl From<std::io::Error> for TranscriptError {
    fn from(e: std::io::Error) -> Self {
        TranscriptError {
            message: e.to_string(),
        }
    }
}

/// Everything a session is built from. The CLI assembles it from flags and config.
pub struct SessionParts {
    pub session_id: String,
    pub context: Arc<PromptContext>,
    pub tools: ToolSet,
    pub tool_env: Arc<ToolEnv>,
    pub can_use_tool: Arc<dyn CanUseTool>,
    pub deps: Arc<dyn QueryDeps>,
    pub config: QueryConfig,
    /// `--max-budget-usd`.
    pub max_budget_usd: Option<f64>,
    pub transcript: Option<Arc<dyn TranscriptSink>>,
}

/// Per-model totals (`modelUsage` in stream-json's result record).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub web_search_requests: u64,
    pub cost_usd: f64,
    /// False if any response came from a model missing from the price table.
    pub cost_known: bool,
}

/// Session-wide totals.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SessionTotals {
    pub usage: Usage,
    pub model_usage: BTreeMap<String, ModelUsage>,
    pub total_cost_usd: f64,
    /// Sum of model request durations.
    pub api_duration: Duration,
}

impl SessionTotals {
    fn add(&mut self, model: &str, usage: &Usage, api_duration: Duration) {
        let cost = tack_api::cost(model, usage);
        self.usage += usage;
        self.total_cost_usd += cost.usd;
        self.api_duration += api_duration;
        let entry = self
            .model_usage
            .entry(model.to_owned())
            .or_insert_with(|| ModelUsage {
                cost_known: true,
                ..ModelUsage::default()
            });
        entry.input_tokens += usage.input_tokens;
        entry.output_tokens += usage.output_tokens;
        entry.cache_read_input_tokens += usage.cache_read_input_tokens;
        entry.cache_creation_input_tokens += usage.cache_creation_input_tokens;
        entry.web_search_requests += usage.server_tool_use.map_or(0, |s| s.web_search_requests);
        entry.cost_usd += cost.usd;
        entry.cost_known &= cost.known;
    }
}

/// Model calls made on a session's behalf outside its own loop: sub-agents,
/// the web tools' side requests. Whoever makes one records it; the session
/// adds what was recorded to its totals (see the module docs). Cheap to clone;
/// clones share the ledger.
#[derive(Debug, Clone, Default)]
pub struct UsageLedger(Arc<Mutex<Vec<SideCall>>>);

#[derive(Debug, Clone, PartialEq)]
struct SideCall {
    model: String,
    usage: Usage,
    api_duration: Duration,
}

impl UsageLedger {
    /// One model response's usage, priced for `model`.
    pub fn record(&self, model: &str, usage: &Usage, api_duration: Duration) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(SideCall {
                model: model.to_owned(),
                usage: usage.clone(),
                api_duration,
            });
    }

    fn take(&self) -> Vec<SideCall> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// `result.subtype` in stream-json.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultSubtype {
    Success,
    ErrorMaxTurns,
    ErrorDuringExecution,
    ErrorMaxBudgetUsd,
    ErrorMaxStructuredOutputRetries,
}

impl ResultSubtype {
    pub fn as_str(self) -> &'static str {
        match self {
            ResultSubtype::Success => "success",
            ResultSubtype::ErrorMaxTurns => "error_max_turns",
            ResultSubtype::ErrorDuringExecution => "error_during_execution",
            ResultSubtype::ErrorMaxBudgetUsd => "error_max_budget_usd",
            ResultSubtype::ErrorMaxStructuredOutputRetries => "error_max_structured_output_retries",
        }
    }

    fn for_terminal(terminal: &Terminal) -> Self {
        match terminal {
            // Claude Code ends a refused request as a "success" whose
            // `is_error` is set and whose `result` is the error.
            Terminal::Completed
            | Terminal::Answered(_)
            | Terminal::StopHookPrevented
            | Terminal::HookStopped
            | Terminal::ToolDeferred(_)
            | Terminal::ModelError(_) => ResultSubtype::Success,
            Terminal::MaxTurns { .. } => ResultSubtype::ErrorMaxTurns,
            Terminal::Aborted | Terminal::BlockingLimit | Terminal::PromptTooLong(_) => {
                ResultSubtype::ErrorDuringExecution
            }
            Terminal::StructuredOutputRetryExhausted(_) => {
                ResultSubtype::ErrorMaxStructuredOutputRetries
            }
        }
    }
}

/// The end of one `submit`: what stream-json's `result` record needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionResult {
    pub subtype: ResultSubtype,
    pub is_error: bool,
    /// How the loop ended; `None` if the session stopped it (budget, transcript error).
    pub terminal: Option<Terminal>,
    /// The text of the last assistant message of this turn.
    pub result: String,
    /// Human-readable errors (model error, transcript error, budget).
    pub errors: Vec<String>,
    /// Wall time of this submit (`duration_ms`).
    pub duration: Duration,
    /// Model request time of this submit (`duration_api_ms`).
    pub duration_api: Duration,
    /// Model round-trips of this submit.
    pub num_turns: u32,
    /// Session totals so far.
    pub total_cost_usd: f64,
    pub usage: Usage,
    pub model_usage: BTreeMap<String, ModelUsage>,
    pub session_id: String,
}

impl SessionResult {
    /// The answer an end-turn tool gave (`--json-schema`'s `structured_output`).
    pub fn structured_output(&self) -> Option<&serde_json::Value> {
        if let Some(Terminal::Answered(value)) = &self.terminal {
            Some(value)
        } else {
            None
        }
    }
}

/// What [`SessionTurn::next`] yields.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    Loop(LoopEvent),
    /// Always the last event of a turn.
    Result(SessionResult),
}

/// One agent session; see the module docs.
pub struct Session {
    parts: SessionParts,
    messages: Vec<Message>,
    /// The uuid of each message, same indices.
    uuids: Vec<String>,
    /// The uuids of the user's prompts (what a rewind can go back to).
    prompts: HashSet<String>,
    totals: SessionTotals,
    stop_hooks: Option<Arc<dyn LoopHooks>>,
    model_switch: Option<Arc<dyn ModelSwitch>>,
    compact_tracking: AutocompactTracking,
    ledger: Option<UsageLedger>,
}

impl Session {
    pub fn new(parts: SessionParts) -> Self {
        Session {
            parts,
            messages: Vec::new(),
            uuids: Vec::new(),
            prompts: HashSet::new(),
            totals: SessionTotals::default(),
            stop_hooks: None,
            model_switch: None,
            compact_tracking: AutocompactTracking::default(),
            ledger: None,
        }
    }

    /// Adds the model calls recorded in `ledger` (sub-agents, side requests)
    /// to this session's totals, cost and budget.
    pub fn with_usage_ledger(mut self, ledger: UsageLedger) -> Self {
        self.ledger = Some(ledger);
        self
    }

    /// Folds the side calls recorded so far into the totals.
    fn absorb_side_calls(&mut self) {
        if let Some(ledger) = &self.ledger {
            for call in ledger.take() {
                self.totals.add(&call.model, &call.usage, call.api_duration);
            }
        }
    }

    /// Runs `hooks` when the model finishes a turn (the Stop hook seam).
    pub fn with_stop_hooks(mut self, hooks: Arc<dyn LoopHooks>) -> Self {
        self.stop_hooks = Some(hooks);
        self
    }

    /// Asks `switch` before each request of the next turns whether its
    /// model changes (`opusplan` leaving plan mode mid-turn); `None`: never.
    pub fn set_model_switch(&mut self, switch: Option<Arc<dyn ModelSwitch>>) {
        self.model_switch = switch;
    }

    /// Autocompact's circuit breaker state for the session.
    pub fn compact_tracking(&self) -> AutocompactTracking {
        self.compact_tracking
    }

    /// The manual `/compact [instructions]`: summarises the conversation with one
    /// model call (same summarisation as autocompact, `instructions` appended to
    /// the prompt), persists the boundary and the new messages, and replaces the
    /// history. The returned event is what a consumer shows (the CLI writes it
    /// like `LoopEvent::Compacted`).
    pub async fn compact(
        &mut self,
        instructions: Option<String>,
        cancel: CancellationToken,
    ) -> Result<CompactedEvent, SessionCompactError> {
        self.close_dangling_tool_uses().await?;
        let config = &self.parts.config;
        let event = compact_history(
            self.parts.deps.as_ref(),
            SummarySettings {
                context: &self.parts.context,
                model: &config.model,
                prompt_caching: config.prompt_caching,
            },
            &self.messages,
            instructions.as_deref(),
            CompactTrigger::Manual,
            &cancel,
        )
        .await?;
        self.apply_compaction(&event).await?;
        Ok(event)
    }

    async fn apply_compaction(&mut self, event: &CompactedEvent) -> Result<(), TranscriptError> {
        match event.trigger {
            CompactTrigger::Auto => self.compact_tracking = self.compact_tracking.after_success(),
            CompactTrigger::Manual | CompactTrigger::Reactive => {}
        }
        if let Some(sink) = &self.parts.transcript {
            sink.append(TranscriptEntry::Compacted(event)).await?;
        }
        (self.uuids, self.messages) = event.messages.iter().cloned().unzip();
        Ok(())
    }

    /// Starts from a resumed conversation (uuid, message), oldest first. Its
    /// user messages that carry no tool result count as prompts.
    pub fn with_history(mut self, history: Vec<(String, Message)>) -> Self {
        (self.uuids, self.messages) = history.into_iter().unzip();
        self.prompts = self
            .uuids
            .iter()
            .zip(&self.messages)
            .filter(|(_, m)| {
                m.role == Role::User
                    && !m.text().starts_with(crate::compact::COMPACT_SUMMARY_PREFIX)
                    && !m
                        .content
                        .iter()
                        .any(|b| matches!(b, ContentBlock::ToolResult { .. }))
            })
            .map(|(uuid, _)| uuid.clone())
            .collect();
        self
    }

    /// The user's prompts still in the conversation (uuid, message), oldest
    /// first: where [`Session::rewind_to`] can go back to.
    pub fn prompts(&self) -> impl Iterator<Item = (&str, &Message)> {
        self.uuids
            .iter()
            .zip(&self.messages)
            .filter(|(uuid, _)| self.prompts.contains(*uuid))
            .map(|(uuid, message)| (uuid.as_str(), message))
    }

    /// Drops the prompt `uuid` and everything after it from the conversation
    /// (Claude Code's "restore conversation"): the transcript goes on from the
    /// record before it ([`TranscriptEntry::Branch`]), so a resume shows the
    /// rewound conversation once the next message is written. Returns the
    /// dropped prompt; `None` (nothing changed) if `uuid` is no prompt of it.
    pub async fn rewind_to(&mut self, uuid: &str) -> Result<Option<Message>, TranscriptError> {
        let Some(at) = self
            .uuids
            .iter()
            .position(|u| u == uuid && self.prompts.contains(u))
        else {
            return Ok(None);
        };
        let parent = at.checked_sub(1).map(|i| self.uuids[i].as_str());
        if let Some(sink) = &self.parts.transcript {
            sink.append(TranscriptEntry::Branch { parent }).await?;
        }
        for dropped in self.uuids.drain(at..) {
            self.prompts.remove(&dropped);
        }
        Ok(self.messages.drain(at..).next())
    }

    pub fn session_id(&self) -> &str {
        &self.parts.session_id
    }

    /// Starts a new conversation in this session (`/clear`): no messages, the
    /// id `session_id`, what comes next persisted to `transcript`, totals
    /// (cost, usage) from zero, as Claude Code's results after a reset report.
    pub fn clear(&mut self, session_id: String, transcript: Option<Arc<dyn TranscriptSink>>) {
        self.parts.session_id = session_id;
        self.parts.transcript = transcript;
        self.messages.clear();
        self.uuids.clear();
        self.prompts.clear();
        self.totals = SessionTotals::default();
        self.compact_tracking = AutocompactTracking::default();
    }

    /// The request settings of the next turn (model, limits, ...).
    pub fn config(&self) -> &QueryConfig {
        &self.parts.config
    }

    /// Replaces the tools from the next turn on (an MCP server's list changed).
    pub fn set_tools(&mut self, tools: ToolSet) {
        self.parts.tools = tools;
    }

    /// The session-wide tool state (cwd, session dir, read records).
    pub fn tool_env(&self) -> &Arc<ToolEnv> {
        &self.parts.tool_env
    }

    /// The tools of the next turn.
    pub fn tools(&self) -> &ToolSet {
        &self.parts.tools
    }

    /// Changes the request settings from the next turn on (`set_model`).
    pub fn set_config(&mut self, config: QueryConfig) {
        self.parts.config = config;
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn totals(&self) -> &SessionTotals {
        &self.totals
    }

    /// Sends `prompt` (a user message) and runs the loop until it ends; drive the
    /// returned turn with [`SessionTurn::next`]. `cancel` is the user's abort.
    pub fn submit(&mut self, prompt: Message, cancel: CancellationToken) -> SessionTurn<'_> {
        self.turn(Some(prompt), cancel)
    }

    /// The conversation ends in tool_uses that never got results: a resumed
    /// session whose last turn deferred a call (`Terminal::ToolDeferred`).
    pub fn has_pending_tools(&self) -> bool {
        self.messages
            .last()
            .is_some_and(|m| m.role == Role::Assistant && m.tool_uses().next().is_some())
    }

    /// Runs the pending tool_uses ([`Session::has_pending_tools`]) and goes
    /// on from their results as a turn, with no new user message.
    pub fn resume_pending(&mut self, cancel: CancellationToken) -> SessionTurn<'_> {
        self.turn(None, cancel)
    }

    fn turn(&mut self, prompt: Option<Message>, cancel: CancellationToken) -> SessionTurn<'_> {
        SessionTurn {
            session: self,
            pending_tools: prompt.is_none(),
            prompt,
            stream: None,
            cancel,
            started: Instant::now(),
            api_duration: Duration::ZERO,
            num_turns: 0,
            last_text: String::new(),
            budget_exceeded: false,
            pending: None,
            done: false,
        }
    }

    /// Appends a user message to the conversation without running a turn (the
    /// Agent SDKs' `shouldQuery: false`): persisted like a prompt, sent with
    /// the next turn's request. Returns its uuid.
    pub async fn append_user(&mut self, message: Message) -> Result<String, TranscriptError> {
        self.close_dangling_tool_uses().await?;
        let uuid = self.parts.deps.new_id();
        self.record(TranscriptEntry::Prompt {
            uuid: &uuid,
            message: &message,
        })
        .await?;
        Ok(uuid)
    }

    /// Persists `entry`, then appends its message to the history.
    async fn record(&mut self, entry: TranscriptEntry<'_>) -> Result<(), TranscriptError> {
        if let Some(sink) = &self.parts.transcript {
            sink.append(entry).await?;
        }
        if let TranscriptEntry::Prompt { uuid, .. } = entry {
            self.prompts.insert(uuid.to_owned());
        }
        if let Some((uuid, message)) = entry.message() {
            self.messages.push(message.clone());
            self.uuids.push(uuid.to_owned());
        }
        Ok(())
    }

    /// Drops a voided message. One the loop never yielded (a partial response)
    /// is in neither history nor transcript: nothing to do.
    async fn tombstone(&mut self, uuid: &str) -> Result<(), TranscriptError> {
        let Some(i) = self.uuids.iter().position(|u| u == uuid) else {
            return Ok(());
        };
        self.uuids.remove(i);
        self.messages.remove(i);
        match &self.parts.transcript {
            Some(sink) => sink.append(TranscriptEntry::Tombstone { uuid }).await,
            None => Ok(()),
        }
    }

    /// Answers the tool_uses of the last message if it is an assistant message
    /// whose results never came (turn dropped or stopped mid-tool).
    async fn close_dangling_tool_uses(
        &mut self,
    ) -> Result<Option<ToolResultsEvent>, TranscriptError> {
        let Some(last) = self.messages.last() else {
            return Ok(None);
        };
        if last.role != Role::Assistant {
            return Ok(None);
        }
        let results: Vec<ToolResultInfo> = last
            .tool_uses()
            .map(|(id, name, _)| ToolResultInfo {
                tool_use_id: id.to_owned(),
                tool_name: name.to_owned(),
                is_error: true,
                structured: None,
            })
            .collect();
        if results.is_empty() {
            return Ok(None);
        }
        let blocks = results
            .iter()
            .map(|r| ContentBlock::tool_result(r.tool_use_id.clone(), INTERRUPTED_BY_USER, true))
            .collect();
        let event = ToolResultsEvent {
            uuid: self.parts.deps.new_id(),
            message: Message::user(blocks),
            results,
        };
        self.record(TranscriptEntry::ToolResults(&event)).await?;
        Ok(Some(event))
    }

    fn query_params(&self, cancel: CancellationToken) -> QueryParams {
        QueryParams {
            messages: self.messages.clone(),
            context: self.parts.context.clone(),
            tools: self.parts.tools.clone(),
            tool_env: self.parts.tool_env.clone(),
            can_use_tool: self.parts.can_use_tool.clone(),
            deps: self.parts.deps.clone(),
            config: self.parts.config.clone(),
            cancel,
            stop_hooks: self.stop_hooks.clone(),
            autocompact_tracking: self.compact_tracking,
            model_switch: self.model_switch.clone(),
        }
    }

    fn over_budget(&self) -> bool {
        self.parts
            .max_budget_usd
            .is_some_and(|max| self.totals.total_cost_usd >= max)
    }
}

/// One `submit` in progress; see the module docs.
pub struct SessionTurn<'s> {
    session: &'s mut Session,
    /// Persisted, then the loop starts, on the first `next`.
    prompt: Option<Message>,
    /// No prompt: the loop starts on the conversation's pending tool_uses.
    pending_tools: bool,
    stream: Option<QueryStream>,
    cancel: CancellationToken,
    started: Instant,
    api_duration: Duration,
    num_turns: u32,
    last_text: String,
    budget_exceeded: bool,
    /// The result to yield after a final synthetic event.
    pending: Option<SessionResult>,
    done: bool,
}

impl SessionTurn<'_> {
    /// The next event; `None` after the `Result`.
    pub async fn next(&mut self) -> Option<SessionEvent> {
        if self.done {
            return None;
        }
        if let Some(result) = self.pending.take() {
            self.done = true;
            return Some(SessionEvent::Result(result));
        }
        if let Some(prompt) = self.prompt.take() {
            let started = self.start(prompt).await;
            if let Err(e) = started {
                return Some(self.finish(None, vec![e.to_string()]));
            }
        }
        if std::mem::take(&mut self.pending_tools) && self.session.has_pending_tools() {
            self.stream = Some(query(self.session.query_params(self.cancel.clone())));
        }
        if self.budget_exceeded {
            return Some(self.stop_over_budget().await);
        }
        let Some(stream) = self.stream.as_mut() else {
            return Some(self.finish(None, vec!["the loop was not started".into()]));
        };
        let Some(event) = stream.next().await else {
            return Some(self.finish(None, vec!["the agent loop ended without a result".into()]));
        };
        let recorded = match &event {
            LoopEvent::AssistantMessage(a) => {
                self.session.totals.add(&a.model, &a.usage, a.api_duration);
                self.api_duration += a.api_duration;
                self.num_turns += 1;
                self.last_text = a.message.text();
                self.session.record(TranscriptEntry::Assistant(a)).await
            }
            LoopEvent::ToolResults(r) => self.session.record(TranscriptEntry::ToolResults(r)).await,
            LoopEvent::MetaMessage { uuid, message } => {
                self.session
                    .record(TranscriptEntry::Meta { uuid, message })
                    .await
            }
            LoopEvent::Tombstone { uuid, .. } => self.session.tombstone(uuid).await,
            LoopEvent::Compacted(compacted) => self.session.apply_compaction(compacted).await,
            LoopEvent::CompactFailed {
                consecutive_failures,
                ..
            } => {
                self.session.compact_tracking.consecutive_failures = *consecutive_failures;
                Ok(())
            }
            LoopEvent::Terminal(terminal) => {
                let terminal = terminal.clone();
                let errors = terminal.error_message().into_iter().collect();
                return Some(self.finish(Some(terminal), errors));
            }
            LoopEvent::RequestStart { .. }
            | LoopEvent::Stream(_)
            | LoopEvent::Retry { .. }
            | LoopEvent::ModelFallback { .. }
            | LoopEvent::ToolProgress(_) => Ok(()),
        };
        if let Err(e) = recorded {
            return Some(self.finish(None, vec![e.to_string()]));
        }
        // The budget check runs after every yielded message, sub-agents' and
        // side requests' spending included.
        if matches!(
            event,
            LoopEvent::AssistantMessage(_)
                | LoopEvent::ToolResults(_)
                | LoopEvent::MetaMessage { .. }
        ) {
            self.session.absorb_side_calls();
        }
        self.budget_exceeded = self.session.over_budget();
        Some(SessionEvent::Loop(event))
    }

    async fn start(&mut self, prompt: Message) -> Result<(), TranscriptError> {
        self.session.close_dangling_tool_uses().await?;
        let uuid = self.session.parts.deps.new_id();
        self.session
            .record(TranscriptEntry::Prompt {
                uuid: &uuid,
                message: &prompt,
            })
            .await?;
        self.stream = Some(query(self.session.query_params(self.cancel.clone())));
        Ok(())
    }

    async fn stop_over_budget(&mut self) -> SessionEvent {
        self.stream = None; // cancels the loop and its tools
        let max = self.session.parts.max_budget_usd.unwrap_or_default();
        let errors = vec![format!("Reached maximum budget (${max})")];
        match self.session.close_dangling_tool_uses().await {
            Ok(Some(results)) => {
                let SessionEvent::Result(result) = self.finish(None, errors) else {
                    unreachable!("finish returns a result")
                };
                self.done = false;
                self.pending = Some(result);
                SessionEvent::Loop(LoopEvent::ToolResults(results))
            }
            Ok(None) => self.finish(None, errors),
            Err(e) => self.finish(None, vec![e.to_string()]),
        }
    }

    fn finish(&mut self, terminal: Option<Terminal>, errors: Vec<String>) -> SessionEvent {
        self.stream = None;
        self.done = true;
        let subtype = match &terminal {
            Some(t) => ResultSubtype::for_terminal(t),
            None if self.budget_exceeded => ResultSubtype::ErrorMaxBudgetUsd,
            None => ResultSubtype::ErrorDuringExecution,
        };
        self.session.absorb_side_calls();
        let result = match &terminal {
            Some(Terminal::ModelError(e)) => {
                Terminal::api_error_text(e, &self.session.parts.config.model)
            }
            Some(_) | None => self.last_text.clone(),
        };
        let is_error =
            subtype != ResultSubtype::Success || matches!(terminal, Some(Terminal::ModelError(_)));
        let totals = &self.session.totals;
        SessionEvent::Result(SessionResult {
            subtype,
            is_error,
            terminal,
            result,
            errors,
            duration: self.started.elapsed(),
            duration_api: self.api_duration,
            num_turns: self.num_turns,
            total_cost_usd: totals.total_cost_usd,
            usage: totals.usage.clone(),
            model_usage: totals.model_usage.clone(),
            session_id: self.session.parts.session_id.clone(),
        })
    }
}
