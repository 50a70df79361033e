//! Watching command hooks run: a [`HookObserver`] hears of each command hook
//! when it starts and when it ends (Claude Code's `hook_started` /
//! `hook_response` records come from here).
//!
//! The runner calls the observer on the task that runs the hook, in order
//! for any one hook (started, then finished, once each). Hooks of one event
//! run concurrently, so the calls of different hooks interleave. The observer
//! must not block: it hands the news on (the runtime puts it on its event
//! stream) and returns.

use crate::event::HookEvent;
use crate::process::{HookRun, RunStatus};

/// Which hook is running: Claude Code's `hook_name` and `hook_event`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookLabel {
    /// The event, then what matchers match for it: `PreToolUse:Bash`,
    /// `SessionStart:startup`; the bare event when it has no match target
    /// (`Stop`, `UserPromptSubmit`).
    pub name: String,
    /// `PreToolUse`, `SessionStart`, ...
    pub event: &'static str,
}

impl HookLabel {
    pub fn of(event: &HookEvent) -> HookLabel {
        let name = match event.match_target() {
            Some(target) => format!("{}:{target}", event.name()),
            None => event.name().to_owned(),
        };
        HookLabel {
            name,
            event: event.name(),
        }
    }
}

/// How a hook ended, as `hook_response.outcome` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEnd {
    /// Exit code 0.
    Success,
    /// Any other exit code, a signal, a timeout, a hook that could not start.
    Error,
    /// Stopped because its event was cancelled (an interrupt).
    Cancelled,
}

impl HookEnd {
    pub fn of(run: &HookRun) -> HookEnd {
        match run.status {
            RunStatus::Exited(0) => HookEnd::Success,
            RunStatus::Cancelled => HookEnd::Cancelled,
            RunStatus::Exited(_)
            | RunStatus::Signaled(_)
            | RunStatus::TimedOut(_)
            | RunStatus::SpawnFailed(_)
            | RunStatus::CallbackFailed { .. } => HookEnd::Error,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            HookEnd::Success => "success",
            HookEnd::Error => "error",
            HookEnd::Cancelled => "cancelled",
        }
    }
}

/// Hears of each command hook's start and end (see the module docs).
pub trait HookObserver: Send + Sync {
    /// The hook is about to start; returns the id `finished` gets back.
    fn started(&self, hook: &HookLabel) -> String;
    /// The hook `started` gave `hook_id` to has ended.
    fn finished(&self, hook_id: &str, hook: &HookLabel, run: &HookRun);
}
