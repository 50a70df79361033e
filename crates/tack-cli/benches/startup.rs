//! Process start → first API request, the budget Claude Code misses by 20x
//! (0.37 s there, ≤ 18 ms here). Spawns the optimised `tack` binary against the
//! scripted server and compares the wall-clock instant before `spawn` with the
//! instant the server saw the request's head. Prints a table; no criterion,
//! because each sample is a whole process.
//!
//! With MCP servers: the rmcp fixture server when it is built beside the
//! binary (`cargo build --release -p tack-mcp --bin tack-mcp-fixture`), the
//! reference server-everything when `.ci/install-mcp-everything.sh` has run
//! and node is there; cases whose server is missing are skipped, saying so.
//!
//! Run: `cargo bench -p tack-cli --bench startup`

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use tack_testkit::{MockServer, Reply, Script};

const RUNS: usize = 30;

fn stats(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = samples.iter().map(|d| ms(*d)).sum::<f64>() / samples.len() as f64;
    format!(
        "min {:.1} ms, median {:.1} ms, mean {:.1} ms, max {:.1} ms ({} runs)",
        ms(samples[0]),
        ms(samples[samples.len() / 2]),
        mean,
        ms(samples[samples.len() - 1]),
        samples.len()
    )
}

fn measure(
    server: &MockServer,
    project: &tempfile::TempDir,
    extra: &[&str],
) -> (Vec<Duration>, Vec<Duration>) {
    let home = tempfile::tempdir().expect("temp home");
    let mut to_request = Vec::new();
    let mut whole = Vec::new();
    for _ in 0..RUNS {
        let before = server.requests().len();
        let start = SystemTime::now();
        let status = common::tack(project.path(), home.path(), server)
            .args(["-p", "hi"])
            .args(extra)
            .stdout(Stdio::null())
            .status()
            .expect("tack runs");
        let end = SystemTime::now();
        assert!(status.success(), "tack failed: {status}");
        let requests = server.requests();
        let first = &requests[before];
        to_request.push(first.received_at.duration_since(start).unwrap_or_default());
        whole.push(end.duration_since(start).unwrap_or_default());
    }
    (to_request, whole)
}

/// The rmcp fixture server beside the benchmarked binary.
fn fixture() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_tack")).with_file_name("tack-mcp-fixture");
    path.is_file().then_some(path)
}

/// server-everything's entry point, when installed and node runs.
fn everything() -> Option<PathBuf> {
    let entry = "mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    PathBuf::from(env!("CARGO_BIN_EXE_tack"))
        .ancestors()
        .map(|dir| dir.join(entry))
        .find(|p| p.is_file())
        .filter(|_| node)
}

/// `--mcp-config` JSON with `n` copies of a stdio server.
fn mcp_config(n: usize, command: &str, args: &[&str]) -> String {
    let servers: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| {
            (
                format!("s{i}"),
                serde_json::json!({"command": command, "args": args}),
            )
        })
        .collect();
    serde_json::json!({ "mcpServers": servers }).to_string()
}

/// `n` plugins, each with a command, an agent and a skill (what start-up
/// reads; no hooks or MCP servers, which run processes of their own), and
/// the `--plugin-dir` arguments naming them.
fn plugins(n: usize) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().expect("temp plugins");
    let mut args = Vec::new();
    for i in 0..n {
        let root = dir.path().join(format!("p{i}"));
        let files = [
            (
                ".claude-plugin/plugin.json",
                format!(r#"{{"name": "p{i}"}}"#),
            ),
            (
                "commands/go.md",
                "---\ndescription: Go\n---\nGo $ARGUMENTS\n".to_owned(),
            ),
            (
                "agents/helper.md",
                "---\nname: helper\ndescription: Helps\n---\nHelp.\n".to_owned(),
            ),
            (
                "skills/lint/SKILL.md",
                "---\ndescription: Lints\n---\nLint.\n".to_owned(),
            ),
        ];
        for (rel, text) in files {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("plugin folder");
            std::fs::write(path, text).expect("plugin file");
        }
        args.extend([
            "--plugin-dir".to_owned(),
            root.to_string_lossy().into_owned(),
        ]);
    }
    (dir, args)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported.
    let runtime = common::runtime();
    let server = runtime
        .block_on(MockServer::start(
            Script::new([Reply::text("hi")]).looping(),
        ))
        .expect("mock server");
    let plain = tempfile::tempdir().expect("temp project");
    let repo = common::git_project();
    for (label, project, extra) in [
        ("no git, transcript on", &plain, &[][..]),
        (
            "no git, --no-session-persistence",
            &plain,
            &["--no-session-persistence"][..],
        ),
        ("git repository, transcript on", &repo, &[][..]),
    ] {
        report(&server, label, project, extra);
    }
    let (_plugins, plugin_args) = plugins(20);
    let plugin_args: Vec<&str> = plugin_args.iter().map(String::as_str).collect();
    report(
        &server,
        "git repository, 20 plugins (--plugin-dir)",
        &repo,
        &plugin_args,
    );
    let mut mcp_cases = Vec::new();
    match fixture() {
        Some(path) => {
            let path = path.to_string_lossy().into_owned();
            for n in [1, 5] {
                let label = format!("{n} stdio MCP server(s), the rmcp fixture");
                mcp_cases.push((label, mcp_config(n, &path, &[])));
            }
        }
        None => println!("skipped MCP fixture cases: tack-mcp-fixture is not built beside tack"),
    }
    match everything() {
        Some(entry) => {
            let entry = entry.to_string_lossy().into_owned();
            mcp_cases.push((
                "1 stdio MCP server, server-everything (node)".to_owned(),
                mcp_config(1, "node", &[&entry]),
            ));
        }
        None => println!("skipped server-everything case: not installed or no node"),
    }
    for (label, config) in &mcp_cases {
        let extra = ["--mcp-config", config.as_str(), "--strict-mcp-config"];
        report(&server, label, &repo, &extra);
    }
}

fn report(server: &MockServer, label: &str, project: &tempfile::TempDir, extra: &[&str]) {
    let (to_request, whole) = measure(server, project, extra);
    println!("tack -p hi ({label})");
    println!("  process start -> first request: {}", stats(to_request));
    println!("  whole process:                  {}", stats(whole));
}
