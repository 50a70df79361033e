//! `tack --bg [prompt]` (or the prompt piped to it): makes the job folder,
//! starts the session process detached from this one (its own session via `setsid`, stdin from
//! `/dev/null`, output to the folder's `out.log` and `err.log`), writes the
//! first `state.json` unless the session already has (a busy machine may
//! run it first), prints `backgrounded · <id>` and returns. Nothing
//! heavy happens here (no settings, no runtime): the session process reads
//! and checks everything itself, with the same flags minus `--bg`.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::Ordering;

use anyhow::Context;

use super::job::{self, JobState};
use crate::cli::Cli;

/// Starts the background session `cli` asks for, from the folder `cwd`.
pub fn run(cli: &Cli, cwd: &Path, claude_dir: &Path) -> anyhow::Result<ExitCode> {
    let (id, dir) = new_job_dir(claude_dir)?;
    // Its own transcript id, known before it starts, unless it resumes one.
    // Piped text is the prompt when none is given (as `tack -p` reads it).
    let piped = match cli.prompt {
        Some(_) => None,
        None => piped_prompt()?,
    };
    let session_id = (cli.resume.is_none() && !cli.continue_session).then(|| {
        cli.session_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
    });
    let mut args: Vec<OsString> = std::env::args_os()
        .skip(1)
        .filter(|a| a != "--bg")
        .collect();
    // Its own flags go before a `--` of the user's (after it they would be
    // read as the prompt).
    let mut own: Vec<OsString> = vec!["--bg-job".into(), dir.clone().into()];
    if let (Some(id), None) = (&session_id, &cli.session_id) {
        own.push("--session-id".into());
        own.push(id.into());
    }
    let at = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.splice(at..at, own);
    if let Some(prompt) = &piped {
        if !args.iter().any(|a| a == "--") {
            args.push("--".into());
        }
        args.push(prompt.into());
    }
    // What `respawn` starts it with again: all of it if it died before its
    // transcript began, else less its prompt and session choice (sorted out
    // then: reading them as clap does is not free).
    super::kept_args::keep(&dir, &args)?;
    super::kept_env::keep(&dir)?;
    let child = spawn_detached(&args, &dir, cwd, None)?;
    let prompt = cli.prompt.as_deref().or(piped.as_deref());
    let mut state = JobState::launched(&id, child, cwd.to_path_buf(), prompt);
    if let Some(name) = &cli.name {
        state = state.named(name);
    }
    state.session_id = session_id;
    // The session may have written its own row already (it is running).
    state.write_new(&dir)?;
    super::LAUNCHED.store(true, Ordering::Relaxed);
    println!("backgrounded · {id}");
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        // For a person (a script reads the first line alone, as Claude
        // Code's shows them too).
        let tack = crate::self_command::tack_command();
        println!("  {tack} agents            list sessions");
        println!("  {tack} attach {id}    open in this terminal");
        println!("  {tack} logs {id}      show the conversation");
        println!("  {tack} stop {id}      stop this session");
    }
    Ok(ExitCode::SUCCESS)
}

/// A new job's folder (0700) under the config dir's `jobs/`, and its id.
pub(super) fn new_job_dir(claude_dir: &Path) -> anyhow::Result<(String, std::path::PathBuf)> {
    let jobs = job::jobs_dir(claude_dir);
    tack_sys::private_file::create_dirs_private(&jobs)
        .with_context(|| format!("cannot make {}", jobs.display()))?;
    loop {
        let id = job::new_id();
        let dir = jobs.join(&id);
        use std::os::unix::fs::DirBuilderExt;
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok((id, dir)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot make {}", dir.display())),
        }
    }
}

/// The most a piped prompt may be: it is passed on as one argument, which
/// Linux caps at 128 KiB.
const MAX_PIPED_PROMPT: usize = 100 * 1024;

/// What stdin holds when it is not a terminal (`None`: nothing but
/// blanks). It is passed on as the session's prompt argument.
fn piped_prompt() -> anyhow::Result<Option<String>> {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(None);
    }
    let mut text = String::new();
    let limit = u64::try_from(MAX_PIPED_PROMPT + 1).unwrap_or(u64::MAX);
    stdin
        .lock()
        .take(limit)
        .read_to_string(&mut text)
        .context("cannot read stdin")?;
    if text.len() > MAX_PIPED_PROMPT {
        anyhow::bail!("a prompt piped to --bg is at most {MAX_PIPED_PROMPT} bytes");
    }
    Ok(Some(text).filter(|t| !t.trim().is_empty()))
}

/// Runs this binary with `args` in a session of its own; returns its pid.
/// `team_vars`: the team variables it gets instead of this process's.
pub(super) fn spawn_detached(
    args: &[OsString],
    dir: &Path,
    cwd: &Path,
    team_vars: Option<&[(String, String)]>,
) -> anyhow::Result<u32> {
    let log = |name: &str| {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(dir.join(name))
    };
    let exe = std::env::current_exe().context("cannot find the tack binary")?;
    let mut command = Command::new(exe);
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(log("out.log")?)
        .stderr(log("err.log")?);
    if let Some(vars) = team_vars {
        super::kept_env::apply(&mut command, vars);
    }
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only `setsid`, which is async-signal-safe
    // and touches no memory of ours.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command
        .spawn()
        .context("cannot start the background session")?;
    Ok(child.id())
}
