//! A sub-agent's loop seams: SubagentStop hooks where the main loop runs Stop
//! hooks (same meaning: a block continues the sub-agent once per exit point,
//! `continue: false` ends it), PreCompact `auto` as in the main loop.

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
use tack_core::query::{LoopHooks, StopHookInput, StopHookOutcome};
use tack_hooks::HookEvent;

use crate::hooks::SessionHooks;

pub(crate) struct SubagentHooks {
    pub hooks: Arc<SessionHooks>,
    pub agent_id: String,
    pub agent_type: String,
    /// The sidechain transcript (empty without persistence).
    pub transcript_path: Option<PathBuf>,
}

impl LoopHooks for SubagentHooks {
    fn pre_compact(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(self.hooks.pre_compact("auto", None))
    }

    fn stop<'a>(&'a self, input: StopHookInput<'a>) -> BoxFuture<'a, StopHookOutcome> {
        let stop_hook_active = input.stop_hook_active;
        Box::pin(
            self.hooks
                .stop_hooks("SubagentStop", input.messages, move |last| {
                    HookEvent::SubagentStop {
                        stop_hook_active,
                        agent_id: self.agent_id.clone(),
                        agent_type: self.agent_type.clone(),
                        agent_transcript_path: self
                            .transcript_path
                            .as_ref()
                            .map(|p| p.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        last_assistant_message: last,
                    }
                }),
        )
    }
}
