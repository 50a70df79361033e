//! Modules import one way, in every crate of the workspace. Reads every
//! `crate::`, `super::` and `self::` path in the code of each crate's `src/`
//! (comments and `#[cfg(test)]` modules, inline or in their own files,
//! skipped), and checks that no two modules reach each other, the known
//! exception aside, and tack-core's top-level imports against its table of
//! allowed directions.
//!
//! A path through a re-export counts as an import of the module that defines
//! the name: each module's `use` items are read (`pub use`, `pub(crate) use`
//! and private ones, which its children see as `super::Name`; groups, `self`,
//! renames with `as` and globs `x::*`, a name the module defines hiding a
//! glob's), so `crate::PluginSummary` for a `pub use event::PluginSummary` in
//! lib.rs is an import of `event`, and `super::Leaf` for a `pub use
//! self::leaf::Leaf` in `tree/mod.rs` one of `tree::leaf`. Not seen: names a
//! non-test `use super::*` brings in and then uses bare, and `use` paths that
//! start with a name imported from elsewhere.
//!
//! Inside a crate, a name is imported from the module that defines it, not
//! through the crate root's re-exports (those are for other crates): no
//! module's `crate::Name` or `super::Name` reaches another module's name
//! through lib.rs.
//!
//! Modules are compared at each level of the tree: `query` with `compact`
//! (top level), `query::state` with `query::recovery` (inside `query`). An
//! import of a name a module's own ancestor defines (`super::Thing` defined in
//! `mod.rs`) is no edge: a parent and its children are one unit seen from
//! outside.

mod fixtures;
mod scan;
mod tree;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use scan::{ModPath, NamedPath, module_paths, resolve, use_items, without_comments};
use tree::CrateTree;

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

/// A crate's import edges, each between two modules of the same parent
/// (`("query::state", "query::recovery")`), from every file of `src`.
fn imports(src: &Path) -> BTreeSet<(String, String)> {
    let tree = CrateTree::load(src);
    let mut edges = BTreeSet::new();
    for (from, code) in &tree.files {
        for named in module_paths(code) {
            let mut to = resolve(from, &named.path);
            if to.last().is_some_and(|p| p == "self" || p == "*") {
                to.pop();
            }
            let to = tree.canonical(to);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common >= from.len() || common >= to.len() {
                continue; // one is the other's ancestor
            }
            let target = to[..=common].to_vec();
            if tree.modules.contains(&target) {
                edges.insert((from[..=common].join("::"), target.join("::")));
            }
        }
    }
    edges
}

/// Each path (as `(module, path from the root)`) by which a module imports a
/// name through its crate root's re-exports: those are for other crates;
/// inside the crate a name comes from the module that defines it.
fn through_root(src: &Path) -> BTreeSet<(String, String)> {
    let tree = CrateTree::load(src);
    let mut out = BTreeSet::new();
    for (from, code) in tree.files.iter().filter(|(from, _)| !from.is_empty()) {
        for named in module_paths(code) {
            let to = resolve(from, &named.path);
            if tree.through_root(&to) {
                out.insert((from.join("::"), to.join("::")));
            }
        }
    }
    out
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
fn no_module_imports_a_name_through_its_crate_roots_re_exports() {
    let mut found = BTreeSet::new();
    for (name, dir) in crate_dirs() {
        for (module, path) in through_root(&dir.join("src")) {
            found.insert((name.clone(), module, path));
        }
    }
    assert_eq!(found, BTreeSet::new());
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
        .map(|p| resolve(&from, &p.path).join("::"))
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
fn the_scan_reads_use_items_with_renames_globs_and_visibility() {
    let code = without_comments(
        "pub use self::leaf::{Leaf, Other as Renamed};\n\
         pub(crate) use trunk::*;\n\
         pub(in crate::tree) use crate::a::{\n    self,\n    b::B,\n};\n\
         use tack_protocol::Message as _;\n\
         fn f() {\n    use crate::hidden::H;\n}\n\
         #[cfg(test)]\n\
         #[path = \"x_tests.rs\"]\n\
         mod tests;\n\
         use crate::after::Tests;",
    );
    let named = |path: &[&str], alias: Option<&str>| NamedPath {
        path: path.iter().map(|p| (*p).to_owned()).collect(),
        alias: alias.map(str::to_owned),
    };
    assert_eq!(
        use_items(&code),
        vec![
            named(&["self", "leaf", "Leaf"], None),
            named(&["self", "leaf", "Other"], Some("Renamed")),
            named(&["trunk", "*"], None),
            named(&["crate", "a", "self"], None),
            named(&["crate", "a", "b", "B"], None),
            named(&["tack_protocol", "Message"], Some("_")),
            named(&["crate", "after", "Tests"], None),
        ]
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
