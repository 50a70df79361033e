//! The streaming tool executor: tools start while the model is still streaming.
//!
//! # The model
//! The loop owns one [`StreamingToolExecutor`] per iteration and pushes each
//! `tool_use` block into it with [`StreamingToolExecutor::add_tool`] the moment the
//! block finishes streaming (`content_block_stop`), while the rest of the response
//! is still arriving. Each call runs in its own tokio task:
//!
//! 1. *gate* — a concurrency-safe call (per [`Tool::is_concurrency_safe`] for its
//!    input) waits only for the last unsafe call before it; an unsafe call waits
//!    for every call before it. Later calls wait for an unsafe one, so unsafe calls
//!    run alone and in order, and safe calls between them run in parallel;
//! 2. `validate` (after the gate: an Edit may depend on the Read before it);
//! 3. the `can_use_tool` permission check (deny → `is_error` result);
//! 4. a permit from the shared semaphore (safe calls only; default 10 at once);
//! 5. `call`, with a child cancellation token and a progress sink;
//! 6. after the call, [`CanUseTool::post_tool_use`] (PostToolUse hooks, or
//!    PostToolUseFailure hooks for an `is_error` result); their feedback is
//!    appended to the result text.
//!
//! Results are taken with [`StreamingToolExecutor::next_result`] strictly in
//! tool_use order. Nothing a tool does fails the loop: an error, a panic, an
//! unknown tool name, unparsable or schema-invalid input each become an
//! `is_error` tool_result telling the model what was wrong.
//!
//! Cancellation: the executor's token is a child of the query's. On
//! [`StreamingToolExecutor::abort`] (or drop) it fires, every task is aborted, and
//! each call without a result gets a synthetic `is_error` result, so every tool_use
//! has exactly one tool_result (invariant 1).

mod tool_set;

pub use crate::outcome::ToolCallOutcome;
pub use tool_set::{DeferredTools, ToolSet};

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::FutureExt;
use serde_json::Value;
use tack_api::ToolInputError;
use tack_tool::budget::apply_result_budget;
use tack_tool::{ProgressSink, Tool, ToolContext, ToolEnv, ToolError, ToolProgress};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::permission::{CanUseTool, PermissionDecision};

/// Default limit on concurrency-safe calls running at once.
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;

/// The tool_result content given to calls that had no result when the user aborted.
pub const INTERRUPTED_BY_USER: &str = "Interrupted by user";

