//! `tack`: the binary. Print mode (`print.rs`), interactive mode
//! (`interactive/`), Agent SDK mode (`sdk/`) and `tack demo` (`demo.rs`) are
//! front ends of the session runtime (`tack-runtime`).

mod batch;
mod cli;
mod demo;
mod doctor;
mod flags;
mod interactive;
mod mcp;
mod output;
mod plugin;
mod print;
mod progress;
mod sdk;
mod serve;
mod session_worktree;
mod settings_env;

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
    // Nothing a session started outlives it (the runtime is gone by now).
    tack_sys::reaper::kill_descendants(std::time::Duration::from_secs(1));
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
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("Error: {e:#}");
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
    match cli.command.take() {
        Some(Command::Mcp(command)) => {
            let place = Place::new(cwd, Env::from_process())?;
            return runtime()?.block_on(mcp::run(&place, command));
        }
        Some(Command::Plugin(command)) => {
            return plugin::run(&Place::new(cwd, Env::from_process())?, command);
        }
        Some(Command::Demo) => return runtime()?.block_on(demo::run(&cli)),
        Some(Command::Batch(args)) => return batch::run(args, &cwd),
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
        return run_session(cli, cwd);
    };
    let worktree = session_worktree::enter(&cwd, &name)?;
    // Single-threaded still: hooks, tools and git read the process's folder.
    std::env::set_current_dir(&worktree.cwd)?;
    let ran = run_session(cli, worktree.cwd.clone());
    worktree.leave();
    ran
}

/// A session (print, SDK or interactive) in `cwd`.
fn run_session(cli: Cli, cwd: std::path::PathBuf) -> anyhow::Result<ExitCode> {
    if cli.demo {
        return runtime()?.block_on(demo::run(&cli));
    }
    if !cli.print && cli.input_format != cli::InputFormat::StreamJson && cli.serve.is_none() {
        let color = tack_tui::color_allowed(std::env::var_os("NO_COLOR").as_deref());
        return interactive::run(&cli, cwd, color);
    }
    let mut place = Place::new(cwd, Env::from_process())?;
    // Every settings file is read and checked before anything else happens.
    let sources = flags::setting_sources(&cli)?;
    let loaded =
        tack_runtime::load_settings_from(&place, cli.settings.as_deref(), sources.as_deref())?;
    // SAFETY: single-threaded: the runtime does not exist yet, nor any other thread.
    unsafe { settings_env::apply(&mut place, &loaded) };
    let mut options = print::session_options(&cli);
    flags::apply(&cli, &mut options)?;
    // `git status` is the slowest part of the first request's context and
    // needs only the cwd: start it before the prompt is read and the session
    // is assembled (a custom system prompt leaves git out).
    if options.system_prompt.is_none() {
        let prefetch = GitPrefetch::start(place.cwd.clone(), SNAPSHOT_TIMEOUT);
        options.git_prefetch = Some(prefetch);
    }
    if let Some(socket) = cli.serve.clone() {
        options.permission_prompts = true;
        return runtime()?.block_on(serve::run(place, loaded, options, socket));
    }
    match cli.input_format {
        cli::InputFormat::Text => {
            let prompt = print::read_prompt(&cli)?;
            runtime()?.block_on(print::run(&cli, place, loaded, options, prompt, false))
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
