//! stream-json records (Claude Code's §4 shapes, typed in tack-protocol) from
//! the runtime's events: what `-p --output-format stream-json` prints and what
//! the Agent SDK protocol sends. One loop event can be several records (one
//! per content block of an assistant message, one per tool result).

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use tack_api::ApiError;
use tack_core::LoopEvent;
use tack_core::Terminal;
use tack_core::session::{ResultSubtype, SessionResult};
use tack_protocol::extensions::PluginFailure;
use tack_protocol::stream_json::{
    self, ApiRetry, AssistantPayload, AssistantRecord, CompactBoundary, CompactMetadata,
    HookStarted, Informational, ModelUsageRecord, PermissionDenial, ResultRecord, ResultUsage,
    StreamEventRecord, StreamJsonRecord, SystemInit, SystemRecord, UserRecord,
};
use tack_store::timestamp_now;

use crate::event::{
    ConversationReset, HookActivity, PermissionDenied, SessionInfo, SubagentEvent,
    TranscriptMirrorFrame,
};
use crate::transcript::{assistant_response, split_tool_results, tool_use_result};

fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Builds the records of one session (or, with `parent_tool_use_id`, of a
/// sub-agent inside it).
#[derive(Debug, Clone)]
pub struct Records {
    pub session_id: String,
    /// `--include-partial-messages`: raw stream events become `stream_event`s.
    pub partial: bool,
    pub parent_tool_use_id: Option<String>,
    /// The live background tasks (`background_tasks_changed`), kept by
    /// [`Records::task`].
    pub(crate) background: Vec<BackgroundEntry>,
}

/// A live background task (an entry of `background_tasks_changed`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BackgroundEntry {
    pub task_id: String,
    pub subagent_type: String,
    pub description: String,
}

