//! Agent SDK mode (`--input-format stream-json`): the front end the official
//! Agent SDKs (and any stream-json client) drive, over the control protocol of
//! `tack_protocol::control` (what the SDKs send: docs/sdk-protocol.md).
//!
//! # Flow
//! 1. The first stdin line is read before the session starts: when it is
//!    `initialize`, its options (hooks by callback id, system prompt) become
//!    session options, so the SDK's hooks see everything from SessionStart on.
//!    Any other first line is handled once the session runs: a plain
//!    stream-json user is not held up.
//! 2. The session runs; stdin is read concurrently with it. User lines become
//!    `Submit` / `Append` commands (queued behind a running turn), control
//!    requests go through the runtime ([`requests`]), and control responses
//!    answer tack's own requests ([`asks`]).
//! 3. The runtime's events render as stream-json records ([`Printer`]), its
//!    permission requests and client hook calls become `can_use_tool` /
//!    `hook_callback` requests. An interrupt's receipt is written before the
//!    result of the turn it stopped, as Claude Code does.
//!
//! stdin is read on a thread of its own from the start ([`mcp`]): the SDK's
//! in-process MCP servers answer tack's `mcp_message` requests on it while the
//! session is still starting.
//!
//! Nothing here persists, runs hooks or decides permissions: that is the
//! runtime's. stdin EOF ends the input: queued turns still run, requests that
//! need an answer from the SDK fail at once, and tack exits after the last
//! result (1 if it was an error). `end_user_input` ends the input too, with
//! stdin still open: tack exits once the turns the prompt brings (a background
//! agent's end wakes one) have run.

mod asks;
mod initialize;
mod mcp;
mod requests;
mod server_configs;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use futures::future::{BoxFuture, FutureExt};
use futures::stream::{FuturesUnordered, StreamExt};
use serde_json::{Map, Value};
use tack_protocol::Message;
use tack_protocol::control::{
    ControlLine, ControlResponse, InitializeRequest, SdkRequest, StdinLine, UserLine,
};
use tack_protocol::stream_json::{StreamJsonRecord, SystemRecord, UserRecord};
use tack_runtime::records::Records;
use tack_runtime::{
    LoadedSettings, Op, Place, RuntimeEvent, RuntimeHandle, SdkBridge, SessionChoice,
    SessionOptions, UserInput,
};
use tokio::sync::mpsc::UnboundedReceiver;

/// stdin's lines, as the reader thread passes them on.
type Lines = UnboundedReceiver<std::io::Result<String>>;

use crate::cli::{Cli, OutputFormat};
use crate::output::Printer;

/// What `system/init` says tack can do beyond the basics: interrupts answered
/// with a queue receipt before the turn's result, and `cancel_queued`; an
/// in-process server's `tools/list_changed` and TypeScript's manifests read.
const CAPABILITIES: &[&str] = &[
    "interrupt_receipt_v1",
    "interrupt_cancel_queued_v1",
    "sdk_mcp_tools_list_changed",
    "sdk_mcp_manifests",
];

