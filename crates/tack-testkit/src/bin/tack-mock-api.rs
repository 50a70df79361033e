//! `tack-mock-api`: serves a JSON script (format in the `tack_testkit` docs) as a
//! mock Anthropic API until killed.

use std::io::Write;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use tack_testkit::{MockServer, Options, Script};
use tokio::net::TcpListener;

/// Scripted Anthropic-compatible API server on 127.0.0.1.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// JSON script: an array of replies, consumed one per POST /v1/messages.
    #[arg(long, value_name = "FILE")]
    script: PathBuf,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Start the script over when it runs out, forever.
    #[arg(long = "loop")]
    repeat: bool,
    /// Require this API key (x-api-key or Authorization: Bearer).
    #[arg(long, value_name = "KEY")]
    api_key: Option<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tack-mock-api: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), String> {
    let mut script = Script::from_file(&args.script).map_err(|e| e.to_string())?;
    if args.repeat {
        script = script.looping();
    }
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, args.port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let options = Options {
        require_api_key: args.api_key,
    };
    let server = MockServer::start_on(listener, script, options)
        .await
        .map_err(|e| e.to_string())?;
    // Whoever launched us reads the port from this line, so it must not sit in a buffer.
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on {}", server.base_url())
        .and_then(|()| stdout.flush())
        .map_err(|e| format!("cannot write to stdout: {e}"))?;
    drop(stdout);
    tokio::signal::ctrl_c()
        .await
        .map_err(|e| format!("cannot wait for Ctrl-C: {e}"))?;
    drop(server);
    Ok(())
}
