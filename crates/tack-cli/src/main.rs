//! `tack`: the binary. See `app.rs` for print mode and `demo.rs` for `tack demo`.

mod app;
mod cli;
mod deferred_client;
mod demo;
mod hooks;
mod output;
mod permissions;
mod persist;
mod progress;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    // Orphans of what tack starts (`setsid cmd &`) are adopted by tack, not
    // init, so the session can stop them when it ends.
    let _ = tack_tools::reaper::become_subreaper();
    let code = run_main();
    // Nothing a session started outlives it (the runtime is gone by now).
    tack_tools::reaper::kill_descendants(std::time::Duration::from_secs(1));
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

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    app::validate(&cli)?;
    let demo = cli.demo || matches!(cli.command, Some(Command::Demo));
    if demo {
        return runtime()?.block_on(demo::run(&cli));
    }
    if !cli.print && cli.input_format != cli::InputFormat::StreamJson {
        anyhow::bail!(
            "interactive mode is not implemented yet: use -p/--print (or try `tack demo`)"
        );
    }
    let env = app::Env::from_process();
    let mut place = app::Place::from_process(env)?;
    // Every settings file is read and checked before anything else happens.
    let settings = app::load_settings(&cli, &place)?;
    for warning in settings.warnings() {
        eprintln!("warning: {warning}");
    }
    // Settings' `env` is the session's environment, over the inherited one: what
    // tack reads (`place.env`), what every subprocess (Bash tool, hooks,
    // apiKeyHelper) inherits, and what reqwest reads HTTP(S)_PROXY / NO_PROXY
    // from. Set here, while the process has one thread and before the runtime
    // exists; tests never get here (they run the binary, or pass an `Env`).
    for (key, value) in settings.env() {
        // SAFETY: single-threaded: no runtime, no other thread yet.
        unsafe { std::env::set_var(key, value) };
    }
    place.env.apply(settings.env());
    let run_settings = app::RunSettings::from_settings(&settings);
    let prompt = match cli.input_format {
        cli::InputFormat::Text => Some(app::read_prompt(&cli)?),
        cli::InputFormat::StreamJson => None,
    };
    runtime()?.block_on(app::run_print(&cli, place, run_settings, prompt))
}

/// A current-thread runtime: start-up costs no worker threads, and the loop
/// is I/O-bound (tools that block use spawn_blocking).
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}
