//! The runtime's events as the terminal UI's: [`EventMap`] for a live
//! session, [`replay`] for the conversation of a resumed one.

use std::time::Duration;

use serde_json::Value;
use tack_protocol::{ContentBlock, Delta, Message, Role, SseEvent};
use tack_runtime::{AskId, REJECTED, RuntimeEvent, context_tokens};
use tack_runtime::{COMPACT_SUMMARY_PREFIX, LoopEvent};
use tack_tui::{NoticeLevel, PermissionRequest, StatusPatch, TurnSummary, UiEvent};

/// What one runtime event means for the UI.
#[derive(Debug, Default)]
pub struct Mapped {
    pub events: Vec<UiEvent>,
    /// A permission request's ask, kept until the user answers (by tool_use id).
    pub reply: Option<(String, AskId)>,
    /// An ask the runtime no longer waits for.
    pub withdrawn: Option<AskId>,
    /// A turn or a `/compact` ended (the status line may change).
    pub turn_ended: bool,
    /// The runtime's last event.
    pub ended: bool,
}

/// Maps one session's events; per-turn state in between.
#[derive(Debug, Default)]
pub struct EventMap {
    /// The user interrupted the running turn.
    interrupted: bool,
    /// Text of the current response was streamed (else it is shown whole).
    streamed_text: bool,
    /// The session's cost as of the last turn's end.
    session_cost: f64,
    /// What the `statusLine` command is told.
    pub facts: super::status_facts::StatusFacts,
}

impl EventMap {
    /// The user asked to interrupt the running turn.
    pub fn interrupted(&mut self) {
        self.interrupted = true;
    }

    /// The session's cost so far (USD).
    pub fn session_cost(&self) -> f64 {
        self.session_cost
    }

