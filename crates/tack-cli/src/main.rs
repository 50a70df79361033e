//! `tack`: the binary. Print mode (`print.rs`), interactive mode
//! (`interactive/`), Agent SDK mode (`sdk/`) and `tack demo` (`demo.rs`) are
//! front ends of the session runtime (`tack-runtime`).
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - the release link's function order: the functions a session runs placed together, most
//!   instructions first, so a session maps ~4 MiB of code instead of ~8.6 (`hot-symbols.txt`
//!   from `scripts/hot-symbols.sh` + `hot_symbols.py`: every function callgrind sees the
//!   stripped release binary run, named through the link's map; passed to LLD by `build.rs`;
//!   names carry crate hashes, so rerun after a workspace dependency change); the relocation
//!   table's pages handed back once the loader is done (`tack-sys/src/relocation_pages.rs`,
//!   first thing in `main`): `tack-cli/{build.rs,hot-symbols.txt}`, `scripts/hot-symbols.sh`,
//!   `tack-sys/src/relocation_pages.rs`
//! - flags, print mode (text / json / stream-json out; a sub-agent's text only with
//!   `forwardSubagentText`; background agents awaited through `Command::EndInput` up to
//!   `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`, text and json printing the last turn's result,
//!   stream-json every one: `runtime/input_end.rs`; `--timeout`: the turn interrupted at the
//!   wall-clock limit, exit 124: `print_until`; refused calls said at the end, text mode exits 1:
//!   `refusals.rs`; a closed stdout ends quietly, 141), terminal progress and the demo's piped
//!   transcript (calls paired with results, drawn by the terminal UI's cell: `tool_lines.rs`),
//!   demo (the terminal UI on a terminal), `tack trust`:
//!   `tack-cli/src/{cli,main,print,output,progress,tool_lines,refusals,demo}.rs`
//! - settings' `env` set in the process and the session's `Env` (every front end, while
//!   single-threaded): `tack-cli/src/settings_env.rs`
//! - `tack doctor`: settings, trust, credentials, hooks, MCP servers (scope, file, transport,
//!   approval; none started): `tack-cli/src/doctor.rs`
//! - start-up and peak-memory benches (whole `tack -p` processes):
//!   `tack-cli/benches/{startup,memory}.rs`
//! - the Agent SDKs' flags: implemented, or refused with an error naming them:
//!   `tack-cli/src/flags.rs`
//! - Agent SDK mode: `initialize` before the session starts (TypeScript's `sdkMcpServers`
//!   become `{"type": "sdk"}` servers; `sdkMcpServerConfigs` gives a server its tool-call
//!   timeout, kept by the `SdkBridge`, and its tools' `always_ask` / `always_deny` policies,
//!   rules of their own source `sdkMcpServerConfigs` through
//!   `PermissionOptions::sdk_tool_policy`), stdin read on a thread of its own from the first line
//!   with answers to `mcp_message` requests routed there (`mcp.rs`: the `SdkHost`), stdin read
//!   beside the turn, the SDK's control requests (`get_context_usage` from the runtime's
//!   `SessionSnapshot`, `stop_task` through `Command::StopTask`, `end_user_input` through
//!   `Command::EndInput`: the session ends itself once nothing is left to run or wake),
//!   `can_use_tool` / `hook_callback` with timeouts and cancels, interrupt receipts before the
//!   result: `tack-cli/src/sdk/{mod,initialize,server_configs,requests,asks,mcp}.rs`
//! - interactive mode (`tack` with no `-p`): trust dialog, first frame, then the loop (keys,
//!   runtime events, background work in; UI drawn; actions to commands, one handler each):
//!   `tack-cli/src/interactive/{mod,driver}.rs`
//! - runtime events → UI events; a resumed conversation replayed as history:
//!   `tack-cli/src/interactive/map.rs`
//! - what `/cost` `/context` `/status` `/permissions` `/hooks` `/config` `/memory` show:
//!   `tack-cli/src/interactive/info.rs`
//! - `tack plugin …`: flags, output like `claude plugin`, the `marketplace.json` URL fetch
//!   (reqwest + tack-api's TLS); a command that changes the state holds an exclusive `flock` on
//!   the plugins folder for its whole read-modify-write (`PluginsDir::lock`,
//!   `tack-sys/src/file_lock.rs`), so concurrent installs lose no entry:
//!   `tack-cli/src/plugin.rs`
//! - `--worktree [name]`: the session in a new worktree (WorktreeCreate / WorktreeRemove hooks
//!   replace git's creation and hear of removal; `worktree.baseRef`; base `origin/HEAD` if known, never
//!   fetched; `.worktreeinclude`'s ignored files copied in: `worktree::copy_included`, regular
//!   files only), the process's folder moved there before anything reads it; settled at the end
//!   (removed if unchanged, else kept and named): `tack-cli/src/session_worktree.rs`, `main.rs`
//! - background sessions: `--bg` starts a detached session process serving the protocol on
//!   `jobs/<id>/session.sock` and keeping `jobs/<id>/state.json` from its own events; `agents`,
//!   `logs`, `stop`, `rm`, `respawn` read the job folders: `tack-cli/src/background/`,
//!   `docs/bg-design.md`
//! - `tack batch`: the tasks file (SWE-bench's names too), one `tack -p --output-format json`
//!   child per task (own process group, `PR_SET_PDEATHSIG`, stdin prompt, `--session-id`), up
//!   to `--parallel` at once on a current-thread runtime, each in a worktree / snapshot copy
//!   made under a per-repository lock; results appended whole and synced when a task ends (a
//!   torn last line cut at start), so a rerun skips what finished; `--shard I/N`, batch budget,
//!   progress line: `tack-cli/src/batch/{mod,task,results,workspace,child,progress}.rs`
//! - engines people run: Ray (`tack_ray.py`: one Ray task per task, the driver appends
//!   results), a Kubernetes Indexed Job (`--shard $(JOB_COMPLETION_INDEX)/N`), a Harbor agent
//!   class (Harbor's claude-code agent installing tack); the static build and its empty-root
//!   smoke test: `integrations/{ray,kubernetes,harbor}/`, `scripts/build-static.sh`; tests
//!   `tack-cli/tests/{batch,ray,kubernetes,worktree,agent_worktrees,harness}.rs`

