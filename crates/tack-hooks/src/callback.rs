//! Callback hooks: functions that live in a client of tack (an Agent SDK's
//! `hooks` option) rather than in a shell command.
//!
//! The runner does not know how to reach the client; whoever owns the session
//! hands it a [`HookCallbacks`] executor (the session runtime implements it by
//! asking its front end, which sends the SDK a `hook_callback` request). A
//! callback gets the same input a command hook reads on stdin, and its JSON
//! answer is read exactly like a command hook's JSON stdout: the two kinds
//! share matchers, timeouts and the outcome folding of [`crate::HookOutcome`].

use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{CallbackHook, OnFailure};
use crate::process::{HookRun, RunStatus};

/// One call of a callback hook.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackCall {
    /// The id the client registered the function under.
    pub callback_id: String,
    /// The hook input (`hook_event_name`, `session_id`, `tool_name`, ...).
    pub input: Value,
    /// The tool call the event is about (PreToolUse, PostToolUse), if any.
    pub tool_use_id: Option<String>,
}

/// Reaches the client that registered callback hooks.
///
/// `call` resolves to the callback's JSON answer, or to an error message (the
/// client reported a failure, or cannot be reached). The runner bounds each call
/// by the hook's timeout and the event's cancellation by dropping the future:
/// an executor must treat a dropped future as an abandoned call (tell the
/// client, send nothing more), and must never block.
pub trait HookCallbacks: Send + Sync {
    fn call(&self, call: CallbackCall) -> BoxFuture<'static, Result<Value, String>>;
}

/// The `command` a callback's [`HookRun`] is reported under.
pub fn callback_label(id: &str) -> String {
    format!("callback {id}")
}

/// Runs one callback to its answer, timeout or cancellation, as a [`HookRun`]:
/// an answer is an exit-0 run whose stdout is the JSON answer (`{}` for an
/// `"async": true` answer, which defers everything); a failure or a timeout is
/// [`RunStatus::CallbackFailed`] (the client is told to abandon the call when
/// the future is dropped).
pub(crate) async fn run_callback(
    executor: Option<&dyn HookCallbacks>,
    hook: &CallbackHook,
    call: CallbackCall,
    timeout: Duration,
    cancel: &CancellationToken,
) -> HookRun {
    let started = Instant::now();
    let label = callback_label(&hook.id);
    let failed = |error: String| RunStatus::CallbackFailed {
        error,
        block: hook.on_failure == OnFailure::Block,
    };
    let (status, stdout) = match executor {
        None => (
            failed("no client is connected to answer it".to_owned()),
            String::new(),
        ),
        Some(executor) => {
            let answer = tokio::select! {
                answer = executor.call(call) => Ok(answer),
                () = tokio::time::sleep(timeout) => Err(RunStatus::TimedOut(timeout)),
                () = cancel.cancelled() => Err(RunStatus::Cancelled),
            };
            match answer {
                Ok(Ok(Value::Object(map))) => {
                    let deferred = map.get("async").and_then(Value::as_bool) == Some(true);
                    let stdout = if deferred {
                        "{}".to_owned()
                    } else {
                        Value::Object(map).to_string()
                    };
                    (RunStatus::Exited(0), stdout)
                }
                Ok(Ok(other)) => (
                    failed(format!("answered with {other}, not a JSON object")),
                    String::new(),
                ),
                Ok(Err(error)) => (failed(error), String::new()),
                Err(RunStatus::TimedOut(t)) => (
                    failed(format!("did not answer within {:.1}s", t.as_secs_f64())),
                    String::new(),
                ),
                Err(status) => (status, String::new()),
            }
        }
    };
    HookRun {
        command: label,
        status,
        stdout,
        stderr: String::new(),
        truncated: false,
        duration: started.elapsed(),
    }
}
