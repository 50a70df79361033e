//! Print mode (`-p`, and `--input-format stream-json`): a front end of the
//! session runtime. It turns flags into session options, sends the prompt (or
//! each stdin line) as commands and renders the runtime's events; everything
//! else (persistence, hooks, permissions, results) is the runtime's.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::{Value, json};
use tack_permissions::PermissionMode;
use tack_protocol::Message;
use tack_runtime::{
    InterruptOutcome, LoadedSettings, Place, RuntimeHandle, SessionChoice, SessionOptions,
    UserInput,
};
use tokio::io::AsyncBufReadExt;

use crate::cli::{Cli, InputFormat, OutputFormat, split_rules};
use crate::output::Printer;
use crate::progress::Progress;

/// Piped stdin is read up to this size (as Claude Code does).
const MAX_STDIN_BYTES: u64 = 10 * 1024 * 1024;

/// Flag combinations Claude Code rejects before starting; same messages.
pub fn validate(cli: &Cli) -> anyhow::Result<()> {
    let print = cli.print || cli.input_format == InputFormat::StreamJson;
    if print && cli.output_format == OutputFormat::StreamJson && !cli.verbose {
        bail!("When using --print, --output-format=stream-json requires --verbose");
    }
    if cli.include_partial_messages && cli.output_format != OutputFormat::StreamJson {
        bail!("--include-partial-messages requires --print and --output-format=stream-json");
    }
    if cli.input_format == InputFormat::StreamJson && cli.output_format != OutputFormat::StreamJson
    {
        bail!("--input-format=stream-json requires output-format=stream-json");
    }
    if let Some(id) = &cli.session_id
        && !tack_store::is_valid_session_id(id)
    {
        bail!("Invalid session ID. Must be a valid UUID.");
    }
    if cli.continue_session && cli.resume.is_some() {
        bail!("--continue and --resume cannot be used together");
    }
    if let Some(b) = cli.max_budget_usd
        && (b.is_nan() || b <= 0.0)
    {
        bail!("--max-budget-usd must be a positive number");
    }
    Ok(())
}

/// The session options the flags ask for.
pub fn session_options(cli: &Cli) -> SessionOptions {
    let session = if cli.continue_session {
        SessionChoice::Continue
    } else if let Some(id) = &cli.resume {
        SessionChoice::Resume(id.clone())
    } else {
        SessionChoice::New {
            id: cli.session_id.clone(),
        }
    };
    SessionOptions {
        model: cli.model.clone(),
        fallback_model: cli.fallback_model.clone(),
        permission_mode: if cli.dangerously_skip_permissions {
            Some(PermissionMode::BypassPermissions)
        } else {
            cli.permission_mode
        },
        allowed_tools: split_rules(&cli.allowed_tools),
        disallowed_tools: split_rules(&cli.disallowed_tools),
        add_dirs: cli.add_dir.clone(),
        system_prompt: cli.system_prompt.clone(),
        append_system_prompt: cli.append_system_prompt.clone(),
        max_turns: cli.max_turns,
        max_budget_usd: cli.max_budget_usd,
        session,
        persist: !cli.no_session_persistence,
        verbose: cli.verbose,
        permission_prompts: false,
        agents: cli.agents.clone(),
    }
}

/// The prompt for text input: the argument and/or piped stdin.
pub fn read_prompt(cli: &Cli) -> anyhow::Result<String> {
    let stdin = std::io::stdin();
    let piped = if stdin.is_terminal() {
        None
    } else if cli.prompt.is_some() && !stdin_ready(Duration::from_millis(50)) {
        // A prompt was given and nothing is waiting on stdin: do not block on a
        // pipe nobody writes to.
        None
    } else {
        let mut buf = String::new();
        stdin
            .lock()
            .take(MAX_STDIN_BYTES)
            .read_to_string(&mut buf)
            .context("cannot read stdin")?;
        Some(buf)
    };
    let piped = piped.filter(|s| !s.trim().is_empty());
    match (&cli.prompt, piped) {
        (Some(p), Some(s)) => Ok(format!("{p}\n\n{s}")),
        (Some(p), None) if !p.trim().is_empty() => Ok(p.clone()),
        (None, Some(s)) => Ok(s),
        _ => bail!(
            "Input must be provided either through stdin or as a prompt argument when using --print"
        ),
    }
}

fn stdin_ready(timeout: Duration) -> bool {
    let mut fds = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for fd 0.
    let n = unsafe { libc::poll(&mut fds, 1, timeout.as_millis() as libc::c_int) };
    n > 0
}

