//! A stdio MCP server for tack-mcp's tests and start-up benchmark (not
//! installed, not for users).
//!
//! Flags: `--name NAME` (server name, default `fixture`), `--delay-ms N`
//! (wait before serving), `--hang` (never answer), `--exit-at-start` (fail at
//! once with a message on stderr), `--tool NAME` (also list a tool of that
//! name; repeatable), `--bad-schema-tool NAME` (list a tool whose input
//! schema is not an object schema; repeatable). Other arguments are ignored (and returned
//! by the `argv` tool).

mod server;

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    eprintln!("fixture: starting");
    if flag("--exit-at-start") {
        eprintln!("fixture: refusing to start (--exit-at-start)");
        std::process::exit(2);
    }
    if let Some(ms) = value("--delay-ms").and_then(|v| v.parse::<u64>().ok()) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    if flag("--hang") {
        // Keep stdin open and never answer.
        std::future::pending::<()>().await;
    }
    let name = value("--name").unwrap_or_else(|| "fixture".into());
    let all = |name: &str| -> Vec<String> {
        args.windows(2)
            .filter(|w| w[0] == name)
            .map(|w| w[1].clone())
            .collect()
    };
    let state = server::FixtureState::with_tools(all("--tool"), all("--bad-schema-tool"));
    let fixture = server::Fixture::new(Arc::new(state), &name);
    match fixture.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => {
            eprintln!("fixture: {e}");
            std::process::exit(1);
        }
    }
}
