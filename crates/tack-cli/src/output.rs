//! What `-p` prints: `text` (the final answer), `json` (one result object) or
//! `stream-json` (one record per line, flushed as produced).

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{Map, Value, json};
use tack_api::ApiError;
use tack_core::LoopEvent;
use tack_core::session::SessionResult;
use tack_protocol::stream_json::{
    ApiRetry, AssistantPayload, AssistantRecord, ModelUsageRecord, PermissionDenial, ResultRecord,
    ResultUsage, StreamEventRecord, StreamJsonRecord, SystemInit, SystemRecord, UserRecord,
};
use tack_store::timestamp_now;

use crate::cli::OutputFormat;
use crate::persist::{assistant_response, split_tool_results, tool_use_result};
use crate::progress::Progress;

fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Writes one session's output in the chosen format.
pub struct Printer {
    format: OutputFormat,
    partial: bool,
    session_id: String,
    progress: Option<Progress>,
    narrate: bool,
    out: Box<dyn Write + Send>,
}

impl Printer {
    pub fn new(
        format: OutputFormat,
        partial: bool,
        session_id: String,
        progress: Option<Progress>,
    ) -> Self {
        Printer {
            format,
            partial,
            session_id,
            progress,
            narrate: false,
            out: Box::new(std::io::stdout()),
        }
    }

    /// Narrates the session on stdout as it happens (`tack demo`).
    pub fn narrating(mut self, narrate: bool) -> Self {
        self.narrate = narrate;
        self
    }

    fn narrate(&mut self, event: &LoopEvent) -> std::io::Result<()> {
        match event {
            LoopEvent::AssistantMessage(a) => {
                for block in &a.message.content {
                    match block {
                        tack_protocol::ContentBlock::Text { text, .. } => {
                            writeln!(self.out, "{text}\n")?
                        }
                        tack_protocol::ContentBlock::ToolUse { name, input, .. } => {
                            writeln!(
                                self.out,
                                "● {name}({})",
                                crate::progress::tool_summary(input)
                            )?;
                        }
                        _ => {}
                    }
                }
            }
            LoopEvent::ToolResults(r) => {
                for block in &r.message.content {
                    if let tack_protocol::ContentBlock::ToolResult {
                        content, is_error, ..
                    } = block
                    {
                        let text = content.as_ref().map(|c| c.to_text()).unwrap_or_default();
                        let lines: Vec<&str> = text.lines().collect();
                        let first = lines.first().copied().unwrap_or("(no output)");
                        let more = if lines.len() > 1 {
                            format!(" … +{} lines", lines.len() - 1)
                        } else {
                            String::new()
                        };
                        let mark = if *is_error { " (error)" } else { "" };
                        writeln!(self.out, "  ⎿ {first}{more}{mark}\n")?;
                    }
                }
            }
            _ => {}
        }
        self.out.flush()
    }

    /// After the result in narrating mode: cost, turns, where the transcript is.
    pub fn summary(&mut self, record: &ResultRecord, transcript: Option<&std::path::Path>) {
        if !self.narrate {
            return;
        }
        let _ = writeln!(
            self.out,
            "\n{} · {} model requests · ${:.4} (as priced for {}) · {} ms",
            record.subtype,
            record.num_turns,
            record.total_cost_usd,
            record.model_usage.keys().next().map_or("?", String::as_str),
            record.duration_ms
        );
        if let Some(path) = transcript {
            let _ = writeln!(self.out, "transcript: {}", path.display());
            let _ = writeln!(
                self.out,
                "resume it:  cd <project> && tack -p \"...\" --resume {}",
                record.session_id
            );
        }
    }

    fn record(&mut self, record: &StreamJsonRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        self.out.flush()
    }

    /// `system/init` (stream-json only).
    pub fn init(&mut self, init: SystemInit) -> std::io::Result<()> {
        if self.format == OutputFormat::StreamJson {
            self.record(&StreamJsonRecord::System(SystemRecord::Init(Box::new(
                init,
            ))))?;
        }
        Ok(())
    }

    /// Answers an SDK control request on stdout.
    pub fn control_response(&mut self, request: &Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(&crate::app::control_response(request))
            .map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        self.out.flush()
    }

