//! `git log --oneline -n N` read in-process: HEAD's commit and its ancestors
//! newest first, each as `<abbreviated id> <subject>`, as git prints them to
//! a pipe. One `git` process fewer before the first request.
//!
//! [`Fact::Unsure`] (run `git log`) wherever git could print something else:
//! config that changes the output (`core.abbrev`, `log.decorate`, an
//! `i18n.*` encoding, includes), replaced or grafted history, a commit in
//! another encoding, reftable refs, and anything [`ObjectStore`] cannot read.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::path::Path;

use crate::files::{self, Fact, RepoDirs};
use crate::objects::{Kind, ObjectId, ObjectStore, from_hex, to_hex};

/// Git's shortest automatic abbreviation.
const MIN_ABBREV: usize = 7;

/// The newest `limit` commits reachable from HEAD, one line each, joined with
/// newlines; empty on an unborn branch.
/// `config` is [`crate::files::config_text`]'s.
pub(crate) fn recent_commits(repo: &RepoDirs, config: &str, limit: usize) -> Fact<String> {
    if history_is_rewritten(repo) || files::config_mentions(config, OUTPUT_KEYS) {
        return Fact::Unsure;
    }
    let head = match head_commit(repo) {
        Fact::Known(Some(id)) => id,
        Fact::Known(None) => return Fact::Known(String::new()),
        Fact::Unsure => return Fact::Unsure,
    };
    let Fact::Known(store) = ObjectStore::open(&repo.common_dir) else {
        return Fact::Unsure;
    };
    let shallow = shallow_commits(&repo.common_dir);
    walk(&store, head, limit, &shallow)
}

/// Fragments (lowercase) of config whose presence anywhere can change what
/// `git log --oneline` prints to a pipe: `core.abbrev`, `log.decorate`,
/// `i18n.logOutputEncoding`, includes (of any of these), `color.* = always`.
const OUTPUT_KEYS: &[&str] = &["abbrev", "decorate", "encoding", "include", "always"];

/// Replace refs, grafts: git would show another history than the objects'.
fn history_is_rewritten(repo: &RepoDirs) -> bool {
    let common = &repo.common_dir;
    if common.join("info/grafts").exists() || common.join("reftable").exists() {
        return true;
    }
    let replace_dir = std::fs::read_dir(common.join("refs/replace"))
        .map(|mut entries| entries.next().is_some())
        .unwrap_or(false);
    let packed = std::fs::read_to_string(common.join("packed-refs")).unwrap_or_default();
    replace_dir || packed.contains(" refs/replace/")
}

/// The commit HEAD names: `Known(None)` on an unborn branch.
pub(crate) fn head_commit(repo: &RepoDirs) -> Fact<Option<ObjectId>> {
    let Ok(head) = std::fs::read_to_string(repo.git_dir.join("HEAD")) else {
        return Fact::Unsure;
    };
    let head = head.trim_end();
    let Some(name) = head.strip_prefix("ref: ") else {
        return from_hex(head).map_or(Fact::Unsure, |id| Fact::Known(Some(id)));
    };
    if !name.starts_with("refs/") || name.contains("..") {
        return Fact::Unsure;
    }
    // Per-worktree refs live in the worktree's own dir; branches in the
    // common one.
    match std::fs::read_to_string(repo.common_dir.join(name)) {
        Ok(text) => {
            let text = text.trim_end();
            if text.starts_with("ref: ") {
                return Fact::Unsure;
            }
            return from_hex(text).map_or(Fact::Unsure, |id| Fact::Known(Some(id)));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return Fact::Unsure,
    }
    let packed = match std::fs::read_to_string(repo.common_dir.join("packed-refs")) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Fact::Known(None),
        Err(_) => return Fact::Unsure,
    };
    for line in packed.lines() {
        if let Some((hex, refname)) = line.split_once(' ')
            && refname == name
        {
            return from_hex(hex).map_or(Fact::Unsure, |id| Fact::Known(Some(id)));
        }
    }
    Fact::Known(None)
}

/// The commits a shallow clone cut the parents of.
fn shallow_commits(common: &Path) -> HashSet<ObjectId> {
    std::fs::read_to_string(common.join("shallow"))
        .unwrap_or_default()
        .lines()
        .filter_map(from_hex)
        .collect()
}

