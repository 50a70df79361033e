//! Print mode (`-p`): a front end of the session runtime. It turns flags into
//! session options, sends the prompt as a command and renders the runtime's
//! events; everything else (persistence, hooks, permissions, results) is the
//! runtime's. `--input-format stream-json` is Agent SDK mode (`crate::sdk`).

use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use tack_runtime::PermissionMode;
use tack_runtime::{
    ConversationOptions, Env, ExtensionOptions, FrontEndOptions, LoadedSettings, Op,
    PermissionOptions, Place, PluginDir, RequestOptions, SessionChoice, SessionOptions, UserInput,
};

use crate::cli::{Cli, InputFormat, OutputFormat, split_rules};
use crate::output::{Narration, Printer};
use crate::progress::Progress;

/// Piped stdin is read up to this size (as Claude Code does).
const MAX_STDIN_BYTES: u64 = 10 * 1024 * 1024;

/// How long print mode waits for background agents after the last result,
/// unless `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` says otherwise (Claude Code's
/// cap: 10 minutes).
const BACKGROUND_WAIT_CEILING: Duration = Duration::from_secs(600);

/// How long print mode (and the SDKs' `end_user_input`) waits for background
/// agents to end and run the turns they wake.
pub fn background_wait_ceiling(env: &Env) -> Duration {
    env.get("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS")
        .and_then(|v| v.trim().parse().ok())
        .map_or(BACKGROUND_WAIT_CEILING, Duration::from_millis)
}

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
        && !tack_runtime::is_valid_session_id(id)
    {
        bail!("Invalid session ID. Must be a valid UUID.");
    }
    if cli.continue_session && cli.resume.is_some() {
        bail!("--continue and --resume cannot be used together");
    }
    if cli.session_id.is_some() && (cli.continue_session || cli.resume.is_some()) {
        bail!("--session-id cannot be used with --continue or --resume");
    }
    if cli.max_turns == Some(0) {
        bail!("--max-turns must be at least 1");
    }
    if let Some(b) = cli.max_budget_usd
        && (b.is_nan() || b <= 0.0)
    {
        bail!("--max-budget-usd must be a positive number");
    }
    if let Some(t) = cli.timeout
        && !(t.is_finite() && t > 0.0)
    {
        bail!("--timeout must be a positive number of seconds");
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
        request: RequestOptions {
            model: cli.model.clone(),
            fallback_model: cli.fallback_model.clone(),
            system_prompt: cli.system_prompt.clone(),
            append_system_prompt: cli.append_system_prompt.clone(),
            max_turns: cli.max_turns,
            max_budget_usd: cli.max_budget_usd,
            ..Default::default()
        },
        permissions: PermissionOptions {
            mode: if cli.dangerously_skip_permissions {
                Some(PermissionMode::BypassPermissions)
            } else {
                cli.permission_mode
            },
            allowed_tools: split_rules(&cli.allowed_tools),
            disallowed_tools: split_rules(&cli.disallowed_tools),
            add_dirs: cli.add_dir.clone(),
            sandbox: cli.sandbox,
            ..Default::default()
        },
        conversation: ConversationOptions {
            session,
            persist: !cli.no_session_persistence,
            ..Default::default()
        },
        extensions: ExtensionOptions {
            mcp_config: cli.mcp_config.clone(),
            strict_mcp_config: cli.strict_mcp_config,
            agents: cli.agents.clone(),
            agent: cli.agent.clone(),
            teammates: crate::background::teammates::options(cli),
            plugin_dirs: cli
                .plugin_dir
                .iter()
                .map(PluginDir::new)
                .chain(
                    cli.plugin_dir_no_mcp
                        .iter()
                        .map(|p| PluginDir::new(p).without_mcp()),
                )
                .collect(),
            ..Default::default()
        },
        front_end: FrontEndOptions {
            verbose: cli.verbose,
            ..Default::default()
        },
        ..SessionOptions::default()
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

/// Runs print mode to the end; the exit code reflects the last turn, and
/// refused calls in text mode (`crate::refusals`). A reader that closes
/// stdout early (`| head -1`) ends the run quietly, with 141 as a process
/// SIGPIPE killed. (User messages as JSON lines on stdin are Agent SDK mode:
/// `crate::sdk`.) `narrate`: `tack demo`'s transcript on stdout.
pub async fn run(
    cli: &Cli,
    place: Place,
    loaded: LoadedSettings,
    options: SessionOptions,
    prompt: String,
    narrate: Option<Narration>,
) -> anyhow::Result<ExitCode> {
    let wait_ceiling = Some(background_wait_ceiling(&place.env));
    let cwd = place.cwd.clone();
    let runtime = tack_runtime::start(place, &loaded, options).await?;
    let progress = (cli.output_format == OutputFormat::Text
        && std::io::stderr().is_terminal()
        && std::io::stdout().is_terminal())
    .then(|| Progress::start(&cwd));
    let mut printer = Printer::new(
        cli.output_format,
        cli.include_partial_messages,
        runtime.info(),
        progress,
    )
    .narrating(narrate);
    let (handle, mut events) = runtime.spawn();
    handle.submit(UserInput::text(prompt))?;
    // Like `claude -p`: background agents are awaited, and the turns their
    // ends wake run, before the session ends.
    handle.send(Op::EndInput { wait_ceiling })?;
    let limit = cli.timeout.map(Duration::from_secs_f64);
    let ended = print_until(&mut printer, &mut events, handle, limit).await;
    let ended = ended.and_then(|timed_out| Ok(printer.finish().map(|()| timed_out)?));
    let timed_out = match ended {
        Err(e) if stdout_closed(&e) => return Ok(ExitCode::from(STDOUT_CLOSED_EXIT)),
        other => other?,
    };
    let text = cli.output_format == OutputFormat::Text;
    if text {
        for line in printer.refusals.summary() {
            eprintln!("{}", tack_sys::terminal_text::visible(&line));
        }
    }
    let refused = text && printer.refusals.for_want_of_a_prompt();
    Ok(match (timed_out, printer.ok && !refused) {
        (true, _) => ExitCode::from(TIMED_OUT_EXIT),
        (false, true) => ExitCode::SUCCESS,
        (false, false) => ExitCode::from(1),
    })
}

/// The exit code after stdout was closed under us: 128 + SIGPIPE, what a
/// shell reports for a tool the signal ended (`yes | head -1`).
pub const STDOUT_CLOSED_EXIT: u8 = 141;

/// The error is a write to a closed pipe.
fn stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `--timeout`'s exit code (as coreutils' `timeout`).
const TIMED_OUT_EXIT: u8 = 124;

