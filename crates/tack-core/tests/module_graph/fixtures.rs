//! The guard on small crates written for it: circles that only show through
//! re-exports (a rename at the crate root, a glob, a `pub(crate) use` in a
//! `mod.rs`), and the same crate with them broken.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::{imports, mutually_reachable, through_root};

/// The files both crates share. `util` imports `crate::Local`, which lib.rs
/// defines and which hides the glob's `event::Local`; its test module (a file
/// at a `#[path]`) imports what would be an edge if test code counted.
const COMMON: &[(&str, &str)] = &[
    (
        "lib.rs",
        "mod event;\nmod plugins;\nmod tree;\nmod util;\n\n\
         pub use event::*;\npub use plugins::PluginSummary as Summary;\n\n\
         pub struct Local;\n",
    ),
    (
        "event.rs",
        "use crate::util::helper;\n\n\
         /// [`crate::plugins::PluginSummary`] in a comment is no import.\n\
         pub struct Event {\n    pub summary: crate::Summary,\n}\n\n\
         pub struct Local;\n",
    ),
    (
        "util.rs",
        "use crate::Local;\n\npub fn helper() {}\n\n\
         #[cfg(test)]\n#[path = \"util_tests.rs\"]\nmod tests;\n",
    ),
    ("util_tests.rs", "use crate::Event;\n"),
    (
        "tree/mod.rs",
        "mod leaf;\nmod trunk;\n\n\
         pub(crate) use self::leaf::{Leaf, Other as Branch};\npub use trunk::*;\n",
    ),
    (
        "tree/leaf.rs",
        "pub struct Leaf;\n\npub struct Other(super::Trunk);\n",
    ),
];

/// Writes `files` under `dir`'s `src/`.
fn write_crate(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join("src").join(path);
        fs::create_dir_all(path.parent().expect("in src")).expect("create dir");
        fs::write(path, text).expect("write");
    }
}

fn pairs(list: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn circles_through_re_exports_are_reported_at_each_level() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_crate(dir.path(), COMMON);
    write_crate(
        dir.path(),
        &[
            (
                "plugins.rs",
                // `crate::Event` is the root glob's `event::Event`.
                "pub struct PluginSummary;\n\npub fn first(events: &[crate::Event]) {}\n",
            ),
            // `super::Branch` is `tree::leaf::Other`, renamed.
            ("tree/trunk.rs", "pub struct Trunk(Vec<super::Branch>);\n"),
        ],
    );
    let src = dir.path().join("src");
    assert_eq!(
        mutually_reachable(&imports(&src)),
        pairs(&[("event", "plugins"), ("tree::leaf", "tree::trunk")])
    );
    assert_eq!(
        through_root(&src),
        pairs(&[("event", "Summary"), ("plugins", "Event")])
    );
}

#[test]
fn the_same_crate_without_the_back_edges_has_none() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_crate(dir.path(), COMMON);
    write_crate(
        dir.path(),
        &[
            (
                "plugins.rs",
                "pub struct PluginSummary;\n\n\
                 #[cfg(test)]\nmod tests {\n    use crate::util::helper;\n}\n",
            ),
            ("tree/trunk.rs", "pub struct Trunk;\n"),
        ],
    );
    let edges = imports(&dir.path().join("src"));
    assert_eq!(
        edges,
        pairs(&[
            ("event", "plugins"),
            ("event", "util"),
            ("tree::leaf", "tree::trunk"),
        ])
    );
    assert_eq!(mutually_reachable(&edges), BTreeSet::new());
}