/// Runs an SDK session to the end of its input; the exit code reflects the
/// last turn.
pub async fn run(
    cli: &Cli,
    place: Place,
    loaded: LoadedSettings,
    mut options: SessionOptions,
) -> anyhow::Result<ExitCode> {
    let permission_timeout = place
        .env
        .get("TACK_PERMISSION_CALLBACK_TIMEOUT_MS")
        .and_then(|v| v.parse().ok())
        .map_or(asks::DEFAULT_PERMISSION_TIMEOUT, Duration::from_millis);
    let bg_ceiling = crate::print::background_wait_ceiling(&place.env);
    let host = Arc::new(mcp::McpHost::default());
    let bridge = SdkBridge::new(host.clone());
    options.extensions.sdk_mcp = Some(bridge.clone());
    options.conversation.run_pending = true;
    let mut lines = mcp::spawn_reader(host, bridge.clone()).context("cannot read stdin")?;
    let first = first_line(&mut lines).await?;
    let init = first.as_deref().and_then(initialize_request);
    let first = if init.is_some() { None } else { first };
    if let Some((id, request)) = &init
        && let Err(e) = initialize::apply(request, &mut options)
    {
        write_line(&ControlResponse::error(id.clone(), format!("{e:#}")).into_line())?;
        return Err(e);
    }
    let wanted = |key: &str| {
        place
            .env
            .get(key)
            .is_some_and(|v| !v.is_empty() && v != "0")
    };
    let session_state = match (
        wanted("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS"),
        wanted("CLAUDE_CODE_SDK_READS_SESSION_STATE"),
    ) {
        (true, _) => Some(false),
        (false, true) => Some(true),
        (false, false) => None,
    };
    options.front_end.session_state = session_state.is_some();
    let resumed = match &options.conversation.session {
        SessionChoice::Resume(id) if !id.is_empty() => id.clone(),
        _ => uuid::Uuid::new_v4().to_string(),
    };
    let runtime = match tack_runtime::start(place, &loaded, options).await {
        Ok(runtime) => runtime,
        Err(e) => {
            // A refused resume is an error result (the SDKs raise its text);
            // the rest answer `initialize` with the error.
            if let Some(record) = e.result_record(&resumed) {
                write_line(&StreamJsonRecord::Result(record))?;
            } else if let Some((id, _)) = &init {
                write_line(&ControlResponse::error(id.clone(), e.to_string()).into_line())?;
            }
            return Err(e.into());
        }
    };
    let info = runtime.info().clone();
    let mut printer = Printer::new(
        OutputFormat::StreamJson,
        cli.include_partial_messages,
        &info,
        None,
    )
    .forwarding_subagent_text(
        init.as_ref()
            .is_some_and(|(_, r)| r.forward_subagent_text == Some(true)),
    );
    // A resumed session's pending calls (a deferred turn) run first: the SDK
    // closes stdin once `initialize` is answered when it has no prompt to
    // send, so the answer waits until their hooks and permission requests
    // were served (their results, or the turn's end).
    let pending = info.resumed
        && runtime.messages().last().is_some_and(|m| {
            m.role == tack_protocol::Role::Assistant && m.tool_uses().next().is_some()
        });
    let mut held_init = None;
    if let Some((id, request)) = &init {
        let answer = ControlResponse::success(id.clone(), &initialize::response(request, &info))?;
        match pending {
            true => held_init = Some(answer.into_line()),
            false => printer.line(&answer.into_line())?,
        }
    }
    let (handle, events) = runtime.spawn();
    let answers = events.answers();
    let settle: asks::Settle = Box::new(move |ask, answer| {
        // Withdrawn meanwhile: nobody waits for it any more.
        let _ = answers.answer(ask, answer);
    });
    let mut front = Front {
        input: Some(handle),
        printer,
        records: Records::new(info.session_id.clone(), cli.include_partial_messages),
        asks: asks::Asks::new(permission_timeout, settle),
        bg_ceiling,
        answers: FuturesUnordered::new(),
        replay: cli.replay_user_messages,
        input_error: None,
        mcp: bridge,
        held_init,
        session_state,
        started: false,
        early_state: None,
    };
    if let Some(line) = first {
        front.line(&line);
    }
    front.run(lines, events).await
}

/// The first non-blank line (`None` at EOF).
async fn first_line(lines: &mut Lines) -> anyhow::Result<Option<String>> {
    loop {
        match lines
            .recv()
            .await
            .transpose()
            .context("cannot read stdin")?
        {
            Some(line) if line.trim().is_empty() => {}
            other => return Ok(other),
        }
    }
}

/// `line` as an `initialize` request (id, payload), if it is one.
fn initialize_request(line: &str) -> Option<(String, InitializeRequest)> {
    match serde_json::from_str::<StdinLine>(line) {
        Ok(StdinLine::ControlRequest(r)) => match r.request {
            SdkRequest::Initialize(init) => Some((r.request_id, *init)),
            _ => None,
        },
        _ => None,
    }
}

