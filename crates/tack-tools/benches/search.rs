//! Grep and Glob over a generated 50k-file tree, through the tools, next to `rg`
//! and `find` on the same tree in the same run (skipped if not installed); Read
//! of a 100k-line file. Kept short (10 samples, 3 s) because the machine is shared.
//!
//! Run: `cargo bench -p tack-tools --bench search` (or `benches/compare.sh`, which
//! also prints the ratios). The tree is generated once under the system temp dir
//! (`tack-tools-bench-50k`) and reused.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolEnv};
use tack_tools::{builtin_tools, find_tool};

const DIRS: usize = 250;
const SUBDIRS: usize = 10;
const FILES: usize = 20; // 250 * 10 * 20 = 50,000 files
const EXTS: [&str; 4] = ["rs", "py", "txt", "md"];

fn tree() -> PathBuf {
    let root = std::env::temp_dir().join("tack-tools-bench-50k");
    let done = root.join(".complete");
    if done.exists() {
        return root;
    }
    let _ = std::fs::remove_dir_all(&root);
    for d in 0..DIRS {
        for s in 0..SUBDIRS {
            let dir = root.join(format!("pkg{d:03}/mod{s:02}"));
            std::fs::create_dir_all(&dir).expect("mkdir");
            for f in 0..FILES {
                let n = (d * SUBDIRS + s) * FILES + f;
                let ext = EXTS[n % EXTS.len()];
                let mut body = String::new();
                for line in 0..12 {
                    body.push_str(&format!(
                        "fn helper_{line}_{n}(x: u32) -> u32 {{ x + {line} }} // filler text\n"
                    ));
                }
                if n.is_multiple_of(10) {
                    body.push_str(&format!("let needle_{n} = \"found me\";\n"));
                }
                std::fs::write(dir.join(format!("file{f:02}.{ext}")), body).expect("write");
            }
        }
    }
    std::fs::write(root.join(".gitignore"), "*.log\n").expect("gitignore");
    std::fs::write(&done, "").expect("marker");
    root
}

fn hundred_k_lines(dir: &Path) -> PathBuf {
    let path = dir.join("100k.txt");
    let body: String = (0..100_000)
        .map(|i| format!("line {i}: some ordinary source text, about sixty bytes\n"))
        .collect();
    std::fs::write(&path, body).expect("write 100k");
    path
}

fn installed(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

fn run(cmd: &mut Command) {
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    assert!(status.code().is_some_and(|c| c <= 1), "{cmd:?}: {status}");
}

fn call(rt: &tokio::runtime::Runtime, tool: &Arc<dyn Tool>, ctx: &ToolContext, input: &Value) {
    let out = rt
        .block_on(tool.call(input.clone(), ctx))
        .expect("tool call");
    std::hint::black_box(out);
}

fn benches(c: &mut Criterion) {
    let root = tree();
    let session = tempfile::tempdir().expect("session dir");
    let env = Arc::new(ToolEnv::new(root.clone(), session.path().to_path_buf()));
    let tools = builtin_tools(&env);
    let ctx = ToolContext::standalone("toolu_bench", env.clone());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let tool = |name: &str| find_tool(&tools, name).expect("tool").clone();
    let (grep, glob, read) = (tool("Grep"), tool("Glob"), tool("Read"));
    let have_rg = installed("rg");

    let mut g = c.benchmark_group("grep_50k_files_with_matches");
    let input = json!({"pattern": "needle_[0-9]+", "head_limit": 0});
    g.bench_function("tack_Grep", |b| b.iter(|| call(&rt, &grep, &ctx, &input)));
    if have_rg {
        g.bench_function("rg", |b| {
            b.iter(|| run(Command::new("rg").args(["-l", "needle_[0-9]+"]).arg(&root)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("grep_50k_content");
    let input =
        json!({"pattern": "helper_3_4[0-9]{3}\\b", "output_mode": "content", "head_limit": 0});
    g.bench_function("tack_Grep", |b| b.iter(|| call(&rt, &grep, &ctx, &input)));
    if have_rg {
        g.bench_function("rg", |b| {
            b.iter(|| {
                run(Command::new("rg")
                    .args(["-n", "helper_3_4[0-9]{3}\\b"])
                    .arg(&root))
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("glob_50k");
    let input = json!({"pattern": "**/*.rs"});
    g.bench_function("tack_Glob", |b| b.iter(|| call(&rt, &glob, &ctx, &input)));
    g.bench_function("find", |b| {
        b.iter(|| {
            run(Command::new("find")
                .arg(&root)
                .args(["-name", "*.rs", "-type", "f"]))
        })
    });
    if have_rg {
        g.bench_function("rg_files", |b| {
            b.iter(|| {
                run(Command::new("rg")
                    .args(["--files", "-g", "*.rs"])
                    .arg(&root))
            })
        });
    }
    g.finish();

    let big = hundred_k_lines(session.path());
    let mut g = c.benchmark_group("read_100k_lines");
    let first = json!({"file_path": big});
    let tail = json!({"file_path": big, "offset": 99_001, "limit": 1000});
    g.bench_function("tack_Read_first_2000", |b| {
        b.iter(|| call(&rt, &read, &ctx, &first))
    });
    g.bench_function("tack_Read_last_1000", |b| {
        b.iter(|| call(&rt, &read, &ctx, &tail))
    });
    g.finish();
}

criterion_group! {
    name = search;
    config = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(search);