mod auto_mode;
mod background;
mod batch;
mod cli;
mod demo;
mod doctor;
mod flags;
mod interactive;
mod mcp;
mod output;
mod plugin;
mod plugin_catalog;
mod print;
mod progress;
mod refusals;
mod sdk;
mod self_command;
mod serve;
mod session_worktree;
mod settings_env;
mod tool_lines;

use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use tack_git::prefetch::GitPrefetch;
use tack_git::snapshot::SNAPSHOT_TIMEOUT;
use tack_runtime::{Env, Place};

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    // Re-executed as a sandboxed command's namespace init: nothing else of
    // tack starts (no runtime, no threads), so this costs about a millisecond.
    #[cfg(target_os = "linux")]
    {
        let mut args = std::env::args_os();
        if args
            .nth(1)
            .is_some_and(|a| a == tack_runtime::SANDBOX_INIT_ARG)
        {
            let code = tack_runtime::sandbox_init_main(args.collect());
            return ExitCode::from(u8::try_from(code).unwrap_or(255));
        }
    }
    // The loader is done with the relocation table (~850 KiB resident).
    let _ = tack_sys::relocation_pages::release_relocation_table();
    // Orphans of what tack starts (`setsid cmd &`) are adopted by tack, not
    // init, so the session can stop them when it ends.
    let _ = tack_sys::reaper::become_subreaper();
    let code = run_main();
    // Nothing a session started outlives it (the runtime is gone by now),
    // but the background session `--bg` started is meant to.
    if !background::launched() {
        tack_sys::reaper::kill_descendants(std::time::Duration::from_secs(1));
    }
    code
}

fn run_main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => 1,
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let job = cli.bg_job.clone().map(|dir| (dir, cli.prompt.clone()));
    let ran = run(cli);
    if let (Some((dir, prompt)), Err(_)) = (&job, &ran) {
        // A background session that could not start says so in its row.
        background::session::failed_to_start(dir, prompt.as_deref());
    }
    match ran {
        Ok(code) => code,
        Err(e) => {
            // An error may quote a name or a file from outside (a plugin, a
            // marketplace, settings): its escapes are shown, never obeyed.
            let text = tack_sys::error_text::chain(e.as_ref());
            eprintln!("Error: {}", tack_sys::terminal_text::visible(&text));
            ExitCode::from(1)
        }
    }
}

/// The folder `tack trust` records: resolved (symlinks, `..`), an existing
/// directory, and not one whose trust would cover every project below it
/// unless forced.
fn trust_target(
    cwd: &std::path::Path,
    dir: Option<std::path::PathBuf>,
    force: bool,
    home: Option<&std::path::Path>,
) -> anyhow::Result<std::path::PathBuf> {
    let dir = match dir {
        Some(d) => cwd.join(d),
        None => tack_config::find_project_dir(cwd),
    };
    let resolved = dir
        .canonicalize()
        .with_context(|| format!("cannot trust {}", dir.display()))?;
    if !resolved.is_dir() {
        anyhow::bail!("cannot trust {}: it is not a folder", dir.display());
    }
    if let Some(why) = tack_runtime::too_broad_to_trust(&resolved, home)
        && !force
    {
        anyhow::bail!(
            "refusing to trust {}: {why}. Trust the project folder instead, or pass --force",
            resolved.display()
        );
    }
    Ok(resolved)
}

