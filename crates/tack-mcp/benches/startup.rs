//! Time from `McpManager::start` to every server connected (tools listed),
//! with 0, 1 and 5 stdio fixture servers, and with servers that take 100 to
//! 500 ms to start (parallel start: 5 cost about the slowest one). Also the
//! reference server-everything when `.ci/install-mcp-everything.sh` has run.
//!
//! `cargo bench -p tack-mcp --bench startup`

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tack_mcp::{
    ConfigScope, McpConfig, McpManager, McpOptions, ServerConfig, ServerEntry, StdioConfig,
};

const FIXTURE: &str = env!("CARGO_BIN_EXE_tack-mcp-fixture");
const RUNS: usize = 7;

fn server(name: &str, command: &str, args: &[String]) -> ServerEntry {
    ServerEntry {
        name: name.to_string(),
        scope: ConfigScope::Dynamic,
        origin: "bench".into(),
        config: ServerConfig::Stdio(StdioConfig {
            command: command.to_string(),
            args: args.to_vec(),
            env: Default::default(),
        }),
        tool_timeout: None,
    }
}

fn fixtures(delays_ms: &[u64]) -> Vec<ServerEntry> {
    delays_ms
        .iter()
        .enumerate()
        .map(|(i, d)| {
            server(
                &format!("s{i}"),
                FIXTURE,
                &["--delay-ms".into(), d.to_string()],
            )
        })
        .collect()
}

/// Median time to all-connected over `RUNS` runs (after one warm-up).
async fn measure(servers: Vec<ServerEntry>, dir: &std::path::Path) -> Duration {
    let config = McpConfig {
        servers,
        ..McpConfig::default()
    };
    let mut times = Vec::new();
    for run in 0..=RUNS {
        let options = McpOptions::new(dir, dir.join("logs"));
        let started = Instant::now();
        let manager = McpManager::connect(&config, options, &|_| None).await;
        let elapsed = started.elapsed();
        let failed: Vec<String> = manager
            .statuses()
            .into_iter()
            .filter(|s| s.status != tack_mcp::Status::Connected)
            .map(|s| format!("{}: {:?}", s.name, s.error))
            .collect();
        assert!(failed.is_empty(), "{failed:?}");
        manager.shutdown().await;
        if run > 0 {
            times.push(elapsed);
        }
    }
    times.sort();
    times[times.len() / 2]
}

fn everything() -> Option<PathBuf> {
    PathBuf::from(FIXTURE)
        .ancestors()
        .map(|d| {
            d.join(
                "mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            )
        })
        .find(|p| p.is_file())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    runtime.block_on(async {
        println!("time from start to all servers connected (median of {RUNS} runs):");
        for (label, delays) in [
            ("0 servers", vec![]),
            ("1 stdio fixture server", vec![0]),
            ("5 stdio fixture servers", vec![0; 5]),
            ("1 server taking 500 ms", vec![500]),
            (
                "5 servers taking 100..500 ms",
                vec![100, 200, 300, 400, 500],
            ),
        ] {
            let t = measure(fixtures(&delays), dir.path()).await;
            println!("  {label:<32} {:>8.1} ms", t.as_secs_f64() * 1000.0);
        }
        match everything() {
            Some(entry) => {
                for n in [1, 5] {
                    let servers = (0..n)
                        .map(|i| {
                            server(
                                &format!("e{i}"),
                                "node",
                                &[entry.to_string_lossy().into(), "stdio".into()],
                            )
                        })
                        .collect();
                    let t = measure(servers, dir.path()).await;
                    println!(
                        "  {:<32} {:>8.1} ms",
                        format!("{n} x server-everything (node)"),
                        t.as_secs_f64() * 1000.0
                    );
                }
            }
            None => {
                println!("  server-everything: not installed (run .ci/install-mcp-everything.sh)")
            }
        }
    });
}