/// One line on stdout before the session (and its printer) exists.
fn write_line(value: &impl serde::Serialize) -> std::io::Result<()> {
    use std::io::Write;
    let mut line = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut out = std::io::stdout().lock();
    out.write_all(&line)?;
    out.flush()
}

/// The running front end.
struct Front {
    /// `None` once stdin is closed (dropping it closes the session's input).
    input: Option<RuntimeHandle>,
    printer: Printer,
    records: Records,
    asks: asks::Asks,
    /// How long the session waits for background agents after `end_user_input`.
    bg_ceiling: Duration,
    /// Answers to the SDK's requests, written as they become ready.
    answers: FuturesUnordered<BoxFuture<'static, ControlResponse>>,
    replay: bool,
    input_error: Option<anyhow::Error>,
    /// The SDK's in-process MCP servers.
    mcp: SdkBridge,
    /// The `initialize` answer, held while a resumed session's pending calls
    /// are checked (see [`run`]).
    held_init: Option<ControlLine>,
    /// `session_state_changed` frames are wanted: `Some(true)` by the SDK
    /// itself (`CLAUDE_CODE_SDK_READS_SESSION_STATE`, marked
    /// `sdk_host_only`), `Some(false)` by its caller
    /// (`CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS`).
    session_state: Option<bool>,
    /// `system/init` was printed.
    started: bool,
    /// A state reported before it, printed right after it.
    early_state: Option<tack_runtime::SessionState>,
}