/// Runs print mode to the end; the exit code reflects the last turn.
/// `prompt`: text input; `None`: user messages as JSON lines on stdin.
pub async fn run(
    cli: &Cli,
    place: Place,
    loaded: LoadedSettings,
    options: SessionOptions,
    prompt: Option<String>,
    narrate: bool,
) -> anyhow::Result<ExitCode> {
    let runtime = tack_runtime::start(place, &loaded, options).await?;
    let progress = (cli.output_format == OutputFormat::Text
        && std::io::stderr().is_terminal()
        && std::io::stdout().is_terminal())
    .then(Progress::start);
    let mut printer = Printer::new(
        cli.output_format,
        cli.include_partial_messages,
        runtime.info(),
        progress,
    )
    .narrating(narrate);
    let (handle, mut events) = runtime.spawn();
    let mut input_error = None;
    match prompt {
        Some(prompt) => {
            handle.submit(UserInput::text(prompt))?;
            drop(handle);
            while let Some(event) = events.next().await {
                if !printer.event(event)? {
                    break;
                }
            }
        }
        None => {
            let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
            let mut input = Some(handle);
            let mut controls = FuturesUnordered::new();
            loop {
                tokio::select! {
                    // Events first: an interrupt's answer is printed after the
                    // result of the turn it ended.
                    biased;
                    event = events.next() => match event {
                        Some(event) => if !printer.event(event)? { break },
                        None => break,
                    },
                    Some(response) = controls.next() => printer.json_line(&response)?,
                    line = lines.next_line(), if input.is_some() => {
                        let handle = input.as_ref().expect("guarded by the branch condition");
                        match line {
                            Ok(Some(line)) => match stdin_line(&line, handle) {
                                Ok(Some(control)) => controls.push(control),
                                Ok(None) => {}
                                Err(e) => {
                                    input_error = Some(e);
                                    input = None;
                                }
                            },
                            Ok(None) => input = None,
                            Err(e) => {
                                input_error = Some(anyhow::Error::new(e).context("cannot read stdin"));
                                input = None;
                            }
                        }
                    }
                }
            }
            while let Some(response) = controls.next().await {
                printer.json_line(&response)?;
            }
        }
    }
    if let Some(e) = input_error {
        return Err(e);
    }
    Ok(if printer.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

type ControlAnswer = std::pin::Pin<Box<dyn std::future::Future<Output = Value> + Send>>;

/// One stdin line: a user message (sent as a command) or a control request
/// (its answer, once known). A line that is not JSON ends the input.
fn stdin_line(line: &str, handle: &RuntimeHandle) -> anyhow::Result<Option<ControlAnswer>> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let value: Value =
        serde_json::from_str(line).with_context(|| format!("invalid JSON on stdin: {line}"))?;
    match value.get("type").and_then(Value::as_str) {
        Some("user") => {
            let message: Message =
                serde_json::from_value(value.get("message").cloned().unwrap_or(Value::Null))
                    .with_context(|| format!("invalid user message on stdin: {line}"))?;
            let uuid = value.get("uuid").and_then(Value::as_str).map(str::to_owned);
            handle.submit(UserInput {
                message: Message::user(message.content),
                uuid,
            })?;
            Ok(None)
        }
        Some("control_request") => Ok(Some(control_answer(&value, handle))),
        _ => {
            eprintln!("warning: ignoring stdin line of unknown type: {line}");
            Ok(None)
        }
    }
}

/// The answer to an SDK `control_request`: `interrupt` goes through the
/// runtime and is answered once the turn has ended; `initialize` is
/// acknowledged; others get an error response (issue 13 implements them).
fn control_answer(request: &Value, handle: &RuntimeHandle) -> ControlAnswer {
    let id = request.get("request_id").cloned().unwrap_or(Value::Null);
    let subtype = request
        .pointer("/request/subtype")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let success = |id: Value, response: Value| json!({"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": response}});
    match subtype.as_str() {
        "initialize" => {
            let response = json!({"commands": [], "agents": [], "output_style": "default",
                "available_output_styles": ["default"], "models": [], "account": {}});
            Box::pin(std::future::ready(success(id, response)))
        }
        "interrupt" => {
            let handle = handle.clone();
            Box::pin(async move {
                match handle.interrupt().await {
                    Ok(InterruptOutcome::Interrupted | InterruptOutcome::Idle) => {
                        success(id, json!({"still_queued": []}))
                    }
                    Err(e) => {
                        json!({"type": "control_response", "response": {"subtype": "error", "request_id": id, "error": e.to_string()}})
                    }
                }
            })
        }
        other => {
            let error = format!("unsupported control request: {other}");
            Box::pin(std::future::ready(
                json!({"type": "control_response", "response": {"subtype": "error", "request_id": id, "error": error}}),
            ))
        }
    }
}
