//! The directory walk shared by Glob, Grep and LS: the `ignore` crate's walker
//! with ripgrep's filters (.gitignore, .ignore, hidden files), except that
//! .gitignore files count outside git repositories too, and `.git` itself is
//! never entered.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicUsize, Ordering};

use ignore::{DirEntry, WalkBuilder, WalkState};
use serde_json::Value;
use tack_tool::{ToolEnv, ToolError};

use crate::file_state;

pub(crate) fn walker(root: &Path, skip_hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(true)
        .hidden(skip_hidden)
        .require_git(false)
        .filter_entry(|entry| entry.file_name() != ".git");
    // (LS replaces this filter with one that also applies its ignore globs.)
    builder
}

/// Walks what `builder` describes from `base`, giving each entry to a visitor
/// that `visitor()` makes (one per walking thread) until a visitor returns
/// `false`.
///
/// The `ignore` crate's parallel walk lets an idle worker sleep 1 ms at a time
/// while it waits for work, and the walk ends only when every worker has
/// noticed: so a walk of a small tree costs at least a millisecond of waiting,
/// on every Glob and Grep call, between the model's answer and the next
/// request. A tree whose last walk saw fewer than [`PARALLEL_FROM`] entries is
/// walked on the calling thread instead (no threads, no sleeps); a larger one,
/// in parallel, as ripgrep does. A tree never walked before is walked on the
/// calling thread the first time.
pub(crate) fn visit<'s, F>(builder: &WalkBuilder, base: &Path, mut visitor: impl FnMut() -> F)
where
    F: FnMut(Result<DirEntry, ignore::Error>) -> bool + Send + 's,
{
    let seen = AtomicUsize::new(0);
    if last_size(base).is_some_and(|n| n >= PARALLEL_FROM) {
        builder.build_parallel().run(|| {
            let mut visit = visitor();
            let seen = &seen;
            Box::new(move |entry| {
                seen.fetch_add(1, Ordering::Relaxed);
                if visit(entry) {
                    WalkState::Continue
                } else {
                    WalkState::Quit
                }
            })
        });
    } else {
        let mut visit = visitor();
        for entry in builder.build() {
            seen.fetch_add(1, Ordering::Relaxed);
            if !visit(entry) {
                break;
            }
        }
    }
    remember_size(base, seen.into_inner());
}

/// Entries a walk must have seen for the next walk of the same folder to run
/// in parallel: a walk this small takes a few milliseconds on one thread, about
/// what the parallel walk's start and its idle workers' sleeps cost (chosen,
/// not tuned; the 50,000-file figures in BENCHMARKS.md are parallel walks).
pub(crate) const PARALLEL_FROM: usize = 2_000;

/// How many folders' sizes are kept (most recent first).
const SIZES_KEPT: usize = 32;

static SIZES: Mutex<Vec<(PathBuf, usize)>> = Mutex::new(Vec::new());

fn last_size(base: &Path) -> Option<usize> {
    let sizes = SIZES.lock().unwrap_or_else(PoisonError::into_inner);
    sizes.iter().find(|(p, _)| p == base).map(|(_, n)| *n)
}

fn remember_size(base: &Path, seen: usize) {
    let mut sizes = SIZES.lock().unwrap_or_else(PoisonError::into_inner);
    sizes.retain(|(p, _)| p != base);
    sizes.insert(0, (base.to_path_buf(), seen));
    sizes.truncate(SIZES_KEPT);
}

/// The directory (or file) to search: `path` resolved against the cwd, or the
/// cwd. Models sometimes send the strings "undefined" or "null" for "none".
pub(crate) fn search_root(env: &ToolEnv, path: Option<&str>) -> PathBuf {
    match path.map(str::trim) {
        None | Some("" | "undefined" | "null") => env.cwd(),
        Some(p) => file_state::resolve(env, p),
    }
}

/// `search_root` for `paths_touched`, from the raw input.
pub(crate) fn touched_root(env: &ToolEnv, input: &Value) -> Vec<PathBuf> {
    vec![search_root(env, input.get("path").and_then(Value::as_str))]
}

pub(crate) fn missing_root(root: &Path, env: &ToolEnv) -> ToolError {
    ToolError::new(format!(
        "Path does not exist: {}. Current working directory: {}",
        root.display(),
        env.cwd().display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file `visit` gives under `base`, sorted, relative to it.
    fn files(base: &Path) -> Vec<String> {
        let found = Mutex::new(Vec::new());
        visit(&walker(base, true), base, || {
            let found = &found;
            move |entry: Result<DirEntry, ignore::Error>| {
                let entry = entry.expect("a readable entry");
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    let rel = entry.path().strip_prefix(base).expect("under base");
                    found.lock().expect("lock").push(rel.display().to_string());
                }
                true
            }
        });
        let mut found = found.into_inner().expect("lock");
        found.sort();
        found
    }

    #[test]
    fn a_large_tree_is_walked_alike_on_one_thread_then_in_parallel() {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path();
        std::fs::write(base.join(".gitignore"), "ignored/\n").expect("write");
        // Hidden files (`.gitignore`, `.hidden`) are left out, as ignored ones.
        let mut expected = Vec::new();
        for d in 0..50 {
            let sub = base.join(format!("d{d:02}"));
            std::fs::create_dir(&sub).expect("mkdir");
            for f in 0..(PARALLEL_FROM / 50) {
                std::fs::write(sub.join(format!("f{f:03}.txt")), "x").expect("write");
                expected.push(format!("d{d:02}/f{f:03}.txt"));
            }
        }
        std::fs::create_dir(base.join("ignored")).expect("mkdir");
        std::fs::write(base.join("ignored/skip.txt"), "x").expect("write");
        std::fs::write(base.join(".hidden"), "x").expect("write");
        expected.sort();

        assert_eq!(last_size(base), None);
        // First walk: on the calling thread; it remembers the tree's size.
        assert_eq!(files(base), expected);
        let seen = last_size(base).expect("remembered");
        assert!(seen >= PARALLEL_FROM, "{seen} entries");
        // Second walk: in parallel, the same files.
        assert_eq!(files(base), expected);
        assert_eq!(last_size(base), Some(seen));
    }

    #[test]
    fn a_visitor_that_says_stop_ends_the_walk() {
        let dir = tempfile::tempdir().expect("temp dir");
        for f in 0..10 {
            std::fs::write(dir.path().join(format!("f{f}")), "x").expect("write");
        }
        let calls = AtomicUsize::new(0);
        visit(&walker(dir.path(), true), dir.path(), || {
            let calls = &calls;
            move |_: Result<DirEntry, ignore::Error>| calls.fetch_add(1, Ordering::Relaxed) < 2
        });
        assert_eq!(calls.into_inner(), 3);
        assert_eq!(last_size(dir.path()), Some(3));
    }
}