    pub fn map(&mut self, event: RuntimeEvent) -> Mapped {
        let mut out = Mapped::default();
        match event {
            RuntimeEvent::Notice(n) => out.events.push(UiEvent::Notice {
                level: level(n.level),
                text: n.text,
            }),
            // The mode is the driver's to show (`Driver::ready`): this
            // event can arrive after the answer to a mode change.
            RuntimeEvent::Started(info) => out.events.push(UiEvent::Status(StatusPatch {
                model: Some(info.model.clone()),
                session_id: Some(info.session_id.clone()),
                ..StatusPatch::default()
            })),
            RuntimeEvent::Loop(event) => self.loop_event(event, &mut out.events),
            RuntimeEvent::TurnEnded(end) => {
                let record = &end.record;
                let interrupted = std::mem::take(&mut self.interrupted)
                    || record.terminal_reason.as_deref() == Some("aborted");
                let error = match (&end.error_line, interrupted) {
                    (Some(line), false) => {
                        Some(line.strip_prefix("Error: ").unwrap_or(line).to_owned())
                    }
                    _ => None,
                };
                let usage = &record.usage.usage;
                let summary = TurnSummary {
                    interrupted,
                    error,
                    cost_usd: (record.total_cost_usd - self.session_cost).max(0.0),
                    session_cost_usd: record.total_cost_usd,
                    input_tokens: usage.input_tokens
                        + usage.cache_creation_input_tokens
                        + usage.cache_read_input_tokens,
                    output_tokens: usage.output_tokens,
                    duration: Duration::from_millis(record.duration_ms),
                };
                self.session_cost = record.total_cost_usd;
                self.streamed_text = false;
                out.events.push(UiEvent::TurnResult(summary));
                out.turn_ended = true;
            }
            RuntimeEvent::CompactEnded { error } => {
                self.facts.compacted();
                let interrupted = std::mem::take(&mut self.interrupted);
                out.events.push(UiEvent::TurnResult(TurnSummary {
                    interrupted,
                    error: error
                        .filter(|_| !interrupted)
                        .map(|e| format!("Compaction failed: {e}")),
                    cost_usd: 0.0,
                    session_cost_usd: self.session_cost,
                    input_tokens: 0,
                    output_tokens: 0,
                    duration: Duration::ZERO,
                }));
                out.turn_ended = true;
            }
            RuntimeEvent::PermissionRequest(request) => {
                let request = *request;
                out.events
                    .push(UiEvent::PermissionRequest(PermissionRequest {
                        id: request.tool_use_id.clone(),
                        tool_name: request.tool_name,
                        input: request.input,
                        // The dialog says when a sub-agent asks, not the session.
                        reason: match &request.agent {
                            Some(agent) => {
                                format!(
                                    "The {} sub-agent asks. {}",
                                    agent.agent_type, request.reason
                                )
                            }
                            None => request.reason,
                        },
                        suggestions: request.suggestions,
                        original: request.original,
                        choices: request.choices,
                    }));
                out.reply = Some((request.tool_use_id, request.id));
            }
            RuntimeEvent::Subagent(sub) => {
                // A sub-agent's latest tool call shows under its Agent call.
                if let LoopEvent::AssistantMessage(a) = &sub.event
                    && let Some((_, name, input)) = a.message.tool_uses().last()
                {
                    out.events.push(UiEvent::ToolProgress {
                        id: sub.parent_tool_use_id.clone(),
                        text: format!(
                            "{}: {}",
                            sub.agent_type,
                            tack_tui::cells::summary(name, input)
                        ),
                    });
                }
            }
            // No client hooks are registered here; a dropped call is a failure.
            RuntimeEvent::HookCallback(_) => {}
            RuntimeEvent::AskWithdrawn { id } => out.withdrawn = Some(id),
            // Replies go to the handle's callers, not out as events.
            RuntimeEvent::Reply { .. } => {}
            // Hook runs show through their notices; the terminal's /clear
            // starts a new session rather than sending one. The UI never
            // asks for a session mirror.
            RuntimeEvent::Hook(_)
            | RuntimeEvent::TranscriptMirror(_)
            | RuntimeEvent::Task(_)
            | RuntimeEvent::SessionState(_) => {}
            // The call's result says why; the transcript shows it.
            RuntimeEvent::PermissionDenied(_) => {}
            RuntimeEvent::Teammate(t) => out.events.push(UiEvent::Notice {
                level: NoticeLevel::Info,
                text: format!(
                    "teammate {} ({}): {}",
                    t.name,
                    t.agent_type,
                    t.state.as_str()
                ),
            }),
            // `/clear` (or `/reset`, `/new`): the runtime started a new
            // conversation, with its hooks.
            RuntimeEvent::ConversationReset(reset) => {
                out.events.push(UiEvent::Status(StatusPatch {
                    session_id: Some(reset.new_session_id.clone()),
                    ..StatusPatch::default()
                }));
                out.events.push(UiEvent::Notice {
                    level: NoticeLevel::Info,
                    text: "Started a new conversation.".to_owned(),
                });
            }
            RuntimeEvent::Ended => out.ended = true,
            // Another terminal's prompt (an attached session's).
            RuntimeEvent::Input(input) => {
                for block in &input.message.content {
                    if let ContentBlock::Text { text, .. } = block {
                        user_text(text, &mut out.events);
                    }
                }
            }
        }
        out
    }

