//! Auto mode's cost in the engine (`cargo bench -p tack-permissions --bench auto`):
//! the time `PermissionContext::decide` takes for a call a fast path decides
//! and for one it hands to the classifier, and how many calls of a realistic
//! session reach the classifier. Prints figures; no criterion, the numbers go
//! to BENCHMARKS.md.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed bench

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};
use tack_permissions::{Decision, PermissionContext, PermissionMode, RuleSet};

const RUNS: usize = 20_000;

/// One tool call as the gate passes it.
struct Call {
    tool: &'static str,
    input: Value,
    read_only: bool,
    paths: Vec<PathBuf>,
}

fn bash(cmd: &str) -> Call {
    Call {
        tool: "Bash",
        input: json!({"command": cmd}),
        read_only: false,
        paths: Vec::new(),
    }
}

fn file(tool: &'static str, path: &str, read_only: bool) -> Call {
    Call {
        tool,
        input: json!({"file_path": path, "old_string": "a", "new_string": "b", "content": "x"}),
        read_only,
        paths: vec![PathBuf::from(path)],
    }
}

fn decide(ctx: &PermissionContext, c: &Call) -> Decision {
    ctx.decide(c.tool, &[], &c.input, c.read_only, &c.paths)
}

/// Median and 90th percentile of `decide` over `RUNS` runs, in µs.
fn time(ctx: &PermissionContext, c: &Call) -> (f64, f64) {
    let mut samples: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(decide(ctx, c));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    (samples[RUNS / 2], samples[RUNS * 9 / 10])
}

/// A realistic session: listing, reading, git, edits, tests, an install, a
/// delete, a curl.
fn session() -> Vec<Call> {
    vec![
        bash("ls -la"),
        file("Read", "src/main.rs", true),
        bash("git status"),
        bash("cat Cargo.toml"),
        bash("grep -rn TODO src"),
        bash("find . -name '*.rs' -type f"),
        bash("git log --oneline -10"),
        bash("git diff"),
        file("Edit", "src/main.rs", false),
        file("Write", "src/util.rs", false),
        bash("mkdir -p tests"),
        bash("touch tests/util.rs"),
        bash("cargo test"),
        bash("npm install"),
        bash("head -20 README.md"),
        bash("wc -l src/main.rs"),
        bash("rm -rf build"),
        bash("curl -sS https://example.com/api"),
        bash("git add -A"),
        bash("git commit -m 'util'"),
        bash("cat src/util.rs | grep fn"),
        bash("echo done > build.log"),
        bash("cargo build 2>&1 | tail -5"),
        bash("rg -n unwrap src"),
        bash("python3 scripts/gen.py"),
        bash("cd src && ls"),
    ]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let proj = root.join("proj");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::create_dir_all(proj.join("build")).unwrap();
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ctx = |mode| PermissionContext::new(mode, RuleSet::new(), &proj, &home, &[]);
    let auto = ctx(PermissionMode::Auto);
    let manual = ctx(PermissionMode::Default);

    println!("decide() in auto mode, median / p90 of {RUNS} runs (manual mode beside it):");
    for (label, call) in [
        ("fast path: Read inside", file("Read", "src/main.rs", true)),
        ("fast path: `git status`", bash("git status")),
        ("fast path: `touch a`", bash("touch a")),
        ("fast path: `grep -rn TODO src`", bash("grep -rn TODO src")),
        ("classified: `npm install`", bash("npm install")),
    ] {
        let kind = |d: &Decision| match d {
            Decision::Allow { .. } => "allow",
            Decision::Deny { .. } => "deny",
            Decision::Ask { .. } => "ask",
            Decision::Classify { .. } => "classify",
        };
        let (med, p90) = time(&auto, &call);
        let (mmed, _) = time(&manual, &call);
        println!(
            "  {label:34} {med:7.1} µs / {p90:7.1} µs  -> {:8}  (manual: {mmed:6.1} µs -> {})",
            kind(&decide(&auto, &call)),
            kind(&decide(&manual, &call))
        );
    }

    let calls = session();
    let classified: Vec<String> = calls
        .iter()
        .filter(|c| matches!(decide(&auto, c), Decision::Classify { .. }))
        .map(|c| summary(c, &proj))
        .collect();
    let asked = calls
        .iter()
        .filter(|c| matches!(decide(&manual, c), Decision::Ask { .. }))
        .count();
    println!(
        "realistic session: {} of {} calls classified ({:.0} per 100 tool calls); manual mode asks about {asked}",
        classified.len(),
        calls.len(),
        classified.len() as f64 * 100.0 / calls.len() as f64
    );
    println!("  classified: {}", classified.join(", "));
}

fn summary(c: &Call, proj: &Path) -> String {
    match c.input.get("command").and_then(Value::as_str) {
        Some(cmd) => format!("`{cmd}`"),
        None => format!(
            "{} {}",
            c.tool,
            c.paths[0]
                .strip_prefix(proj)
                .unwrap_or(&c.paths[0])
                .display()
        ),
    }
}