    /// One loop event. Messages must be persisted before this is called.
    pub fn event(&mut self, event: &LoopEvent) -> std::io::Result<()> {
        if let Some(progress) = &mut self.progress {
            progress.event(event);
        }
        if self.narrate {
            return self.narrate(event);
        }
        if self.format != OutputFormat::StreamJson {
            return Ok(());
        }
        let session_id = self.session_id.clone();
        match event {
            LoopEvent::AssistantMessage(a) => {
                // One record per content block, sharing message.id, as Claude Code prints.
                let response = assistant_response(a);
                for (i, block) in a.message.content.iter().enumerate() {
                    let mut message = response.clone();
                    message.content = vec![block.clone()];
                    message.stop_reason = None;
                    let mut extra = Map::new();
                    extra.insert("context_management".into(), Value::Null);
                    self.record(&StreamJsonRecord::Assistant(AssistantRecord {
                        message: AssistantPayload { message, extra },
                        parent_tool_use_id: None,
                        session_id: session_id.clone(),
                        uuid: if i == 0 { a.uuid.clone() } else { new_uuid() },
                        timestamp: Some(timestamp_now()),
                        request_id: None,
                        error: None,
                        extra: Map::new(),
                    }))?;
                }
            }
            LoopEvent::ToolResults(r) => {
                for (i, message) in split_tool_results(&r.message).iter().enumerate() {
                    self.record(&StreamJsonRecord::User(UserRecord {
                        message: serde_json::to_value(message).unwrap_or(Value::Null),
                        parent_tool_use_id: None,
                        session_id: session_id.clone(),
                        uuid: if i == 0 { r.uuid.clone() } else { new_uuid() },
                        timestamp: Some(timestamp_now()),
                        tool_use_result: tool_use_result(r, message),
                        is_synthetic: None,
                        extra: Map::new(),
                    }))?;
                }
            }
            LoopEvent::Stream(sse) if self.partial => {
                self.record(&StreamJsonRecord::StreamEvent(StreamEventRecord {
                    event: serde_json::to_value(sse).unwrap_or(Value::Null),
                    session_id,
                    parent_tool_use_id: None,
                    uuid: new_uuid(),
                    extra: Map::new(),
                }))?;
            }
            LoopEvent::Retry {
                attempt,
                max_retries,
                delay,
                error,
            } => {
                self.record(&StreamJsonRecord::System(SystemRecord::ApiRetry(
                    ApiRetry {
                        attempt: *attempt,
                        max_retries: *max_retries,
                        retry_delay_ms: delay.as_millis() as u64,
                        error_status: error.status(),
                        error: error_category(error).into(),
                        session_id,
                        uuid: new_uuid(),
                        extra: Map::new(),
                    },
                )))?;
            }
            LoopEvent::MetaMessage { uuid, message } => {
                // Claude Code prints the loop's own user messages (the
                // max_output_tokens resume request) as synthetic user records.
                self.record(&StreamJsonRecord::User(UserRecord {
                    message: serde_json::to_value(message).unwrap_or(Value::Null),
                    parent_tool_use_id: None,
                    session_id,
                    uuid: uuid.clone(),
                    timestamp: Some(timestamp_now()),
                    tool_use_result: None,
                    is_synthetic: Some(true),
                    extra: Map::new(),
                }))?;
            }
            LoopEvent::Compacted(c) => {
                self.system_record(
                    "compact_boundary",
                    &session_id,
                    c.boundary_uuid.clone(),
                    [(
                        "compact_metadata",
                        json!({"trigger": c.trigger.as_str(), "pre_tokens": c.pre_tokens}),
                    )],
                )?;
            }
            LoopEvent::ModelFallback { from, to } => {
                self.system_record(
                    "informational",
                    &session_id,
                    new_uuid(),
                    [
                        (
                            "content",
                            json!(format!(
                                "{from} is overloaded; switched to the fallback model {to}"
                            )),
                        ),
                        ("level", json!("warning")),
                    ],
                )?;
            }
            LoopEvent::CompactFailed {
                consecutive_failures,
                error,
                ..
            } => {
                self.system_record(
                    "informational",
                    &session_id,
                    new_uuid(),
                    [
                        ("content", json!(format!("Automatic compaction failed ({consecutive_failures} in a row): {error}"))),
                        ("level", json!("warning")),
                    ],
                )?;
            }
            LoopEvent::Stream(_)
            | LoopEvent::RequestStart { .. }
            | LoopEvent::ToolProgress(_)
            | LoopEvent::Tombstone { .. }
            | LoopEvent::Terminal(_) => {}
        }
        Ok(())
    }