    fn loop_event(&mut self, event: LoopEvent, out: &mut Vec<UiEvent>) {
        match event {
            LoopEvent::RequestStart { .. } => {
                self.streamed_text = false;
                out.push(UiEvent::TurnStarted);
            }
            LoopEvent::Stream(SseEvent::ContentBlockDelta { delta, .. }) => match delta {
                Delta::TextDelta { text } => {
                    self.streamed_text = true;
                    out.push(UiEvent::TextDelta(text));
                }
                Delta::ThinkingDelta { thinking } => out.push(UiEvent::ThinkingDelta(thinking)),
                Delta::InputJsonDelta { .. }
                | Delta::SignatureDelta { .. }
                | Delta::CitationsDelta { .. }
                | Delta::Unknown(_) => {}
            },
            LoopEvent::Stream(_) => {}
            LoopEvent::Retry {
                attempt,
                max_retries,
                delay,
                error,
            } => out.push(UiEvent::Notice {
                level: NoticeLevel::Warning,
                text: format!(
                    "API error ({error}); retrying in {} s (attempt {}/{max_retries})",
                    delay.as_secs_f64().ceil() as u64,
                    attempt + 1
                ),
            }),
            LoopEvent::AssistantMessage(a) => {
                let api_ms = a.api_duration.as_millis() as u64;
                self.facts.assistant(&a.model, &a.usage, api_ms, &a.message);
                if !self.streamed_text {
                    let text = a.message.text();
                    if !text.trim().is_empty() {
                        out.push(UiEvent::TextDelta(text));
                    }
                }
                self.streamed_text = false;
                out.push(UiEvent::AssistantMessageDone);
                for (id, name, input) in a.message.tool_uses() {
                    out.push(UiEvent::ToolUseStarted {
                        id: id.to_owned(),
                        name: name.to_owned(),
                        input: input.clone(),
                    });
                }
                let window = tack_api::model_limits(&a.model).context_window;
                out.push(UiEvent::Status(StatusPatch {
                    context_used: Some(context_tokens(&a.usage)),
                    context_window: Some(window),
                    ..StatusPatch::default()
                }));
            }
            LoopEvent::ToolResults(r) => {
                self.facts.tool_results(&r.message);
                tool_results(&r.message, out);
            }
            LoopEvent::ToolProgress(p) => out.push(UiEvent::ToolProgress {
                id: p.tool_use_id,
                text: progress_text(&p.data),
            }),
            LoopEvent::Tombstone { .. } => {
                self.streamed_text = false;
                out.push(UiEvent::StreamDiscarded);
            }
            LoopEvent::ModelFallback { from, to } => out.push(UiEvent::Notice {
                level: NoticeLevel::Warning,
                text: format!("{from} is overloaded; switched to {to} for this turn"),
            }),
            LoopEvent::Compacted(c) => out.push(UiEvent::Compacted {
                pre_tokens: c.pre_tokens,
                summary: c.summary,
            }),
            LoopEvent::CompactFailed { error, .. } => out.push(UiEvent::Notice {
                level: NoticeLevel::Warning,
                text: format!("Automatic compaction failed: {error}"),
            }),
            // A Stop hook's reason, a "resume" nudge: for the model, not the user.
            LoopEvent::MetaMessage { .. } | LoopEvent::Terminal(_) => {}
        }
    }
}

fn level(level: tack_runtime::NoticeLevel) -> NoticeLevel {
    match level {
        tack_runtime::NoticeLevel::Info => NoticeLevel::Info,
        tack_runtime::NoticeLevel::Warning => NoticeLevel::Warning,
        tack_runtime::NoticeLevel::Error => NoticeLevel::Error,
    }
}

fn tool_results(message: &Message, out: &mut Vec<UiEvent>) {
    for block in &message.content {
        if let ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error,
            ..
        } = block
        {
            let text = content.as_ref().map(|c| c.to_text()).unwrap_or_default();
            out.push(UiEvent::ToolUseFinished {
                id: tool_use_id.clone(),
                is_error: *is_error,
                content: shown_result(text),
            });
        }
    }
}

/// A tool result as shown: a rejection by the user in short, with what the
/// user said to do instead.
fn shown_result(text: String) -> String {
    let Some(rest) = text.strip_prefix(REJECTED) else {
        return text;
    };
    match rest.split_once("the user said:\n") {
        Some((_, feedback)) => format!("Rejected by the user: {feedback}"),
        None => "Rejected by the user".to_owned(),
    }
}

/// A tool's progress report as one line of text.
fn progress_text(data: &Value) -> String {
    match data {
        Value::String(s) => s.clone(),
        Value::Object(map) => ["output", "text", "line", "message"]
            .iter()
            .find_map(|k| map.get(*k).and_then(Value::as_str))
            .map_or_else(|| data.to_string(), str::to_owned),
        other => other.to_string(),
    }
}

