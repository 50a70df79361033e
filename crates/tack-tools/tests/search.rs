//! Glob, Grep and LS over real trees, with .gitignore.

use crate::common;

use std::time::{Duration, SystemTime};

use common::Session;
use pretty_assertions::assert_eq;
use serde_json::json;

/// Writes `rel` with an mtime `age_s` seconds in the past, so mtime order is known.
fn write_aged(s: &Session, rel: &str, content: &str, age_s: u64) {
    let path = s.write(rel, content);
    let t = SystemTime::now() - Duration::from_secs(age_s);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn tree() -> Session {
    let s = Session::new();
    write_aged(&s, ".gitignore", "target/\n*.log\n", 100);
    write_aged(&s, "src/main.rs", "fn main() {\n    helper();\n}\n", 50);
    write_aged(&s, "src/lib.rs", "pub fn helper() {}\n// TODO: more\n", 10);
    write_aged(&s, "src/deep/util.rs", "pub fn Helper2() {}\n", 30);
    write_aged(&s, "README.md", "# helper docs\n", 40);
    write_aged(
        &s,
        "notes.txt",
        "line one\nhelper here\nline three\nline four\nline five\nhelper again\n",
        20,
    );
    write_aged(&s, "target/gen.rs", "fn helper() {}\n", 1);
    write_aged(&s, "debug.log", "helper log\n", 1);
    write_aged(&s, ".hidden/h.rs", "fn helper() {}\n", 60);
    s.write("bin.dat", b"helper\x00\x01\x02");
    s
}

// ---------------------------------------------------------------- Glob

#[tokio::test]
async fn glob_matches_newest_first_and_respects_gitignore() {
    let s = tree();
    assert_eq!(
        s.ok("Glob", json!({"pattern": "**/*.rs"})).await,
        [
            s.p("src/lib.rs"),
            s.p("src/deep/util.rs"),
            s.p("src/main.rs"),
            s.p(".hidden/h.rs")
        ]
        .join("\n")
    );
    assert_eq!(
        s.ok("Glob", json!({"pattern": "src/*.rs"})).await,
        [s.p("src/lib.rs"), s.p("src/main.rs")].join("\n")
    );
    assert_eq!(
        s.ok("Glob", json!({"pattern": "*.{md,txt}"})).await,
        [s.p("notes.txt"), s.p("README.md")].join("\n")
    );
    assert_eq!(
        s.ok("Glob", json!({"pattern": "*.rs", "path": s.p("src/deep")}))
            .await,
        s.p("src/deep/util.rs")
    );
    assert_eq!(
        s.ok("Glob", json!({"pattern": "**/*.py"})).await,
        "No files found"
    );
    assert_eq!(
        s.ok(
            "Glob",
            json!({"pattern": format!("{}/**/util.rs", s.root.display())})
        )
        .await,
        s.p("src/deep/util.rs")
    );
}

#[tokio::test]
async fn glob_caps_results() {
    let s = Session::new();
    for i in 0..150 {
        s.write(&format!("many/f{i:03}.txt"), "");
    }
    let out = s.ok("Glob", json!({"pattern": "many/*.txt"})).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 101);
    assert_eq!(
        lines[100],
        "(Showing the 100 most recently modified of 150 matching files. Use a more specific path or pattern to narrow the results.)"
    );
}

#[tokio::test]
async fn glob_rejects_bad_input() {
    let s = Session::new();
    assert_eq!(
        s.err("Glob", json!({"pattern": "a\u{0}b"})).await,
        "The pattern contains a null byte."
    );
    assert!(
        s.err("Glob", json!({"pattern": "a[b"}))
            .await
            .starts_with("Invalid glob pattern:")
    );
    assert_eq!(
        s.err("Glob", json!({"pattern": "*", "path": s.p("nope")}))
            .await,
        format!(
            "Path does not exist: {}. Current working directory: {}",
            s.p("nope"),
            s.root.display()
        )
    );
}

// ---------------------------------------------------------------- Grep

#[tokio::test]
async fn grep_files_with_matches_respects_gitignore_hidden_and_binary() {
    let s = tree();
    assert_eq!(
        s.ok("Grep", json!({"pattern": "helper"})).await,
        format!(
            "Found 4 files\n{}",
            [
                s.p("src/lib.rs"),
                s.p("notes.txt"),
                s.p("README.md"),
                s.p("src/main.rs")
            ]
            .join("\n")
        )
    );
    assert_eq!(
        s.ok("Grep", json!({"pattern": "nothing-like-this"})).await,
        "No files found"
    );
}

