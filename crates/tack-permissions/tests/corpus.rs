//! Runs the adversarial corpus in `tests/corpus/bash_bypass.jsonl`: every case is
//! decided and compared with its expected decision; all mismatches are reported at
//! once, wrongly allowed ones first.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tack_permissions::{
    Decision, PermissionContext, PermissionMode, RuleLists, RuleSet, RuleSource,
};

struct Fixture {
    _dir: tempfile::TempDir,
    proj: PathBuf,
    home: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let proj = root.join("proj");
    let home = root.join("home");
    for d in ["src", "secrets", ".git", ".tack", "config"] {
        std::fs::create_dir_all(proj.join(d)).unwrap();
    }
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(proj.join("src/main.rs"), "fn main() {}").unwrap();
    std::fs::write(proj.join("README.md"), "readme").unwrap();
    std::fs::write(proj.join(".env"), "SECRET=1").unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "key").unwrap();
    Fixture {
        _dir: dir,
        proj,
        home,
    }
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn decide(fx: &Fixture, case: &Value) -> Decision {
    let rules = &case["rules"];
    let source = RuleSource {
        name: "projectSettings".into(),
        file: Some(fx.proj.join(".tack/settings.json")),
        root: Some(fx.proj.clone()),
    };
    let lists = RuleLists {
        allow: strings(rules, "allow"),
        ask: strings(rules, "ask"),
        deny: strings(rules, "deny"),
    };
    let set = RuleSet::from_sources([(source, lists)]).expect("corpus rules parse");
    let mode: PermissionMode = case
        .get("mode")
        .and_then(Value::as_str)
        .unwrap_or("default")
        .parse()
        .unwrap();
    let ctx = PermissionContext::new(mode, set, &fx.proj, &fx.home, &[]);
    let tool = case.get("tool").and_then(Value::as_str).unwrap_or("Bash");
    let (input, paths, read_only) = match tool {
        "Bash" => (
            json!({"command": case["command"]}),
            Vec::new(),
            case.get("read_only")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        ),
        "WebFetch" => (
            json!({"url": case["url"], "prompt": "summarise"}),
            Vec::new(),
            true,
        ),
        "Read" | "Edit" | "Write" => {
            let p = case["path"].as_str().unwrap();
            (
                json!({"file_path": p}),
                vec![PathBuf::from(p)],
                tool == "Read",
            )
        }
        _ => (json!({}), Vec::new(), false),
    };
    ctx.decide(tool, &[], &input, read_only, &paths)
}

fn label(d: &Decision) -> &'static str {
    match d {
        Decision::Allow { .. } => "allow",
        Decision::Deny { .. } => "deny",
        Decision::Ask { .. } => "ask",
        Decision::Classify { .. } => "classify",
    }
}

#[test]
fn bypass_corpus() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/bash_bypass.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let fx = fixture();
    let mut wrongly_allowed = Vec::new();
    let mut other = Vec::new();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        n += 1;
        let case: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let expected = case["expected"].as_str().unwrap();
        let got = decide(&fx, &case);
        if label(&got) != expected {
            let what = case
                .get("command")
                .and_then(Value::as_str)
                .map(|c| c.chars().take(120).collect::<String>())
                .or_else(|| case.get("path").and_then(Value::as_str).map(str::to_string))
                .or_else(|| case.get("url").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_else(|| case["tool"].to_string());
            let msg = format!(
                "line {}: {what:?} rules={} expected {expected}, got {got:?} ({})",
                i + 1,
                case["rules"],
                case["why"].as_str().unwrap_or("")
            );
            if got.is_allow() {
                wrongly_allowed.push(msg);
            } else {
                other.push(msg);
            }
        }
    }
    assert!(n >= 150, "corpus has only {n} cases");
    if !wrongly_allowed.is_empty() || !other.is_empty() {
        panic!(
            "{} of {n} cases wrong\nWRONGLY ALLOWED ({}):\n{}\nOTHER MISMATCHES ({}):\n{}",
            wrongly_allowed.len() + other.len(),
            wrongly_allowed.len(),
            wrongly_allowed.join("\n"),
            other.len(),
            other.join("\n")
        );
    }
    eprintln!("bypass corpus: {n} cases, all as expected");
}

/// The corpus's default-mode cases in auto mode: deny and ask rules decide as
/// before, what the default mode asks about goes to the classifier, except
/// what auto mode's fast paths prove (listed here: a new fast path shows up),
/// and the allow rules it sets aside no longer allow.
#[test]
fn auto_mode_on_the_corpus() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/bash_bypass.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let fx = fixture();
    let mut changed = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut case: Value = serde_json::from_str(line).unwrap();
        if case.get("mode").is_some() {
            continue;
        }
        let expected = case["expected"].as_str().unwrap().to_string();
        case["mode"] = json!("auto");
        let got = label(&decide(&fx, &case));
        if got != expected && !(expected == "ask" && got == "classify") {
            let text = |k: &str| case.get(k).and_then(Value::as_str);
            let what = text("command").or_else(|| text("path")).unwrap_or_default();
            changed.push(format!("{what}: {expected} -> {got}"));
        }
    }
    assert_eq!(
        changed,
        [
            "git status --short: ask -> allow",
            "npm run test: allow -> classify",
            "npm run test -- --watch: allow -> classify",
            "npm run test -- --watch: allow -> classify",
            "cargo --version: allow -> classify",
            "git diff > out.patch: ask -> allow",
            "anything --goes: allow -> classify",
            "git diff $(: allow -> classify",
            "mkdir -p src/new: ask -> allow",
            "./src/new.rs: ask -> allow",
            "./x: ask -> allow",
        ]
    );
}