/// A task handle that aborts the task when dropped, so no tool (and no loop) outlives
/// its owner.
pub(crate) struct AbortOnDrop<T>(pub(crate) JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

enum CallState {
    Running(AbortOnDrop<ToolCallOutcome>),
    /// Boxed: an outcome carries JSON maps (insertion-ordered since
    /// serde_json's `preserve_order`, and larger), a running call a handle.
    Done(Box<ToolCallOutcome>),
    Taken,
}

struct Call {
    tool_use_id: String,
    tool_name: String,
    state: CallState,
}

/// Fires when a call's task ends in any way (return, panic, abort): the cancellation
/// token's drop guard lives in the task.
type DoneLatch = CancellationToken;

/// Runs the tool calls of one assistant message; see the module docs.
pub struct StreamingToolExecutor {
    tools: ToolSet,
    env: Arc<ToolEnv>,
    can_use_tool: Arc<dyn CanUseTool>,
    cancel: CancellationToken,
    semaphore: Arc<Semaphore>,
    calls: Vec<Call>,
    /// Index of the next result to hand out.
    next: usize,
    /// Done latches of the last unsafe call and of the safe calls added since.
    last_unsafe: Option<DoneLatch>,
    safe_since_unsafe: Vec<DoneLatch>,
    progress_tx: mpsc::UnboundedSender<ToolProgress>,
    progress_rx: mpsc::UnboundedReceiver<ToolProgress>,
}

impl StreamingToolExecutor {
    /// `cancel` is the query's token; the executor works with a child of it.
    pub fn new(
        tools: ToolSet,
        env: Arc<ToolEnv>,
        can_use_tool: Arc<dyn CanUseTool>,
        cancel: &CancellationToken,
        max_concurrency: usize,
    ) -> Self {
        let (progress_tx, progress_rx) = mpsc::unbounded_channel();
        StreamingToolExecutor {
            tools,
            env,
            can_use_tool,
            cancel: cancel.child_token(),
            semaphore: Arc::new(Semaphore::new(max_concurrency.max(1))),
            calls: Vec::new(),
            next: 0,
            last_unsafe: None,
            safe_since_unsafe: Vec::new(),
            progress_tx,
            progress_rx,
        }
    }

    /// True if no call was added.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// True if a call with this tool_use id was added.
    pub fn has_call(&self, tool_use_id: &str) -> bool {
        self.calls.iter().any(|c| c.tool_use_id == tool_use_id)
    }

    /// Schedules a finished `tool_use` block. `input_error` is the client's report
    /// that the streamed input was not valid JSON: the call is answered with an
    /// error and never run. Must be called from within a tokio runtime.
    pub fn add_tool(
        &mut self,
        tool_use_id: &str,
        name: &str,
        input: Value,
        input_error: Option<&ToolInputError>,
    ) {
        let done = |text: String| {
            CallState::Done(Box::new(ToolCallOutcome::error(tool_use_id, name, text)))
        };
        let state = if let Some(err) = input_error {
            done(
                ToolError::new(format!(
                    "InputValidationError: the input of {name} was not valid JSON ({}). \
                     Call the tool again with a complete JSON object. Received: {}",
                    err.message,
                    capped_echo(&err.raw)
                ))
                .to_tool_result_text(),
            )
        } else if let Some(tool) = self.tools.find(name) {
            CallState::Running(self.spawn(tool, tool_use_id, input))
        } else {
            done(
                ToolError::new(format!("Error: No such tool available: {name}"))
                    .to_tool_result_text(),
            )
        };
        self.calls.push(Call {
            tool_use_id: tool_use_id.to_owned(),
            tool_name: name.to_owned(),
            state,
        });
    }

    fn spawn(
        &mut self,
        tool: Arc<dyn Tool>,
        tool_use_id: &str,
        input: Value,
    ) -> AbortOnDrop<ToolCallOutcome> {
        let safe = tool.is_concurrency_safe(&input);
        let done = DoneLatch::new();
        let gate: Vec<DoneLatch> = if safe {
            self.safe_since_unsafe.push(done.clone());
            self.last_unsafe.iter().cloned().collect()
        } else {
            let mut gate: Vec<DoneLatch> = std::mem::take(&mut self.safe_since_unsafe);
            gate.extend(self.last_unsafe.replace(done.clone()));
            gate
        };
        let ctx = ToolContext {
            tool_use_id: tool_use_id.to_owned(),
            env: self.env.clone(),
            cancel: self.cancel.child_token(),
            progress: ProgressSink::new(tool_use_id.to_owned(), self.progress_tx.clone()),
        };
        let semaphore = safe.then(|| self.semaphore.clone());
        let can_use_tool = self.can_use_tool.clone();
        let done_guard = done.drop_guard();
        AbortOnDrop(tokio::spawn(async move {
            let _done = done_guard;
            for latch in gate {
                latch.cancelled().await;
            }
            run_call(tool.as_ref(), input, &ctx, can_use_tool.as_ref(), semaphore).await
        }))
    }

    /// The next progress report of any running call. Never resolves to `None`
    /// while the executor exists (it holds a sender), so it is safe in `select!`.
    pub async fn next_progress(&mut self) -> Option<ToolProgress> {
        self.progress_rx.recv().await
    }

    /// Progress already reported and not yet taken.
    pub fn drain_progress(&mut self) -> Vec<ToolProgress> {
        let mut out = Vec::new();
        while let Ok(p) = self.progress_rx.try_recv() {
            out.push(p);
        }
        out
    }

    /// The result of the next call in tool_use order, waiting for it to finish;
    /// `None` when every result has been taken. Cancel-safe.
    pub async fn next_result(&mut self) -> Option<ToolCallOutcome> {
        take_next(&mut self.calls, &mut self.next).await
    }

    /// Whichever comes first: a progress report of any call, or the result of the
    /// next call in tool_use order. Cancel-safe.
    pub async fn next_event(&mut self) -> ExecutorEvent {
        tokio::select! {
            biased;
            Some(progress) = self.progress_rx.recv() => ExecutorEvent::Progress(progress),
            result = take_next(&mut self.calls, &mut self.next) => match result {
                Some(outcome) => ExecutorEvent::Result(outcome),
                None => ExecutorEvent::Finished,
            },
        }
    }

    /// Cancels every call and returns the results not yet taken, in tool_use order:
    /// real ones for calls that had already finished, `is_error` "Interrupted by
    /// user" for the rest.
    pub fn abort(&mut self) -> Vec<ToolCallOutcome> {
        self.cancel.cancel();
        let mut out = Vec::new();
        for call in &mut self.calls[self.next..] {
            let state = std::mem::replace(&mut call.state, CallState::Taken);
            let outcome = match state {
                CallState::Running(mut handle) => match (&mut handle).now_or_never() {
                    Some(joined) => joined_outcome(&call.tool_use_id, &call.tool_name, joined),
                    None => ToolCallOutcome::error(
                        &call.tool_use_id,
                        &call.tool_name,
                        INTERRUPTED_BY_USER.to_owned(),
                    ),
                },
                CallState::Done(outcome) => *outcome,
                CallState::Taken => unreachable!("results after `next` are not taken"),
            };
            out.push(outcome);
        }
        self.next = self.calls.len();
        out
    }
}

impl Drop for StreamingToolExecutor {
    fn drop(&mut self) {
        // The tasks are aborted by their handles; the token tells tools that spawned
        // work of their own (child processes) to stop it.
        self.cancel.cancel();
    }
}

/// What [`StreamingToolExecutor::next_event`] returns.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecutorEvent {
    Progress(ToolProgress),
    /// The next result in tool_use order.
    Result(ToolCallOutcome),
    /// Every result has been taken (progress may still be pending: drain it).
    Finished,
}