/// The UI events that show `messages` (a resumed conversation) as history;
/// with `ended`, calls left without results are shown cut off (the session
/// that made them ended), else they are left running.
pub fn replay(messages: &[Message], ended: bool) -> Vec<UiEvent> {
    let mut out = Vec::new();
    let mut open: Vec<String> = Vec::new();
    for message in messages {
        match message.role {
            Role::User => {
                for block in &message.content {
                    match block {
                        ContentBlock::Text { text, .. } => user_text(text, &mut out),
                        ContentBlock::ToolResult { tool_use_id, .. } => {
                            open.retain(|id| id != tool_use_id);
                        }
                        _ => {}
                    }
                }
                tool_results(message, &mut out);
            }
            Role::Assistant => {
                for block in &message.content {
                    match block {
                        ContentBlock::Text { text, .. } if !text.trim().is_empty() => {
                            out.push(UiEvent::TextDelta(text.clone()));
                        }
                        ContentBlock::Thinking { thinking, .. } => {
                            out.push(UiEvent::ThinkingDelta(thinking.clone()));
                        }
                        _ => {}
                    }
                }
                out.push(UiEvent::AssistantMessageDone);
                for (id, name, input) in message.tool_uses() {
                    open.push(id.to_owned());
                    out.push(UiEvent::ToolUseStarted {
                        id: id.to_owned(),
                        name: name.to_owned(),
                        input: input.clone(),
                    });
                }
            }
        }
    }
    // Calls whose session ended before their results (the next turn answers them).
    for id in open.into_iter().filter(|_| ended) {
        out.push(UiEvent::ToolUseFinished {
            id,
            is_error: true,
            content: "Interrupted".into(),
        });
    }
    out
}

/// A text block of a user message: a prompt, a `!` command and its output,
/// a compaction summary, or context that is not shown.
fn user_text(text: &str, out: &mut Vec<UiEvent>) {
    if let Some(summary) = text.strip_prefix(COMPACT_SUMMARY_PREFIX) {
        out.push(UiEvent::Compacted {
            pre_tokens: 0,
            summary: summary.to_owned(),
        });
    } else if let Some(command) = tagged(text, "bash-input") {
        out.push(UiEvent::UserPrompt(format!("!{command}")));
    } else if text.starts_with("<bash-stdout>") {
        let stdout = tagged(text, "bash-stdout").unwrap_or_default();
        let stderr = tagged(text, "bash-stderr").unwrap_or_default();
        out.push(UiEvent::Notice {
            level: NoticeLevel::Info,
            text: tack_runtime::shell_output_shown(stdout, stderr),
        });
    } else if !text.starts_with("<system-reminder>") && !text.trim().is_empty() {
        out.push(UiEvent::UserPrompt(text.to_owned()));
    }
}

