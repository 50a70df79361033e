//! Auto mode's classifier calls on a realistic session: 100 tool calls
//! (listing, reading, searching, git status and diff, edits, tests, an
//! install, deletes, a curl) in a git project, through the optimised `tack -p
//! --permission-mode auto`. The agent's model is one scripted server; the
//! classifier is a provider on a second one that allows everything, so its
//! request count is the number of calls auto mode classified. The budget
//! counts Claude Code 2.1.328 as classifying every call that is not
//! read-only; the bench prints both counts, then the session's wall time in auto mode against
//! `bypassPermissions` (the same calls, no checks): what auto mode adds per
//! call with both servers answering at once.
//!
//! Run: `cargo bench -p tack-cli --bench auto_mode`

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed bench

mod common;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_testkit::{MockServer, Reply, Script};

const ROUNDS: usize = 5;

/// One round of 20 calls, as an agent works: look around, read, search,
/// edit, make and remove files, run the tests (the same commands each
/// round), install something and fetch something (new each round). The flag:
/// Claude Code's rule as the budget states it classifies the call (it is not
/// read-only).
fn round(i: usize) -> Vec<(&'static str, Value, bool)> {
    let bash = |c: String| json!({ "command": c });
    vec![
        ("Bash", bash("ls".into()), false),
        ("Glob", json!({"pattern": "**/*.rs"}), false),
        ("Read", json!({"file_path": "src/lib.rs"}), false),
        ("Read", json!({"file_path": "README.md"}), false),
        ("Grep", json!({"pattern": "fn "}), false),
        ("Bash", bash("git status".into()), false),
        ("Bash", bash("git diff".into()), false),
        ("Bash", bash("grep -rn TODO src | wc -l".into()), false),
        ("Bash", bash("ls src | wc -l".into()), false),
        (
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": format!("// r{i}"), "new_string": format!("// r{}", i + 1)}),
            true,
        ),
        (
            "Write",
            json!({"file_path": format!("src/m{i}.rs"), "content": "pub fn m() {}\n"}),
            true,
        ),
        (
            "Bash",
            bash(format!("mkdir -p build/r{i} && touch build/r{i}/out.txt")),
            true,
        ),
        (
            "Bash",
            bash(format!("cp src/lib.rs build/r{i}/lib.rs.bak")),
            true,
        ),
        ("Bash", bash(format!("rm build/r{i}/out.txt")), true),
        (
            "Bash",
            bash("cargo test --offline -q 2>&1 | tail -1".into()),
            true,
        ),
        (
            "Bash",
            bash("python3 -m pytest -q 2>&1 | tail -1".into()),
            true,
        ),
        ("Bash", bash("git log --oneline -3".into()), false),
        (
            "Bash",
            bash(format!("pip install --no-index pkg{i} 2>&1 | tail -1")),
            true,
        ),
        (
            "Bash",
            bash(format!(
                "curl -s --max-time 1 http://127.0.0.1:9/{i} || true"
            )),
            true,
        ),
        (
            "Bash",
            bash(format!("echo round {i} >> build/notes.txt")),
            true,
        ),
    ]
}

fn main() {
    let runtime = common::runtime();
    let calls: Vec<(&str, Value, bool)> = (0..ROUNDS).flat_map(round).collect();
    let non_read_only = calls.iter().filter(|c| c.2).count();
    let script = || {
        Script::new(
            calls
                .iter()
                .enumerate()
                .map(|(n, (tool, input, _))| Reply::tool_use(&format!("t{n}"), tool, input.clone()))
                .chain([Reply::text("Done.")]),
        )
    };
    let run = |mode: &str| -> (Duration, usize) {
        let agent = runtime.block_on(MockServer::start(script())).unwrap();
        let judge = runtime
            .block_on(MockServer::start(
                Script::new([Reply::message()
                    .text("<block>no")
                    .stop_reason("stop_sequence")
                    .into()])
                .looping(),
            ))
            .unwrap();
        let project = common::git_project();
        std::fs::create_dir_all(project.path().join("src")).unwrap();
        std::fs::write(project.path().join("src/lib.rs"), "// r0\nfn a() {}\n").unwrap();
        let home = tempfile::tempdir().unwrap();
        let settings = json!({"providers": {"judge": {
            "api": "anthropic", "baseUrl": judge.base_url(), "apiKeyEnv": "JUDGE_KEY"}}});
        let started = Instant::now();
        let out = common::tack(project.path(), home.path(), &agent)
            .env("JUDGE_KEY", "bench")
            .env("CLAUDE_CODE_AUTO_MODE_MODEL", "judge/classifier")
            .args(["-p", "work on the project", "--permission-mode", mode])
            .args(["--settings", &settings.to_string(), "--max-turns", "200"])
            .output()
            .unwrap();
        let took = started.elapsed();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(agent.requests().len(), calls.len() + 1);
        if std::env::var_os("AUTO_BENCH_SHOW").is_some() {
            for r in judge.requests() {
                let text = r.body["messages"].to_string();
                let at = text.rfind("command").unwrap_or(0);
                eprintln!("{}", text[at..].chars().take(90).collect::<String>());
            }
        }
        (took, judge.requests().len())
    };
    let (_, classified) = run("auto");
    println!(
        "auto mode: {classified} classifier calls for {} tool calls ({:.0} per 100); Claude Code's rule (every call not read-only): {non_read_only} ({:.0} per 100)",
        calls.len(),
        classified as f64 * 100.0 / calls.len() as f64,
        non_read_only as f64 * 100.0 / calls.len() as f64,
    );
    let mut auto = Vec::new();
    let mut bypass = Vec::new();
    for _ in 0..5 {
        auto.push(run("auto").0);
        bypass.push(run("bypassPermissions").0);
    }
    auto.sort();
    bypass.sort();
    let (a, b) = (auto[auto.len() / 2], bypass[bypass.len() / 2]);
    println!(
        "session of {} calls: auto {:.0} ms, bypassPermissions {:.0} ms (medians of 5); auto mode adds {:.2} ms a call overall, {:.2} ms per classified call if all of it were theirs",
        calls.len(),
        a.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
        (a.as_secs_f64() - b.as_secs_f64()) * 1e3 / calls.len() as f64,
        (a.as_secs_f64() - b.as_secs_f64()) * 1e3 / classified.max(1) as f64,
    );
}