impl Front {
    async fn run(
        mut self,
        mut lines: Lines,
        mut events: tack_runtime::RuntimeEvents,
    ) -> anyhow::Result<ExitCode> {
        loop {
            tokio::select! {
                biased;
                event = events.next() => match event {
                    Some(event) => if !self.event(event)? { break },
                    None => break,
                },
                Some(answer) = self.answers.next() => self.printer.line(&answer.into_line())?,
                Some(id) = self.asks.tasks.next() => {
                    if let Some(cancel) = self.asks.timed_out(&id) {
                        self.printer.line(&cancel)?;
                    }
                }
                line = lines.recv(), if self.input.is_some() => match line {
                    Some(Ok(line)) => self.line(&line),
                    None => self.close_input(),
                    Some(Err(e)) => {
                        self.input_error = Some(anyhow::Error::new(e).context("cannot read stdin"));
                        self.close_input();
                    }
                },
            }
        }
        while let Some(answer) = self.answers.next().await {
            self.printer.line(&answer.into_line())?;
        }
        if let Some(e) = self.input_error {
            return Err(e);
        }
        Ok(if self.printer.ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }

    fn close_input(&mut self) {
        self.input = None;
        self.asks.close();
    }

    /// Renders one event; `Ok(false)` after the last one.
    fn event(&mut self, event: RuntimeEvent) -> std::io::Result<bool> {
        let checked = matches!(
            event,
            RuntimeEvent::Loop(tack_runtime::LoopEvent::ToolResults(_))
                | RuntimeEvent::TurnEnded(_)
                | RuntimeEvent::Ended
        );
        if checked && let Some(answer) = self.held_init.take() {
            self.printer.line(&answer)?;
        }
        match event {
            RuntimeEvent::Started(info) => {
                let mut init = self.records.init(&info);
                if let StreamJsonRecord::System(SystemRecord::Init(init)) = &mut init {
                    let capabilities = CAPABILITIES
                        .iter()
                        .map(|c| Value::String((*c).to_owned()))
                        .collect();
                    init.extra
                        .insert("capabilities".into(), Value::Array(capabilities));
                }
                self.printer.record(&init)?;
                self.started = true;
                if let (Some(state), Some(host_only)) =
                    (self.early_state.take(), self.session_state)
                {
                    let record = self.records.session_state(state.as_str(), host_only);
                    self.printer.record(&record)?;
                }
                Ok(true)
            }
            RuntimeEvent::PermissionRequest(request) => {
                if let Some(line) = self.asks.permission(*request) {
                    self.printer.line(&line)?;
                }
                Ok(true)
            }
            RuntimeEvent::HookCallback(call) => {
                if let Some(line) = self.asks.hook(*call) {
                    self.printer.line(&line)?;
                }
                Ok(true)
            }
            RuntimeEvent::AskWithdrawn { id } => {
                if let Some(line) = self.asks.withdrawn(id) {
                    self.printer.line(&line)?;
                }
                Ok(true)
            }
            RuntimeEvent::TurnEnded(_) => {
                // An interrupt's receipt was sent before this event: it goes
                // out before the result it announces.
                while let Some(Some(answer)) = self.answers.next().now_or_never() {
                    self.printer.line(&answer.into_line())?;
                }
                self.printer.event(event)
            }
            RuntimeEvent::SessionState(state) => {
                match self.session_state {
                    // After system/init, which a turn's first event brings.
                    Some(_) if !self.started => self.early_state = Some(state),
                    Some(host_only) => {
                        let record = self.records.session_state(state.as_str(), host_only);
                        self.printer.record(&record)?;
                    }
                    None => {}
                }
                Ok(true)
            }
            RuntimeEvent::ConversationReset(reset) => {
                // Replayed user messages carry the new id too.
                self.records.reset(&reset);
                self.printer.event(RuntimeEvent::ConversationReset(reset))
            }
            RuntimeEvent::Notice(_)
            | RuntimeEvent::Hook(_)
            | RuntimeEvent::Loop(_)
            | RuntimeEvent::CompactEnded { .. }
            | RuntimeEvent::Subagent(_)
            | RuntimeEvent::TranscriptMirror(_)
            | RuntimeEvent::Task(_)
            | RuntimeEvent::Teammate(_)
            | RuntimeEvent::PermissionDenied(_)
            | RuntimeEvent::Reply { .. }
            | RuntimeEvent::Input(_)
            | RuntimeEvent::Ended => self.printer.event(event),
        }
    }

    /// One stdin line. A line that is not JSON, or not an object tack can
    /// read, ends the input (an error once the session has ended); a bad
    /// control line is answered (or fails the request it answers) instead.
    fn line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let parsed = match serde_json::from_str::<StdinLine>(line) {
            Ok(parsed) => parsed,
            Err(e) => return self.malformed(line, e),
        };
        match parsed {
            StdinLine::User(user) => self.user(*user),
            StdinLine::ControlRequest(request) if request.request.subtype() == "end_user_input" => {
                self.end_user_input(request.request_id);
            }
            StdinLine::ControlRequest(request) => {
                if let Some(handle) = &self.input {
                    self.answers
                        .push(requests::answer(request, handle, &self.mcp));
                }
            }
            StdinLine::ControlResponse(response) => {
                let id = response.response.request_id().to_owned();
                if !self.asks.answer(&id, Ok(response.response)) {
                    eprintln!(
                        "warning: ignoring a control_response for `{}`: tack is not waiting for it",
                        shown(&id)
                    );
                }
            }
            // The SDK abandons one of its requests: tack answers every request
            // once, when ready; an unwanted answer is harmless.
            StdinLine::ControlCancelRequest(_) => {}
            StdinLine::Other(other) => {
                let kind = other.get("type").and_then(Value::as_str).unwrap_or("");
                if kind != "keep_alive" {
                    eprintln!(
                        "warning: ignoring stdin line of unknown type `{}`",
                        shown(kind)
                    );
                }
            }
        }
    }

    /// `end_user_input`: the SDK sends no further user message. Answered at
    /// once, ahead of anything the prompt brings; the session then ends by
    /// itself (see [`Op::EndInput`]) while stdin stays open for the
    /// answers its hooks, permission requests and in-process servers need,
    /// and tack exits when it has.
    fn end_user_input(&mut self, id: String) {
        let answer = match self.input.as_ref().map(|h| {
            h.send(Op::EndInput {
                wait_ceiling: Some(self.bg_ceiling),
            })
        }) {
            Some(Ok(())) => ControlResponse::empty_success(id),
            Some(Err(e)) => ControlResponse::error(id, e.to_string()),
            None => ControlResponse::error(id, "stdin is closed"),
        };
        if let Err(e) = self.printer.line(&answer.into_line()) {
            self.input_error = Some(anyhow::Error::new(e).context("cannot write stdout"));
        }
    }