/// The text between `<tag>` and `</tag>` in `text`.
fn tagged<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let start = text.find(&format!("<{tag}>"))? + tag.len() + 2;
    let end = text[start..].find(&format!("</{tag}>"))? + start;
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn assistant(content: Vec<ContentBlock>, usage: tack_protocol::Usage) -> RuntimeEvent {
        RuntimeEvent::Loop(LoopEvent::AssistantMessage(
            tack_runtime::AssistantMessageEvent {
                uuid: "u".into(),
                message: Message::assistant(content),
                id: "msg_1".into(),
                model: "claude-sonnet-4-5".into(),
                request_id: None,
                usage,
                stop_reason: None,
                api_duration: Duration::ZERO,
            },
        ))
    }

    #[test]
    fn a_live_turn_maps_to_the_ui_vocabulary() {
        let mut map = EventMap::default();
        let mut ui = Vec::new();
        let mut run = |map: &mut EventMap, event: RuntimeEvent| {
            let mapped = map.map(event);
            ui.extend(mapped.events);
            (
                mapped.reply.map(|(id, _)| id),
                mapped.turn_ended,
                mapped.ended,
            )
        };
        let usage = tack_protocol::Usage {
            input_tokens: 100,
            cache_read_input_tokens: 900,
            output_tokens: 20,
            ..tack_protocol::Usage::default()
        };
        let bash = json!({"command": "make"});
        run(
            &mut map,
            RuntimeEvent::Loop(LoopEvent::RequestStart {
                model: "claude-sonnet-4-5".into(),
                turn_count: 1,
                transition: None,
            }),
        );
        run(
            &mut map,
            RuntimeEvent::Loop(LoopEvent::Stream(SseEvent::ContentBlockDelta {
                index: 0,
                delta: Delta::TextDelta {
                    text: "Building.".into(),
                },
            })),
        );
        run(
            &mut map,
            assistant(
                vec![
                    ContentBlock::text("Building."),
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "Bash".into(),
                        input: bash.clone(),
                        cache_control: None,
                    },
                ],
                usage.clone(),
            ),
        );
        let (reply, ..) = run(
            &mut map,
            RuntimeEvent::PermissionRequest(Box::new(tack_runtime::PermissionRequest {
                id: AskId(1),
                tool_name: "Bash".into(),
                input: bash.clone(),
                tool_use_id: "t1".into(),
                reason: "Bash needs approval".into(),
                suggestions: vec!["Bash(make:*)".into()],
                blocked_path: None,
                agent: Some(tack_runtime::AgentIdentity {
                    id: "a1b2c3d4".into(),
                    agent_type: "reviewer".into(),
                }),
                original: None,
                choices: Vec::new(),
            })),
        );
        assert_eq!(reply.as_deref(), Some("t1"));
        run(
            &mut map,
            RuntimeEvent::Loop(LoopEvent::ToolResults(tack_runtime::ToolResultsEvent {
                uuid: "u2".into(),
                message: Message::user(vec![ContentBlock::tool_result("t1", "ok", false)]),
                results: Vec::new(),
            })),
        );
        // A message that was not streamed is shown whole.
        run(
            &mut map,
            assistant(vec![ContentBlock::text("Built.")], usage),
        );
        map.interrupted();
        let record: tack_protocol::stream_json::ResultRecord = serde_json::from_value(json!({
            "subtype": "error_during_execution", "is_error": true, "duration_ms": 1500,
            "duration_api_ms": 1000, "num_turns": 2, "session_id": "s", "total_cost_usd": 0.05,
            "usage": {"input_tokens": 200, "output_tokens": 40, "cache_read_input_tokens": 1800},
            "modelUsage": {}, "permission_denials": [], "uuid": "r", "stop_reason": null,
            "api_error_status": null
        }))
        .unwrap();
        let (_, turn_ended, _) = run(
            &mut map,
            RuntimeEvent::TurnEnded(Box::new(tack_runtime::TurnEnd {
                record,
                ok: false,
                error_line: Some("Error: interrupted".into()),
            })),
        );
        assert!(turn_ended);
        let (.., ended) = run(&mut map, RuntimeEvent::Ended);
        assert!(ended);
        let status = UiEvent::Status(StatusPatch {
            context_used: Some(1_020),
            context_window: Some(200_000),
            ..StatusPatch::default()
        });
        assert_eq!(
            ui,
            vec![
                UiEvent::TurnStarted,
                UiEvent::TextDelta("Building.".into()),
                UiEvent::AssistantMessageDone,
                UiEvent::ToolUseStarted {
                    id: "t1".into(),
                    name: "Bash".into(),
                    input: bash.clone()
                },
                status.clone(),
                UiEvent::PermissionRequest(PermissionRequest {
                    id: "t1".into(),
                    tool_name: "Bash".into(),
                    input: bash,
                    reason: "The reviewer sub-agent asks. Bash needs approval".into(),
                    suggestions: vec!["Bash(make:*)".into()],
                    original: None,
                    choices: Vec::new(),
                }),
                UiEvent::ToolUseFinished {
                    id: "t1".into(),
                    is_error: false,
                    content: "ok".into()
                },
                UiEvent::TextDelta("Built.".into()),
                UiEvent::AssistantMessageDone,
                status,
                UiEvent::TurnResult(TurnSummary {
                    interrupted: true,
                    error: None,
                    cost_usd: 0.05,
                    session_cost_usd: 0.05,
                    input_tokens: 2_000,
                    output_tokens: 40,
                    duration: Duration::from_millis(1500),
                }),
            ]
        );
        assert_eq!(map.session_cost(), 0.05);
    }

    #[test]
    fn a_resumed_conversation_replays_as_history() {
        let messages = vec![
            Message::user_text("fix the bug"),
            Message::assistant(vec![
                ContentBlock::text("Looking."),
                ContentBlock::ToolUse {
                    id: "t1".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "a.rs"}),
                    cache_control: None,
                },
            ]),
            Message::user(vec![ContentBlock::tool_result("t1", "fn a() {}", false)]),
            Message::assistant(vec![ContentBlock::text("Fixed.")]),
            Message::user(vec![
                ContentBlock::text("<bash-input>ls</bash-input>"),
                ContentBlock::text("<bash-stdout>a.rs</bash-stdout><bash-stderr></bash-stderr>"),
                ContentBlock::text("<system-reminder>context</system-reminder>"),
                ContentBlock::text("and now?"),
            ]),
            Message::assistant(vec![ContentBlock::ToolUse {
                id: "t2".into(),
                name: "Bash".into(),
                input: json!({"command": "sleep 9"}),
                cache_control: None,
            }]),
        ];
        let ended = replay(&messages, true);
        assert_eq!(
            ended,
            vec![
                UiEvent::UserPrompt("fix the bug".into()),
                UiEvent::TextDelta("Looking.".into()),
                UiEvent::AssistantMessageDone,
                UiEvent::ToolUseStarted {
                    id: "t1".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "a.rs"})
                },
                UiEvent::ToolUseFinished {
                    id: "t1".into(),
                    is_error: false,
                    content: "fn a() {}".into()
                },
                UiEvent::TextDelta("Fixed.".into()),
                UiEvent::AssistantMessageDone,
                UiEvent::UserPrompt("!ls".into()),
                UiEvent::Notice {
                    level: NoticeLevel::Info,
                    text: "a.rs".into()
                },
                UiEvent::UserPrompt("and now?".into()),
                UiEvent::AssistantMessageDone,
                UiEvent::ToolUseStarted {
                    id: "t2".into(),
                    name: "Bash".into(),
                    input: json!({"command": "sleep 9"})
                },
                UiEvent::ToolUseFinished {
                    id: "t2".into(),
                    is_error: true,
                    content: "Interrupted".into()
                },
            ]
        );
        // Attached to a running turn: the last call is still running.
        assert_eq!(replay(&messages, false), ended[..ended.len() - 1]);
    }

    #[test]
    fn another_terminals_prompt_is_a_user_prompt() {
        let mut input = tack_runtime::UserInput::text("from the other terminal");
        input.uuid = Some("u1".into());
        let mapped = EventMap::default().map(RuntimeEvent::Input(Box::new(input)));
        assert_eq!(
            mapped.events,
            vec![UiEvent::UserPrompt("from the other terminal".into())]
        );
    }

    #[test]
    fn a_rejection_is_shown_short() {
        use tack_runtime::PermissionAnswer;
        let with = PermissionAnswer::reject(Some("use c.txt"));
        let without = PermissionAnswer::reject(None);
        let message = |a: PermissionAnswer| match a {
            PermissionAnswer::Deny { message, .. } => message,
            PermissionAnswer::Allow { .. } => unreachable!(),
        };
        assert_eq!(
            shown_result(message(with)),
            "Rejected by the user: use c.txt"
        );
        assert_eq!(shown_result(message(without)), "Rejected by the user");
        assert_eq!(shown_result("exit 1".into()), "exit 1");
    }

    #[test]
    fn progress_is_one_line_of_text() {
        assert_eq!(progress_text(&json!("compiling")), "compiling");
        assert_eq!(progress_text(&json!({"output": "line 3"})), "line 3");
        assert_eq!(progress_text(&json!({"n": 1})), "{\"n\":1}");
    }
}