#[tokio::test]
async fn grep_content_mode() {
    let s = tree();
    assert_eq!(
        s.ok(
            "Grep",
            json!({"pattern": "helper", "output_mode": "content", "type": "rust", "-i": true})
        )
        .await,
        [
            format!("{}:1:pub fn Helper2() {{}}", s.p("src/deep/util.rs")),
            format!("{}:1:pub fn helper() {{}}", s.p("src/lib.rs")),
            format!("{}:2:    helper();", s.p("src/main.rs")),
        ]
        .join("\n")
    );
    assert_eq!(
        s.ok("Grep", json!({"pattern": "helper", "output_mode": "content", "path": s.p("notes.txt"), "-n": false})).await,
        "helper here\nhelper again"
    );
}

#[tokio::test]
async fn grep_context_lines() {
    let s = tree();
    assert_eq!(
        s.ok("Grep", json!({"pattern": "helper", "output_mode": "content", "path": s.p("notes.txt"), "-C": 1})).await,
        "1-line one\n2:helper here\n3-line three\n--\n5-line five\n6:helper again"
    );
    assert_eq!(
        s.ok("Grep", json!({"pattern": "here", "output_mode": "content", "path": s.p("notes.txt"), "-A": 1, "-B": 0})).await,
        "2:helper here\n3-line three"
    );
}

#[tokio::test]
async fn grep_count_glob_and_pagination() {
    let s = tree();
    assert_eq!(
        s.ok(
            "Grep",
            json!({"pattern": "helper", "output_mode": "count", "glob": "*.{txt,md}"})
        )
        .await,
        format!(
            "{}:1\n{}:2\n\nFound 3 total occurrences across 2 files.",
            s.p("README.md"),
            s.p("notes.txt")
        )
    );
    assert_eq!(
        s.ok("Grep", json!({"pattern": "helper", "output_mode": "files_with_matches", "head_limit": 1, "offset": 1})).await,
        format!(
            "Found 4 files\n{}\n\n[Showing results with pagination: limit 1, offset 1. More results exist: narrow the search or pass a larger offset.]",
            s.p("notes.txt")
        )
    );
}

#[tokio::test]
async fn grep_multiline_and_errors() {
    let s = tree();
    assert_eq!(
        s.ok("Grep", json!({"pattern": "main\\(\\) \\{\\n\\s+helper", "multiline": true, "output_mode": "content"})).await,
        format!("{0}:1:fn main() {{\n{0}:2:    helper();", s.p("src/main.rs"))
    );
    // As in rg, a pattern with a newline needs multiline.
    assert_eq!(
        s.err("Grep", json!({"pattern": "main\\(\\) \\{\\n\\s+helper"}))
            .await,
        "Invalid regex pattern: the literal \"\\n\" is not allowed in a regex (set `multiline` to true to match across lines)"
    );
    assert!(
        s.err("Grep", json!({"pattern": "fn("}))
            .await
            .starts_with("Invalid regex pattern: regex parse error:")
    );
    assert_eq!(
        s.err("Grep", json!({"pattern": "x", "type": "nosuchtype"}))
            .await,
        "Invalid type: unrecognized file type: nosuchtype"
    );
}

#[tokio::test]
async fn grep_caps_long_lines() {
    let s = Session::new();
    s.write("wide.txt", format!("needle {}\n", "z".repeat(1000)));
    let out = s
        .ok(
            "Grep",
            json!({"pattern": "needle", "output_mode": "content", "path": s.p("wide.txt")}),
        )
        .await;
    assert_eq!(
        out,
        format!("1:needle {}… [line truncated]", "z".repeat(493))
    );
}

// ---------------------------------------------------------------- LS

#[tokio::test]
async fn ls_lists_a_tree() {
    let s = tree();
    assert_eq!(
        s.ok(
            "LS",
            json!({"path": s.root.display().to_string(), "ignore": ["*.md"]})
        )
        .await,
        format!(
            "- {}/\n  - bin.dat\n  - notes.txt\n  - src/\n    - deep/\n      - util.rs\n    - lib.rs\n    - main.rs",
            s.root.display()
        )
    );
    assert_eq!(
        s.err("LS", json!({"path": s.p("notes.txt")})).await,
        format!(
            "{} is not a directory; use Read for files.",
            s.p("notes.txt")
        )
    );
}
