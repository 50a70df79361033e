//! Modules import one way, in every crate of the workspace. Reads every
//! `crate::`, `super::` and `self::` path in the code of each crate's `src/`
//! (comments and the `#[cfg(test)] mod` at the end of a file skipped), and
//! checks that no two modules reach each other, the known exception aside,
//! and tack-core's top-level imports against its table of allowed directions.
//!
//! Modules are compared at each level of the tree: `query` with `compact`
//! (top level), `query::state` with `query::recovery` (inside `query`). An
//! import of a module's own ancestor (`super::Thing` defined in `mod.rs`) is
//! no edge: a parent and its children are one unit seen from outside.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

/// tack-core's top-level module → the modules it may import. A new import
/// that is not here fails the test: add it only if it keeps the graph acyclic.
const CORE_ALLOWED: &[(&str, &[&str])] = &[
    ("context", &[]),
    ("request", &["context"]),
    ("outcome", &[]),
    ("executor", &["outcome", "permission"]),
    ("permission", &["outcome", "request"]),
    ("compact", &["context", "request", "outcome"]),
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

/// (crate, module, module) circles left: none. Add one only with the reason it
/// cannot be broken.
const KNOWN_CYCLES: &[(&str, &str, &str)] = &[];

/// A module's path from its crate's root (`["query", "state"]`).
type ModPath = Vec<String>;

/// The workspace's crate directories, by crate name.
pub(crate) fn crate_dirs() -> BTreeMap<String, PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/")
        .to_path_buf();
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(&crates).expect("crates/ is readable") {
        let dir = entry.expect("crates/ entry").path();
        if dir.join("Cargo.toml").is_file() {
            let name = dir
                .file_name()
                .expect("named")
                .to_string_lossy()
                .into_owned();
            out.insert(name, dir);
        }
    }
    out
}

/// Every `.rs` file under `dir`.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("source dir is readable") {
        let path = entry.expect("source entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file under `src/` is (`[]` for the crate root); `None` for
/// the roots of other binaries (`src/bin/`).
fn module_of(relative: &Path) -> Option<ModPath> {
    let mut parts: ModPath = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let file = parts.pop()?;
    let name = file.strip_suffix(".rs")?;
    if !matches!(name, "mod" | "lib" | "main") {
        parts.push(name.to_owned());
    }
    Some(parts)
}

/// The code of a file without its `//` comments (doc comments included) and
/// without the test module that ends it.
fn without_comments(source: &str) -> String {
    let mut out = Vec::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("#[cfg(test)]") && lines.peek().is_some_and(|l| l.starts_with("mod ")) {
            break;
        }
        out.push(line.split_once("//").map_or(line, |(code, _)| code));
    }
    out.join("\n")
}

/// The path starting at `code` (after `prefix`), each name of a `{a, b::c}`
/// group its own path.
fn parse_path(code: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut rest = code;
    loop {
        let trimmed = rest.trim_start();
        let len = trimmed
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(trimmed.len());
        if len == 0 {
            break;
        }
        path.push(trimmed[..len].to_owned());
        let Some(after) = trimmed[len..].trim_start().strip_prefix("::") else {
            break;
        };
        let Some(group) = after.trim_start().strip_prefix('{') else {
            rest = after;
            continue;
        };
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    parse_path(&group[start..i], &path, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parse_path(&group[start..i], &path, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    if path.len() > prefix.len() {
        out.push(path);
    }
}

/// Every path in `code` that starts with `crate::`, `super::` or `self::`
/// (not `$crate::` in a macro).
fn module_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for keyword in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(keyword) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            parse_path(&code[at..], &[], &mut out);
        }
    }
    out
}

/// `path` as seen from the module `from`: `crate::a::b` → `[a, b]`,
/// `super::c` from `[a, b]` → `[a, c]`.
fn resolve(from: &[String], path: &[String]) -> ModPath {
    let mut base = from.to_vec();
    let mut rest = path;
    if rest.first().is_some_and(|p| p == "crate") {
        base.clear();
        rest = &rest[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => drop(base.pop()),
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    base.extend_from_slice(rest);
    base
}

/// A crate's import edges, each between two modules of the same parent
/// (`("query::state", "query::recovery")`), from every file of `src`.
fn imports(src: &Path) -> BTreeSet<(String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<ModPath> = files
        .iter()
        .filter_map(|f| module_of(f.strip_prefix(src).expect("under src")))
        .collect();
    let mut edges = BTreeSet::new();
    for file in &files {
        let Some(from) = module_of(file.strip_prefix(src).expect("under src")) else {
            continue;
        };
        let code = without_comments(&fs::read_to_string(file).expect("readable"));
        for path in module_paths(&code) {
            let to = resolve(&from, &path);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common >= from.len() || common >= to.len() {
                continue; // one is the other's ancestor
            }
            let target = to[..=common].to_vec();
            if modules.contains(&target) {
                edges.insert((from[..=common].join("::"), target.join("::")));
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
    // Transitive closure; a few dozen modules, so the simple fixpoint is enough.
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
fn core_imports_follow_the_direction_table() {
    let edges: BTreeSet<(String, String)> = imports(&crate_dirs()["tack-core"].join("src"))
        .into_iter()
        .filter(|(from, to)| !from.contains("::") && !to.contains("::"))
        .collect();
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
    let allowed: BTreeMap<&str, &[&str]> = CORE_ALLOWED.iter().copied().collect();
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
fn no_modules_import_each_other_in_a_circle_in_any_crate() {
    let mut circles = BTreeSet::new();
    let mut modules_seen = 0;
    for (name, dir) in crate_dirs() {
        let edges = imports(&dir.join("src"));
        modules_seen += edges.len();
        for (a, b) in mutually_reachable(&edges) {
            circles.insert((name.clone(), a, b));
        }
    }
    assert!(modules_seen > 100, "only {modules_seen} imports found");
    let known: BTreeSet<(String, String, String)> = KNOWN_CYCLES
        .iter()
        .map(|(c, a, b)| ((*c).to_owned(), (*a).to_owned(), (*b).to_owned()))
        .collect();
    assert_eq!(circles, known);
}

#[test]
fn the_scan_reads_paths_groups_and_skips_comments() {
    let code = without_comments(
        "use crate::compact::{A, B};\n\
         use crate::{deps::QueryDeps, query::{State, Transition}};\n\
         use super::state::{self, X};\n\
         //! [`crate::session::Session`]\n\
         let x = crate::request::build(); // crate::context\n\
         macro_rules! m { () => { $crate::executor::X } }\n\
         pub(super) fn f() {}\n\
         #[cfg(test)]\n\
         mod tests {\n\
         use crate::permission::Y;\n\
         }",
    );
    let from: ModPath = vec!["query".into(), "event".into()];
    let resolved: BTreeSet<String> = module_paths(&code)
        .iter()
        .map(|p| resolve(&from, p).join("::"))
        .collect();
    assert_eq!(
        resolved,
        BTreeSet::from(
            [
                "compact::A",
                "compact::B",
                "deps::QueryDeps",
                "query::State",
                "query::Transition",
                "query::state::self",
                "query::state::X",
                "request::build",
            ]
            .map(String::from)
        )
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