/// A value of tack-protocol as JSON (its strings and lossy paths cannot fail
/// to serialise; `null` if one ever did).
fn json_of(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// `system/init`'s `plugin_errors` (`{plugin, type, message, path?}`), left
/// out when nothing failed (as Claude Code does).
fn plugin_errors(failures: &[PluginFailure]) -> Map<String, Value> {
    let mut extra = Map::new();
    if !failures.is_empty() {
        extra.insert("plugin_errors".into(), json_of(&failures));
    }
    extra
}

impl Records {
    /// The records of session `session_id`.
    pub fn new(session_id: String, partial: bool) -> Records {
        Records {
            session_id,
            partial,
            parent_tool_use_id: None,
            background: Vec::new(),
        }
    }

    /// `system/init`.
    pub fn init(&self, info: &SessionInfo) -> StreamJsonRecord {
        StreamJsonRecord::System(SystemRecord::Init(Box::new(SystemInit {
            cwd: info.cwd.to_string_lossy().into_owned(),
            session_id: info.session_id.clone(),
            tools: info.tools.clone(),
            mcp_servers: info.mcp_servers.clone(),
            model: info.model.clone(),
            permission_mode: info.permission_mode.as_str().to_owned(),
            slash_commands: info
                .extensions
                .slash_commands
                .iter()
                .map(|c| c.name.clone())
                .collect(),
            api_key_source: info.api_key_source.clone(),
            claude_code_version: info.version.clone(),
            output_style: info.extensions.output_style.clone(),
            agents: info
                .extensions
                .agents
                .iter()
                .map(|a| a.name.clone())
                .collect(),
            skills: info.extensions.skills.clone(),
            plugins: info.extensions.plugins.iter().map(json_of).collect(),
            uuid: new_uuid(),
            extra: plugin_errors(&info.extensions.plugin_errors),
        })))
    }

    /// The records of one loop event, in order (none for most events).
    pub fn loop_event(&self, event: &LoopEvent) -> Vec<StreamJsonRecord> {
        let session_id = || self.session_id.clone();
        match event {
            LoopEvent::AssistantMessage(a) => {
                // One record per content block, sharing message.id, as Claude Code prints.
                let response = assistant_response(a);
                a.message
                    .content
                    .iter()
                    .enumerate()
                    .map(|(i, block)| {
                        let mut message = response.clone();
                        message.content = vec![block.clone()];
                        message.stop_reason = None;
                        let mut extra = Map::new();
                        extra.insert("context_management".into(), Value::Null);
                        StreamJsonRecord::Assistant(AssistantRecord {
                            message: AssistantPayload { message, extra },
                            parent_tool_use_id: self.parent_tool_use_id.clone(),
                            session_id: session_id(),
                            uuid: if i == 0 { a.uuid.clone() } else { new_uuid() },
                            timestamp: Some(timestamp_now()),
                            request_id: a.request_id.clone(),
                            error: None,
                            extra: Map::new(),
                        })
                    })
                    .collect()
            }
            LoopEvent::ToolResults(r) => split_tool_results(&r.message)
                .iter()
                .enumerate()
                .map(|(i, message)| {
                    StreamJsonRecord::User(UserRecord {
                        message: serde_json::to_value(message).unwrap_or(Value::Null),
                        parent_tool_use_id: self.parent_tool_use_id.clone(),
                        session_id: session_id(),
                        uuid: if i == 0 { r.uuid.clone() } else { new_uuid() },
                        timestamp: Some(timestamp_now()),
                        tool_use_result: tool_use_result(r, message),
                        is_synthetic: None,
                        extra: Map::new(),
                    })
                })
                .collect(),
            // The API's keep-alive `ping` (and events this build does not
            // know) are no part of the SDK's `RawMessageStreamEvent` union:
            // Claude Code does not forward them, and clients such as Zed's
            // adapter log each one as an unexpected case.
            LoopEvent::Stream(sse) if self.partial && !is_keep_alive(sse) => {
                vec![StreamJsonRecord::StreamEvent(StreamEventRecord {
                    event: serde_json::to_value(sse).unwrap_or(Value::Null),
                    session_id: session_id(),
                    parent_tool_use_id: self.parent_tool_use_id.clone(),
                    uuid: new_uuid(),
                    extra: Map::new(),
                })]
            }
            LoopEvent::Retry {
                attempt,
                max_retries,
                delay,
                error,
            } => vec![StreamJsonRecord::System(SystemRecord::ApiRetry(ApiRetry {
                attempt: *attempt,
                max_retries: *max_retries,
                retry_delay_ms: delay.as_millis() as u64,
                error_status: error.status(),
                error: error_category(error).into(),
                session_id: session_id(),
                uuid: new_uuid(),
                extra: Map::new(),
            }))],
            // Claude Code prints the loop's own user messages (the
            // max_output_tokens resume request) as synthetic user records.
            LoopEvent::MetaMessage { uuid, message } => {
                vec![StreamJsonRecord::User(UserRecord {
                    message: serde_json::to_value(message).unwrap_or(Value::Null),
                    parent_tool_use_id: self.parent_tool_use_id.clone(),
                    session_id: session_id(),
                    uuid: uuid.clone(),
                    timestamp: Some(timestamp_now()),
                    tool_use_result: None,
                    is_synthetic: Some(true),
                    extra: Map::new(),
                })]
            }
            LoopEvent::Compacted(c) => vec![StreamJsonRecord::System(
                SystemRecord::CompactBoundary(CompactBoundary {
                    compact_metadata: CompactMetadata {
                        trigger: c.trigger.as_str().to_owned(),
                        pre_tokens: c.pre_tokens,
                    },
                    session_id: session_id(),
                    uuid: c.boundary_uuid.clone(),
                    extra: Map::new(),
                }),
            )],
            LoopEvent::ModelFallback { from, to } => vec![self.informational(
                format!("{from} is overloaded; switched to the fallback model {to}"),
                "warning",
            )],
            LoopEvent::CompactFailed {
                consecutive_failures,
                error,
                ..
            } => vec![self.informational(
                format!("Automatic compaction failed ({consecutive_failures} in a row): {error}"),
                "warning",
            )],
            LoopEvent::Stream(_)
            | LoopEvent::RequestStart { .. }
            | LoopEvent::ToolProgress(_)
            | LoopEvent::Tombstone { .. }
            | LoopEvent::Terminal(_) => Vec::new(),
        }
    }

    /// The records of a sub-agent's loop event: its messages with
    /// `parent_tool_use_id` set to the Agent call (never `stream_event`s).
    pub fn subagent_event(&self, event: &SubagentEvent) -> Vec<StreamJsonRecord> {
        Records {
            parent_tool_use_id: Some(event.parent_tool_use_id.clone()),
            ..Records::new(self.session_id.clone(), false)
        }
        .loop_event(&event.event)
    }

    /// `system/permission_denied`.
    pub fn permission_denied(&self, denied: &PermissionDenied) -> StreamJsonRecord {
        StreamJsonRecord::System(SystemRecord::PermissionDenied(
            stream_json::PermissionDeniedRecord {
                tool_name: denied.tool_name.clone(),
                tool_use_id: denied.tool_use_id.clone(),
                message: denied.message.clone(),
                decision_reason_type: Some(denied.reason_type.clone()),
                decision_reason: Some(denied.message.clone()),
                agent_id: denied.agent_id.clone(),
                session_id: self.session_id.clone(),
                uuid: new_uuid(),
                extra: Map::new(),
            },
        ))
    }

    /// `system/hook_started` or `system/hook_response`.
    pub fn hook(&self, hook: &HookActivity) -> StreamJsonRecord {
        let (session_id, uuid) = (self.session_id.clone(), new_uuid());
        let (hook_id, hook_name) = (hook.hook_id.clone(), hook.hook_name.clone());
        let hook_event = hook.hook_event.clone();
        StreamJsonRecord::System(match &hook.response {
            None => SystemRecord::HookStarted(HookStarted {
                hook_id,
                hook_name,
                hook_event,
                session_id,
                uuid,
                extra: Map::new(),
            }),
            Some(r) => SystemRecord::HookResponse(stream_json::HookResponse {
                hook_id,
                hook_name,
                hook_event,
                output: format!("{}{}", r.stdout, r.stderr),
                stdout: r.stdout.clone(),
                stderr: r.stderr.clone(),
                exit_code: r.exit_code,
                outcome: r.outcome.clone(),
                session_id,
                uuid,
                extra: Map::new(),
            }),
        })
    }

    /// `conversation_reset` (under the old session id); the records that
    /// follow carry the new one.
    pub fn reset(&mut self, reset: &ConversationReset) -> StreamJsonRecord {
        let record = StreamJsonRecord::ConversationReset(stream_json::ConversationReset {
            new_conversation_id: reset.new_session_id.clone(),
            uuid: new_uuid(),
            session_id: reset.old_session_id.clone(),
            trigger: Some("clear".to_owned()),
            user_message_uuid: reset.user_message_uuid.clone(),
            timestamp: Some(timestamp_now()),
            extra: Map::new(),
        });
        self.session_id.clone_from(&reset.new_session_id);
        record
    }

    /// `system/session_state_changed`; `host_only`: asked for by the SDK
    /// itself (`CLAUDE_CODE_SDK_READS_SESSION_STATE`), which keeps it from
    /// its caller.
    pub fn session_state(&self, state: &str, host_only: bool) -> StreamJsonRecord {
        let mut map = Map::new();
        map.insert("subtype".into(), "session_state_changed".into());
        map.insert("state".into(), state.into());
        if host_only {
            map.insert("sdk_host_only".into(), Value::Bool(true));
        }
        map.insert("session_id".into(), Value::String(self.session_id.clone()));
        map.insert("uuid".into(), Value::String(new_uuid()));
        StreamJsonRecord::System(SystemRecord::Other(map))
    }

    /// `transcript_mirror`.
    pub fn mirror(frame: &TranscriptMirrorFrame) -> StreamJsonRecord {
        StreamJsonRecord::TranscriptMirror(stream_json::TranscriptMirror {
            file_path: frame.file_path.to_string_lossy().into_owned(),
            entries: frame.entries.clone(),
        })
    }

    fn informational(&self, content: String, level: &str) -> StreamJsonRecord {
        StreamJsonRecord::System(SystemRecord::Informational(Informational {
            content,
            level: level.to_owned(),
            session_id: self.session_id.clone(),
            uuid: new_uuid(),
            extra: Map::new(),
        }))
    }
}

/// The error category Claude Code puts in `api_retry.error` and `assistant.error`.
pub fn error_category(error: &ApiError) -> &'static str {
    match error {
        ApiError::Overloaded { .. } => "overloaded",
        ApiError::RateLimited { .. } => "rate_limit",
        ApiError::Authentication { .. } => "authentication_failed",
        ApiError::Billing { .. } => "billing_error",
        ApiError::InvalidRequest { .. }
        | ApiError::PromptTooLong { .. }
        | ApiError::RequestTooLarge { .. } => "invalid_request",
        ApiError::NotFound { .. } => "model_not_found",
        ApiError::Server { .. } => "server_error",
        ApiError::Permission { .. }
        | ApiError::Connection { .. }
        | ApiError::IdleTimeout(_)
        | ApiError::Protocol { .. }
        | ApiError::Cancelled
        | ApiError::Other { .. } => "unknown",
    }
}