async fn take_next(calls: &mut [Call], next: &mut usize) -> Option<ToolCallOutcome> {
    let call = calls.get_mut(*next)?;
    let outcome = match &mut call.state {
        CallState::Running(handle) => {
            let joined = handle.await;
            joined_outcome(&call.tool_use_id, &call.tool_name, joined)
        }
        CallState::Done(outcome) => (**outcome).clone(),
        CallState::Taken => unreachable!("results before `next` are taken"),
    };
    call.state = CallState::Taken;
    *next += 1;
    Some(outcome)
}

/// Where oversized tool results of the session are stored.
pub fn tool_results_dir(env: &ToolEnv) -> std::path::PathBuf {
    env.session_dir().join("tool-results")
}

async fn run_call(
    tool: &dyn Tool,
    input: Value,
    ctx: &ToolContext,
    can_use_tool: &dyn CanUseTool,
    semaphore: Option<Arc<Semaphore>>,
) -> ToolCallOutcome {
    let id = ctx.tool_use_id.as_str();
    let name = tool.name();
    let fail = |e: ToolError| ToolCallOutcome::error(id, name, e.to_tool_result_text());
    if let Err(e) = tool.validate(&input, ctx) {
        return fail(e);
    }
    let input = match can_use_tool.check(tool, &input, ctx).await {
        PermissionDecision::Allow => input,
        PermissionDecision::Deny { message } => return ToolCallOutcome::error(id, name, message),
        PermissionDecision::Stop { message } => {
            return ToolCallOutcome {
                stops_turn: true,
                ..ToolCallOutcome::error(id, name, message)
            };
        }
        PermissionDecision::Defer => {
            return ToolCallOutcome {
                deferred: true,
                ..ToolCallOutcome::error(id, name, "Deferred".to_owned())
            };
        }
        PermissionDecision::AllowWithInput(edited) => {
            if let Err(e) = tool.validate(&edited, ctx) {
                return fail(e);
            }
            edited
        }
    };
    let _permit = match &semaphore {
        Some(s) => Some(
            s.acquire()
                .await
                .expect("the executor never closes its semaphore"),
        ),
        None => None,
    };
    let mut outcome = match tool.call(input.clone(), ctx).await {
        // Step 5's per-result half: an oversized result goes to disk now, once.
        Ok(out) => match tool.max_result_chars() {
            Some(max) => {
                let dir = tool_results_dir(&ctx.env);
                ToolCallOutcome::output(id, name, apply_result_budget(id, out, &dir, max))
            }
            None => ToolCallOutcome {
                budget_exempt: true,
                ..ToolCallOutcome::output(id, name, out)
            },
        },
        Err(e) => fail(e),
    };
    let post = can_use_tool
        .post_tool_use(tool, &input, &outcome, ctx)
        .await;
    if let Some(text) = post.appendix() {
        outcome.append_text(&text);
    }
    outcome.stops_turn = post.stops_turn;
    outcome.attachments = post.attachments;
    outcome
}

fn joined_outcome(
    tool_use_id: &str,
    tool_name: &str,
    joined: Result<ToolCallOutcome, tokio::task::JoinError>,
) -> ToolCallOutcome {
    match joined {
        Ok(outcome) => outcome,
        Err(e) if e.is_panic() => {
            let payload = e.into_panic();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            ToolCallOutcome::error(
                tool_use_id,
                tool_name,
                ToolError::new(format!("tool {tool_name} panicked: {message}"))
                    .to_tool_result_text(),
            )
        }
        Err(_) => ToolCallOutcome::error(tool_use_id, tool_name, INTERRUPTED_BY_USER.to_owned()),
    }
}

/// Characters of a malformed tool input echoed back to the model: enough to
/// see what went wrong, not the megabyte it may be.
const MAX_ECHO_CHARS: usize = 1_000;

/// `raw` whole if short, else its first [`MAX_ECHO_CHARS`] characters and its
/// real size.
fn capped_echo(raw: &str) -> String {
    match raw.char_indices().nth(MAX_ECHO_CHARS) {
        None => raw.to_owned(),
        Some((cut, _)) => format!("{}… ({} bytes)", &raw[..cut], raw.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_malformed_input_is_echoed_capped_with_its_size() {
        assert_eq!(capped_echo("{\"a\": 1"), "{\"a\": 1");
        let raw = format!("{{\"command\": \"{}", "é".repeat(2_000));
        let expected = format!(
            "{{\"command\": \"{}… ({} bytes)",
            "é".repeat(987),
            raw.len()
        );
        assert_eq!(capped_echo(&raw), expected);
    }
}