    /// A `system` record of `subtype` with `fields` (Claude Code's §4.6 records).
    fn system_record<const N: usize>(
        &mut self,
        subtype: &str,
        session_id: &str,
        uuid: String,
        fields: [(&str, Value); N],
    ) -> std::io::Result<()> {
        let mut map = Map::new();
        map.insert("subtype".into(), json!(subtype));
        for (key, value) in fields {
            map.insert(key.into(), value);
        }
        map.insert("session_id".into(), json!(session_id));
        map.insert("uuid".into(), json!(uuid));
        self.record(&StreamJsonRecord::System(SystemRecord::Other(map)))
    }

    /// The turn's result: the answer (text), the object (json) or the last record.
    pub fn result(&mut self, record: &ResultRecord) -> std::io::Result<()> {
        if let Some(progress) = &mut self.progress {
            progress.clear();
        }
        match self.format {
            OutputFormat::Text => {
                if let Some(text) = &record.result
                    && !record.is_error
                    && !self.narrate
                {
                    writeln!(self.out, "{text}")?;
                }
                self.out.flush()
            }
            OutputFormat::Json => {
                let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
                line.push(b'\n');
                self.out.write_all(&line)?;
                self.out.flush()
            }
            OutputFormat::StreamJson => self.record(&StreamJsonRecord::Result(record.clone())),
        }
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

/// Builds the `result` record of a turn.
pub fn result_record(
    result: &SessionResult,
    stop_reason: Option<String>,
    denials: Vec<PermissionDenial>,
) -> ResultRecord {
    use tack_core::Terminal;
    let model_usage: BTreeMap<String, ModelUsageRecord> = result
        .model_usage
        .iter()
        .map(|(model, u)| {
            let info = tack_api::model_info(model);
            let record = ModelUsageRecord {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cache_read_input_tokens: u.cache_read_input_tokens,
                cache_creation_input_tokens: u.cache_creation_input_tokens,
                web_search_requests: u.web_search_requests,
                cost_usd: u.cost_usd,
                context_window: info.map_or(200_000, |i| i.context_window),
                max_output_tokens: info.map_or(32_000, |i| i.max_output_tokens),
                extra: Map::new(),
            };
            (model.clone(), record)
        })
        .collect();
    let terminal_reason = match &result.terminal {
        Some(t) => t.as_str(),
        None if result.subtype == tack_core::session::ResultSubtype::ErrorMaxBudgetUsd => {
            "budget_exhausted"
        }
        None => "turn_setup_failed",
    };
    let api_error_status = match &result.terminal {
        Some(Terminal::ModelError(e) | Terminal::PromptTooLong(e)) => e.status(),
        Some(
            Terminal::Completed
            | Terminal::Aborted
            | Terminal::BlockingLimit
            | Terminal::MaxTurns { .. }
            | Terminal::StopHookPrevented,
        )
        | None => None,
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
        result: (!result.is_error).then(|| result.result.clone()),
        stop_reason,
        session_id: result.session_id.clone(),
        total_cost_usd: result.total_cost_usd,
        usage: ResultUsage {
            usage,
            extra: Map::new(),
        },
        model_usage,
        permission_denials: denials,
        terminal_reason: Some(terminal_reason.to_owned()),
        errors: result.is_error.then(|| result.errors.clone()),
        api_error_status,
        uuid: new_uuid(),
        extra: Map::new(),
    }
}

/// The one line for stderr when a turn failed.
pub fn error_line(result: &SessionResult, max_turns: Option<u32>) -> String {
    use tack_core::Terminal;
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