/// The `result` record of a turn.
pub fn result_record(
    result: &SessionResult,
    stop_reason: Option<String>,
    denials: Vec<PermissionDenial>,
) -> ResultRecord {
    let model_usage: BTreeMap<String, ModelUsageRecord> = result
        .model_usage
        .iter()
        .map(|(model, u)| {
            let limits = tack_api::model_limits(model);
            let record = ModelUsageRecord {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cache_read_input_tokens: u.cache_read_input_tokens,
                cache_creation_input_tokens: u.cache_creation_input_tokens,
                web_search_requests: u.web_search_requests,
                cost_usd: u.cost_usd,
                context_window: limits.context_window,
                max_output_tokens: limits.max_output_tokens,
                extra: Map::new(),
            };
            (model.clone(), record)
        })
        .collect();
    let terminal_reason = match &result.terminal {
        Some(t) => t.as_str(),
        None if result.subtype == ResultSubtype::ErrorMaxBudgetUsd => "budget_exhausted",
        None => "turn_setup_failed",
    };
    let api_error_status = match &result.terminal {
        Some(Terminal::ModelError(e) | Terminal::PromptTooLong(e)) => e.status(),
        Some(
            Terminal::Completed
            | Terminal::Aborted
            | Terminal::BlockingLimit
            | Terminal::MaxTurns { .. }
            | Terminal::StopHookPrevented
            | Terminal::HookStopped
            | Terminal::Answered(_)
            | Terminal::ToolDeferred(_)
            | Terminal::StructuredOutputRetryExhausted(_),
        )
        | None => None,
    };
    // The success arm carries `result` (an API error's text when `is_error`),
    // the error arm `errors`.
    let success = result.subtype == ResultSubtype::Success;
    // A deferred call is the turn's stop reason, and the record carries it.
    let mut extra = Map::new();
    let stop_reason = match &result.terminal {
        Some(Terminal::ToolDeferred(call)) => {
            let call = serde_json::json!({"id": call.id, "name": call.name, "input": call.input});
            extra.insert("deferred_tool_use".to_owned(), call);
            Some("tool_deferred".to_owned())
        }
        _ => stop_reason,
    };
    let mut usage = result.usage.clone();
    usage.server_tool_use.get_or_insert_default();
    usage.service_tier.get_or_insert_with(|| "standard".into());
    ResultRecord {
        subtype: result.subtype.as_str().to_owned(),
        is_error: result.is_error,
        duration_ms: result.duration.as_millis() as u64,
        duration_api_ms: result.duration_api.as_millis() as u64,
        num_turns: result.num_turns,
        result: success.then(|| result.result.clone()),
        stop_reason,
        session_id: result.session_id.clone(),
        total_cost_usd: result.total_cost_usd,
        usage: ResultUsage {
            usage,
            extra: Map::new(),
        },
        model_usage,
        permission_denials: denials,
        structured_output: result.structured_output().cloned(),
        terminal_reason: Some(terminal_reason.to_owned()),
        errors: (!success).then(|| result.errors.clone()),
        api_error_status,
        uuid: new_uuid(),
        user_message_uuid: None,
        origin: None,
        extra,
    }
}

/// The one line for stderr when a turn failed.
pub fn error_line(result: &SessionResult, max_turns: Option<u32>) -> String {
    match (&result.terminal, result.errors.first()) {
        (Some(Terminal::MaxTurns { turn_count }), _) => {
            format!(
                "Error: Reached max turns ({})",
                max_turns.unwrap_or(*turn_count)
            )
        }
        (_, Some(e)) => format!("Error: {}", e.lines().next().unwrap_or(e)),
        (Some(t), None) => format!("Error: the turn ended with {}", t.as_str()),
        (None, None) => "Error: the turn failed".to_owned(),
    }
}

/// The API's `ping` and events this build does not know: not forwarded as
/// `stream_event`s.
fn is_keep_alive(event: &tack_protocol::SseEvent) -> bool {
    use tack_protocol::SseEvent;
    matches!(event, SseEvent::Ping | SseEvent::Unknown(_))
}