    /// A line that did not parse: a control request is answered with the
    /// error, a control response fails the request it answers; anything else
    /// ends the input.
    fn malformed(&mut self, line: &str, error: serde_json::Error) {
        let value: Option<Map<String, Value>> = serde_json::from_str(line).ok();
        let field = |v: &Map<String, Value>, path: &[&str]| {
            let mut cur = v.get(path[0])?;
            for key in &path[1..] {
                cur = cur.get(key)?;
            }
            cur.as_str().map(str::to_owned)
        };
        let kind = value.as_ref().and_then(|v| field(v, &["type"]));
        match (kind.as_deref(), value) {
            (Some("control_request"), Some(v)) => {
                // Without a request id the answer can name no request, but the
                // session goes on (as Claude Code's does).
                let id = field(&v, &["request_id"]).unwrap_or_default();
                let answer = ControlResponse::error(
                    id,
                    format!("invalid control request: {}", shown(&error.to_string())),
                );
                self.answers.push(futures::future::ready(answer).boxed());
                return;
            }
            (Some("control_response"), Some(v)) => {
                if let Some(id) = field(&v, &["response", "request_id"]) {
                    self.asks
                        .answer(&id, Err(format!("invalid control_response: {error}")));
                    return;
                }
            }
            _ => {}
        }
        // The line itself is not echoed: it may be megabytes, or escape
        // sequences for the terminal stderr is on.
        let what = match (kind, serde_json::from_str::<Value>(line).ok()) {
            (Some(kind), _) => format!("a `{}` line", shown(&kind)),
            (None, Some(value)) => format!("a JSON {} line", json_kind(&value)),
            (None, None) => "a line that is not JSON".to_owned(),
        };
        self.input_error = Some(anyhow::anyhow!(
            "invalid stdin line ({}): {what} of {} bytes",
            shown(&error.to_string()),
            line.len()
        ));
        self.close_input();
    }

    /// A user message: a turn, or (`shouldQuery: false`) context for the next
    /// one; echoed first with `--replay-user-messages`.
    fn user(&mut self, line: UserLine) {
        let Some(handle) = &self.input else { return };
        let message = Message::user(line.message.content);
        // A replayed message's uuid is the one the SDK may name later
        // (`rewind_files`): the runtime gets that same id.
        let uuid = match (line.uuid, self.replay) {
            (None, true) => Some(uuid::Uuid::new_v4().to_string()),
            (uuid, _) => uuid,
        };
        if self.replay {
            let mut extra = Map::new();
            extra.insert("isReplay".into(), Value::Bool(true));
            let record = StreamJsonRecord::User(UserRecord {
                message: serde_json::to_value(&message).unwrap_or(Value::Null),
                parent_tool_use_id: line.parent_tool_use_id.clone(),
                session_id: self.records.session_id.clone(),
                uuid: uuid.clone().unwrap_or_default(),
                timestamp: None,
                tool_use_result: None,
                is_synthetic: None,
                extra,
            });
            if let Err(e) = self.printer.record(&record) {
                self.input_error = Some(anyhow::Error::new(e).context("cannot write stdout"));
            }
        }
        let input = UserInput {
            message,
            uuid,
            origin: line.origin,
            verbatim: line.client_composed == Some(true),
        };
        let sent = match line.should_query {
            Some(false) => handle.send(Op::Append(input)),
            Some(true) | None => handle.submit(input),
        };
        if sent.is_err() {
            self.close_input();
        }
    }
}

/// Text from stdin, fit for a line on stderr: control characters visible, at
/// most 200 characters.
fn shown(text: &str) -> String {
    let text = tack_sys::terminal_text::visible(text);
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