fn run(mut cli: Cli) -> anyhow::Result<ExitCode> {
    print::validate(&cli)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    // A background session resumes its own; a fork writes a new transcript.
    if cli.bg_job.is_none() && !cli.fork_session {
        let resumed = cli.resume.as_deref().filter(|id| !id.is_empty());
        if resumed.is_some() || cli.continue_session {
            let place = Place::new(cwd.clone(), Env::from_process())?;
            background::live::check_resume(&place, &cwd, resumed)?;
        }
    }
    if cli.bg {
        let place = Place::new(cwd.clone(), Env::from_process())?;
        return background::launch::run(&cli, &cwd, &place.claude_dir);
    }
    match cli.command.take() {
        Some(Command::Background(command)) => {
            let place = Place::new(cwd, Env::from_process())?;
            return background::commands::run(&place, &command);
        }
        Some(Command::Mcp(command)) => {
            let place = Place::new(cwd, Env::from_process())?;
            return runtime()?.block_on(mcp::run(&place, command));
        }
        Some(Command::Plugin(command)) => {
            return plugin::run(&Place::new(cwd, Env::from_process())?, command);
        }
        Some(Command::Attach { id }) => return interactive::attach::run(&cwd, &id),
        Some(Command::Acp) => {
            runtime()?.block_on(tack_acp::run())?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Demo { keep }) => return demo::run(&cli, keep),
        Some(Command::Batch(args)) => return batch::run(args, &cwd),
        Some(Command::AutoMode(command)) => {
            return auto_mode::run(&Place::new(cwd, Env::from_process())?, command);
        }
        Some(Command::Doctor) => {
            return doctor::run(&Place::new(cwd, Env::from_process())?);
        }
        Some(Command::Trust {
            dir,
            allow_external_imports,
            force,
        }) => {
            let place = Place::new(cwd.clone(), Env::from_process())?;
            let dir = trust_target(&cwd, dir, force, place.home_dir.as_deref())?;
            place.trust_store().trust(&dir, allow_external_imports)?;
            println!("Trusted {}", dir.display());
            return Ok(ExitCode::SUCCESS);
        }
        None => {}
    }
    let Some(name) = cli.worktree.take() else {
        return run_session(cli, cwd, None);
    };
    let worktree = session_worktree::enter(&cwd, &name, &cli)?;
    background::worktree::record(cli.bg_job.as_deref(), worktree.made())?;
    // Single-threaded still: hooks, tools and git read the process's folder.
    std::env::set_current_dir(&worktree.cwd)?;
    let ran = run_session(cli, worktree.cwd.clone(), Some(worktree.status()));
    worktree.leave();
    ran
}

/// A session (print, SDK or interactive) in `cwd`, in the `--worktree`
/// session's `worktree` if any.
fn run_session(
    cli: Cli,
    cwd: std::path::PathBuf,
    worktree: Option<tack_tui::status::Worktree>,
) -> anyhow::Result<ExitCode> {
    if cli.demo {
        return demo::run(&cli, false);
    }
    let served = cli.serve.is_some() || cli.bg_job.is_some();
    if !cli.print && cli.input_format != cli::InputFormat::StreamJson && !served {
        let color = tack_tui::color_allowed(std::env::var_os("NO_COLOR").as_deref());
        return interactive::run(&cli, cwd, color, worktree);
    }
    let mut place = Place::new(cwd, Env::from_process())?;
    // Every settings file is read and checked before anything else happens.
    let sources = flags::setting_sources(&cli)?;
    let loaded =
        tack_runtime::load_settings_from(&place, cli.settings.as_deref(), sources.as_deref())?;
    // SAFETY: single-threaded: the runtime does not exist yet, nor any other thread.
    unsafe { settings_env::apply(&mut place, &loaded) };
    let mut options = print::session_options(&cli);
    // A served session (--serve, a background one) has clients that answer
    // its questions; `--permission-prompts none` still says nobody does.
    options.permissions.prompts |= cli.serve.is_some() || cli.bg_job.is_some();
    flags::apply(&cli, &mut options)?;
    // `git status` is the slowest part of the first request's context and
    // needs only the cwd: start it before the prompt is read and the session
    // is assembled (a custom system prompt leaves git out).
    if options.request.system_prompt.is_none() {
        let prefetch = GitPrefetch::start(place.cwd.clone(), SNAPSHOT_TIMEOUT);
        options.git_prefetch = Some(prefetch);
    }
    if let Some(socket) = cli.serve.clone() {
        // The server keeps the live turn for clients that attach until the
        // session goes idle.
        options.front_end.session_state = true;
        return runtime()?.block_on(serve::run(place, loaded, options, socket));
    }
    if let Some(dir) = &cli.bg_job {
        // Its running / idle changes are what `state.json`'s status says.
        options.front_end.session_state = true;
        let dir = background::session::job_dir(dir)?;
        let (prompt, name) = (cli.prompt.clone(), cli.name.clone());
        let session = background::session::run(place, loaded, options, dir, prompt, name);
        return runtime()?.block_on(session);
    }
    match cli.input_format {
        cli::InputFormat::Text => {
            let prompt = print::read_prompt(&cli)?;
            runtime()?.block_on(print::run(&cli, place, loaded, options, prompt, None))
        }
        cli::InputFormat::StreamJson => runtime()?.block_on(sdk::run(&cli, place, loaded, options)),
    }
}

/// A current-thread runtime: start-up costs no worker threads, and the loop
/// is I/O-bound (tools that block use spawn_blocking).
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}