/// Git's default walk: the newest commit by committer date first (ties in
/// the order they were queued), each commit once.
fn walk(
    store: &ObjectStore,
    head: ObjectId,
    limit: usize,
    shallow: &HashSet<ObjectId>,
) -> Fact<String> {
    let abbrev = auto_abbrev(store.packed_count());
    let mut queued = HashSet::from([head]);
    let mut queue = BinaryHeap::new();
    let mut seq = 0u64;
    let Fact::Known(first) = parse(store, &head) else {
        return Fact::Unsure;
    };
    queue.push((first.time, Reverse(seq), head, first));
    let mut lines = Vec::new();
    while lines.len() < limit {
        let Some((_, _, id, commit)) = queue.pop() else {
            break;
        };
        let len = store.unique_hex_len(&id, abbrev);
        lines.push(format!("{} {}", &to_hex(&id)[..len], commit.subject));
        if shallow.contains(&id) {
            continue;
        }
        for parent in commit.parents {
            if !queued.insert(parent) {
                continue;
            }
            let Fact::Known(parsed) = parse(store, &parent) else {
                return Fact::Unsure;
            };
            seq += 1;
            queue.push((parsed.time, Reverse(seq), parent, parsed));
        }
    }
    Fact::Known(lines.join("\n"))
}

/// Git's automatic abbreviation for a repository with `packed` packed
/// objects: half the bits of the count, in hex digits, at least 7.
fn auto_abbrev(packed: u64) -> usize {
    let bits = (u64::BITS - packed.leading_zeros()).max(1) as usize;
    bits.div_ceil(2).max(MIN_ABBREV)
}

/// What the walk needs of a commit.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Commit {
    parents: Vec<ObjectId>,
    /// Committer time, seconds since the epoch.
    time: i64,
    subject: String,
}

fn parse(store: &ObjectStore, id: &ObjectId) -> Fact<Commit> {
    match store.read(id) {
        Fact::Known((Kind::Commit, bytes)) => {
            parse_commit(&bytes).map_or(Fact::Unsure, Fact::Known)
        }
        Fact::Known((Kind::Other, _)) | Fact::Unsure => Fact::Unsure,
    }
}

/// A commit object's parents, committer time and subject (`%s`: the first
/// paragraph's lines, each without trailing white space, joined by spaces).
/// `None` for a commit in another encoding or one that does not parse.
fn parse_commit(bytes: &[u8]) -> Option<Commit> {
    let text = String::from_utf8_lossy(bytes);
    let (headers, message) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut parents = Vec::new();
    let mut time = None;
    for line in headers.lines() {
        if let Some(hex) = line.strip_prefix("parent ") {
            parents.push(from_hex(hex)?);
        } else if let Some(who) = line.strip_prefix("committer ") {
            // `Name <email> 1700000000 +0100`
            let mut fields = who.rsplitn(3, ' ');
            let _zone = fields.next()?;
            time = Some(fields.next()?.parse().ok()?);
        } else if let Some(encoding) = line.strip_prefix("encoding ")
            && !encoding.eq_ignore_ascii_case("utf-8")
            && !encoding.eq_ignore_ascii_case("utf8")
        {
            return None;
        }
    }
    let subject = message
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .map(str::trim_end)
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(Commit {
        parents,
        time: time?,
        subject,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn abbreviation_grows_with_the_packed_object_count() {
        assert_eq!(
            [0, 1, 8191, 16_383, 16_384, 1 << 20, 10_000_000].map(auto_abbrev),
            [7, 7, 7, 7, 8, 11, 12]
        );
    }

    #[test]
    fn a_commit_parses_to_parents_time_and_a_one_line_subject() {
        let p1 = "1".repeat(40);
        let p2 = "2".repeat(40);
        let raw = format!(
            "tree {t}\nparent {p1}\nparent {p2}\nauthor A <a@b> 1 +0000\n\
             committer C D <c@d> 1700000000 +0100\ngpgsig -----BEGIN-----\n x\n -----END-----\n\n\
             \n  Fix the thing  \nacross lines\t\n\nBody.\n",
            t = "0".repeat(40)
        );
        assert_eq!(
            parse_commit(raw.as_bytes()),
            Some(Commit {
                parents: vec![from_hex(&p1).unwrap(), from_hex(&p2).unwrap()],
                time: 1_700_000_000,
                subject: "  Fix the thing across lines".to_owned(),
            })
        );
        let latin1 = "tree x\ncommitter C <c> 5 +0000\nencoding ISO-8859-1\n\nhi\n";
        assert_eq!(parse_commit(latin1.as_bytes()), None);
        assert_eq!(parse_commit(b"tree x\n\nno committer\n"), None);
    }
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod repo_tests;
