//! tack-core's top-level modules import one way. Reads every `crate::module`
//! path in the code of `src/` (comments skipped), and checks each import
//! against the table of allowed directions and that no two modules reach each
//! other, the one known exception aside.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

/// Module → the modules it may import. A new import that is not here fails
/// the test: add it only if it keeps the graph acyclic.
const ALLOWED: &[(&str, &[&str])] = &[
    ("context", &[]),
    ("request", &["context"]),
    ("executor", &["permission"]),
    ("permission", &["executor", "request"]),
    ("compact", &["context", "request", "executor"]),
    ("deps", &["compact"]),
    (
        "query",
        &[
            "compact",
            "context",
            "deps",
            "executor",
            "permission",
            "request",
        ],
    ),
    (
        "session",
        &[
            "compact",
            "context",
            "deps",
            "executor",
            "permission",
            "query",
        ],
    ),
];

/// The one circle left: `permission::CanUseTool::post_tool_use` takes the
/// executor's `ToolCallOutcome`, and the executor calls `CanUseTool`. Breaking
/// it means moving `ToolCallOutcome`, a change to the executor's public API.
const KNOWN_CYCLE: (&str, &str) = ("executor", "permission");

/// The top-level module a file under `src/` belongs to (`None` for lib.rs).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_owned())
}

/// Every top-level module named after `crate::` in `code`, including each
/// name of a `crate::{a, b::c}` group.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with('$') {
            continue; // `$crate::` in a macro
        }
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let mut depth = 0;
                let mut item_start = true;
                for (i, c) in group.char_indices() {
                    if item_start && depth == 0 {
                        out.insert(ident(&group[i..]));
                        item_start = false;
                    }
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => item_start = true,
                        _ => {}
                    }
                }
            }
            None => {
                out.insert(ident(rest));
            }
        }
    }
    out.remove("");
    out
}

/// The code of a file without its `//` comments (doc comments included).
fn without_comments(source: &str) -> String {
    source
        .lines()
        .map(|line| line.split_once("//").map_or(line, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n")
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("src entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (importer, imported) pairs between different top-level modules.
fn imports() -> BTreeSet<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges = BTreeSet::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src");
        let Some(from) = module_of(relative) else {
            continue;
        };
        let code = without_comments(&fs::read_to_string(&file).expect("readable"));
        for to in crate_paths(&code) {
            if to != from {
                edges.insert((from.clone(), to));
            }
        }
    }
    edges
}

/// Pairs of distinct modules that reach each other through `edges`.
fn mutually_reachable(edges: &BTreeSet<(String, String)>) -> BTreeSet<(String, String)> {
    let mut reach: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (a, b) in edges {
        reach.entry(a).or_default().insert(b);
    }
    // Transitive closure; a dozen modules, so the simple fixpoint is enough.
    loop {
        let mut grew = false;
        let snapshot = reach.clone();
        for targets in reach.values_mut() {
            let more: Vec<&str> = targets
                .iter()
                .flat_map(|t| snapshot.get(t).into_iter().flatten().copied())
                .collect();
            for t in more {
                grew |= targets.insert(t);
            }
        }
        if !grew {
            break;
        }
    }
    let reaches = |a: &str, b: &str| reach.get(a).is_some_and(|r| r.contains(b));
    let mut out = BTreeSet::new();
    for (&a, targets) in &reach {
        for &b in targets {
            if a < b && reaches(b, a) {
                out.insert((a.to_owned(), b.to_owned()));
            }
        }
    }
    out
}

#[test]
fn imports_follow_the_direction_table() {
    let edges = imports();
    // The scan sees real imports (so the checks below are not vacuous).
    for expected in [
        ("query", "compact"),
        ("deps", "compact"),
        ("session", "query"),
    ] {
        assert!(
            edges.contains(&(expected.0.to_owned(), expected.1.to_owned())),
            "{expected:?} not found in {edges:?}"
        );
    }
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let not_allowed: Vec<&(String, String)> = edges
        .iter()
        .filter(|(from, to)| {
            !allowed
                .get(from.as_str())
                .is_some_and(|targets| targets.contains(&to.as_str()))
        })
        .collect();
    assert_eq!(not_allowed, Vec::<&(String, String)>::new());
}

#[test]
fn no_modules_import_each_other_in_a_circle() {
    let circles = mutually_reachable(&imports());
    let known = (KNOWN_CYCLE.0.to_owned(), KNOWN_CYCLE.1.to_owned());
    assert_eq!(circles, BTreeSet::from([known]));
}

#[test]
fn the_scan_reads_paths_groups_and_skips_comments() {
    let code = without_comments(
        "use crate::compact::{A, B};\n\
         use crate::{deps::QueryDeps, query::{State, Transition}};\n\
         //! [`crate::session::Session`]\n\
         let x = crate::request::build(); // crate::context\n\
         macro_rules! m { () => { $crate::executor::X } }",
    );
    assert_eq!(
        crate_paths(&code),
        BTreeSet::from(["compact", "deps", "query", "request"].map(String::from))
    );
}

#[test]
fn a_circle_is_found_through_a_third_module() {
    let edges: BTreeSet<(String, String)> = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .map(|(x, y)| (x.to_owned(), y.to_owned()))
        .into();
    assert_eq!(
        mutually_reachable(&edges),
        BTreeSet::from(
            [("a", "b"), ("a", "c"), ("b", "c")].map(|(x, y)| (x.to_owned(), y.to_owned()))
        )
    );
}