/// After `--timeout`, how long the interrupted session gets to end.
const TIMEOUT_GRACE: Duration = Duration::from_secs(5);

/// Renders events until the session ends, or (`limit`) until the wall-clock
/// limit: then the turn is interrupted and the session gets a moment to end
/// (its result printed). `true` when the limit was reached.
async fn print_until(
    printer: &mut Printer,
    events: &mut tack_runtime::RuntimeEvents,
    handle: tack_runtime::RuntimeHandle,
    limit: Option<Duration>,
) -> anyhow::Result<bool> {
    let Some(limit) = limit else {
        drop(handle);
        while let Some(event) = events.next().await {
            if !printer.event(event)? {
                break;
            }
        }
        return Ok(false);
    };
    let mut deadline = tokio::time::Instant::now() + limit;
    let mut timed_out = false;
    loop {
        tokio::select! {
            event = events.next() => {
                let more = match event {
                    Some(event) => printer.event(event)?,
                    None => false,
                };
                if !more {
                    return Ok(timed_out);
                }
            }
            () = tokio::time::sleep_until(deadline) => {
                if timed_out {
                    return Ok(true);
                }
                timed_out = true;
                eprintln!("tack: --timeout of {} s reached; stopping", limit.as_secs_f64());
                let interrupter = handle.clone();
                tokio::spawn(async move { interrupter.interrupt().await });
                deadline = tokio::time::Instant::now() + TIMEOUT_GRACE;
            }
        }
    }
}
