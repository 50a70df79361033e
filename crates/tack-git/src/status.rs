//! `git status --short --branch` read in-process: the index against HEAD's
//! tree (staged), the work tree against the index (unstaged: stat data, then
//! content hashes where the stat data cannot tell), and the untracked files
//! as git lists them (a directory without tracked files as `dir/`), with
//! `.gitignore`, `info/exclude` and the global excludes applied. The `git
//! status` process was the last one before the first request (~2 ms).
//!
//! [`Fact::Unsure`] (run `git status`) wherever git could print something
//! else: config that changes status (renames, line endings, case folding,
//! sparse or split indexes, `status.*`, …), attributes when a file's content
//! must be compared (a filter or line-ending conversion may apply), staged
//! additions beside staged deletions (git may show a rename), submodules,
//! conflicts, a path git would quote, a repository owned by another user
//! (git refuses it), and repositories larger than [`MAX_PATHS`].

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha1::{Digest, Sha1};

use crate::files::{Fact, GitEnv, RepoDirs};
use crate::head;
use crate::index::{self, Index, IndexEntry, StatData};
use crate::log;
use crate::objects::{ObjectId, ObjectStore, from_hex};

/// Most index entries, tree entries or walked paths read in-process; git's
/// own caches (untracked cache, fsmonitor, cache-tree) win beyond that.
const MAX_PATHS: usize = 20_000;
/// Most bytes hashed to compare contents.
const MAX_HASHED_BYTES: u64 = 64 << 20;

const GITLINK: u32 = 0o160000;
const SYMLINK: u32 = 0o120000;
const TYPE_MASK: u32 = 0o170000;

/// What `git status --short --branch` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShortStatus {
    /// The checked-out branch (also unborn); `None` when detached.
    pub branch: Option<String>,
    /// The `XY path` lines, newline-joined, no trailing newline.
    pub files: String,
}

/// The status of the repository as seen from `cwd` (paths relative to it,
/// as git prints them). `config` is [`crate::files::config_text`]'s.
pub(crate) fn short_status(
    repo: &RepoDirs,
    env: &GitEnv,
    config: &str,
    cwd: &Path,
) -> Fact<ShortStatus> {
    if config_changes_status(config) || !owned_by_us(repo) {
        return Fact::Unsure;
    }
    let Fact::Known(branch) = head::branch_in(&repo.git_dir) else {
        return Fact::Unsure;
    };
    let Ok(prefix) = cwd.strip_prefix(&repo.work_tree) else {
        return Fact::Unsure;
    };
    let Some((index, index_mtime)) = read_index(repo) else {
        return Fact::Unsure;
    };
    if index.entries.len() > MAX_PATHS
        || index
            .entries
            .iter()
            .any(|e| e.mode == GITLINK || !plain_path(&e.path))
        || tracked_dirs(&index)
            .iter()
            .any(|d| is_symlink(&repo.work_tree, d))
    {
        return Fact::Unsure;
    }
    let head = match log::head_commit(repo) {
        Fact::Known(head) => head,
        Fact::Unsure => return Fact::Unsure,
    };
    let Fact::Known(mut changes) = staged_changes(repo, &index, head) else {
        return Fact::Unsure;
    };
    let conversion = attributes_possible(repo, env, &index);
    let mut hashed = 0;
    for entry in &index.entries {
        let path = repo.work_tree.join(OsStr::from_bytes(&entry.path));
        let Some(code) = worktree_code(&path, entry, index_mtime, conversion, &mut hashed) else {
            return Fact::Unsure;
        };
        if code != b' ' {
            changes.entry(entry.path.clone()).or_insert([b' ', b' '])[1] = code;
        }
    }
    let Some(untracked) = untracked(repo, env, &index) else {
        return Fact::Unsure;
    };
    let prefix: Vec<&[u8]> = prefix
        .components()
        .map(|c| c.as_os_str().as_bytes())
        .collect();
    let lines = changes
        .iter()
        .map(|(path, code)| (code.as_slice(), path))
        .chain(untracked.iter().map(|path| (b"??".as_slice(), path)));
    let mut files = Vec::new();
    for (code, path) in lines {
        let shown = relative(path, &prefix);
        if shown.iter().any(|b| needs_quoting(*b)) {
            return Fact::Unsure;
        }
        files.extend_from_slice(code);
        files.push(b' ');
        files.extend_from_slice(&shown);
        files.push(b'\n');
    }
    files.pop();
    match String::from_utf8(files) {
        Ok(files) => Fact::Known(ShortStatus { branch, files }),
        Err(_) => Fact::Unsure,
    }
}

/// Config (lowercased, whitespace removed per line) that changes what
/// `status` compares or prints. Coarse: a URL containing `status` also
/// counts, and then `git` runs, which is only slower.
fn config_changes_status(config: &str) -> bool {
    const ANYWHERE: &[&str] = &[
        "include",
        "status",
        "renames",
        "sparse",
        "splitindex",
        "checkstat",
        "trustctime",
        "quotepath",
        "excludesfile",
        "attributesfile",
        "autocrlf",
        "eol",
        "worktree=",
        "objectformat",
        "refstorage",
        "precompose",
    ];
    // Keys `git init` writes: only their default value is understood.
    const DEFAULTS: &[(&str, &str)] = &[
        ("filemode", "filemode=true"),
        ("bare", "bare=false"),
        ("symlinks", "symlinks=true"),
        ("ignorecase", "ignorecase=false"),
    ];
    config.lines().any(|line| {
        let line: String = line
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        ANYWHERE.iter().any(|f| line.contains(f))
            || DEFAULTS
                .iter()
                .any(|(key, default)| line.contains(key) && line != *default)
    })
}

/// Git refuses a repository another user owns ("dubious ownership").
fn owned_by_us(repo: &RepoDirs) -> bool {
    let Ok(me) = std::fs::metadata("/proc/self").map(|m| m.uid()) else {
        return false;
    };
    [&repo.work_tree, &repo.git_dir]
        .iter()
        .all(|dir| std::fs::metadata(dir).is_ok_and(|m| m.uid() == me))
}

/// The index and its file's mtime (for racily clean entries); an empty
/// index when there is none yet.
fn read_index(repo: &RepoDirs) -> Option<(Index, (u32, u32))> {
    let path = repo.git_dir.join("index");
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let empty = Index {
                entries: Vec::new(),
                root_tree: None,
            };
            return Some((empty, (0, 0)));
        }
        Err(_) => return None,
    };
    let meta = std::fs::metadata(&path).ok()?;
    let mtime = (meta.mtime() as u32, meta.mtime_nsec() as u32);
    match index::parse(&bytes) {
        Fact::Known(index) => Some((index, mtime)),
        Fact::Unsure => None,
    }
}

/// `X` of each staged change: the index against HEAD's tree.
fn staged_changes(
    repo: &RepoDirs,
    index: &Index,
    head: Option<ObjectId>,
) -> Fact<BTreeMap<Vec<u8>, [u8; 2]>> {
    let mut changes = BTreeMap::new();
    let Some(head) = head else {
        for entry in &index.entries {
            changes.insert(entry.path.clone(), [b'A', b' ']);
        }
        return Fact::Known(changes);
    };
    let Fact::Known(store) = ObjectStore::open(&repo.common_dir) else {
        return Fact::Unsure;
    };
    let Some(tree) = commit_tree(&store, &head) else {
        return Fact::Unsure;
    };
    if index.root_tree == Some(tree) {
        return Fact::Known(changes);
    }
    let mut committed = BTreeMap::new();
    if read_tree(&store, &tree, b"", &mut committed).is_none() {
        return Fact::Unsure;
    }
    for entry in &index.entries {
        let code = match committed.remove(&entry.path) {
            None => b'A',
            Some((mode, _)) if mode & TYPE_MASK != entry.mode & TYPE_MASK => b'T',
            Some((mode, id)) if mode != entry.mode || id != entry.id => b'M',
            Some(_) => continue,
        };
        changes.insert(entry.path.clone(), [code, b' ']);
    }
    let added = changes.values().any(|c| c[0] == b'A');
    if added && !committed.is_empty() {
        // git may pair them as a rename.
        return Fact::Unsure;
    }
    for path in committed.into_keys() {
        changes.insert(path, [b'D', b' ']);
    }
    Fact::Known(changes)
}

/// The tree a commit records.
fn commit_tree(store: &ObjectStore, commit: &ObjectId) -> Option<ObjectId> {
    let Fact::Known((_, bytes)) = store.read(commit) else {
        return None;
    };
    let hex = bytes.strip_prefix(b"tree ")?.get(..40)?;
    from_hex(std::str::from_utf8(hex).ok()?)
}

/// Every file under `tree`, by path, with its mode and id.
fn read_tree(
    store: &ObjectStore,
    tree: &ObjectId,
    prefix: &[u8],
    into: &mut BTreeMap<Vec<u8>, (u32, ObjectId)>,
) -> Option<()> {
    let Fact::Known((_, bytes)) = store.read(tree) else {
        return None;
    };
    let mut rest = bytes.as_slice();
    while !rest.is_empty() {
        let space = rest.iter().position(|b| *b == b' ')?;
        let mode = u32::from_str_radix(std::str::from_utf8(&rest[..space]).ok()?, 8).ok()?;
        let nul = rest.iter().position(|b| *b == 0)?;
        let name = rest.get(space + 1..nul)?;
        let id: ObjectId = rest.get(nul + 1..nul + 21)?.try_into().ok()?;
        rest = &rest[nul + 21..];
        let mut path = prefix.to_vec();
        path.extend_from_slice(name);
        match mode {
            0o40000 => {
                path.push(b'/');
                read_tree(store, &id, &path, into)?;
            }
            GITLINK => return None,
            _ => {
                into.insert(path, (mode, id));
            }
        }
        if into.len() > MAX_PATHS {
            return None;
        }
    }
    Some(())
}

/// Whether a `.gitattributes` could apply a filter or line-ending
/// conversion, so that a file's bytes are not what git hashes.
fn attributes_possible(repo: &RepoDirs, env: &GitEnv, index: &Index) -> bool {
    let mut files = vec![
        repo.common_dir.join("info/attributes"),
        PathBuf::from("/etc/gitattributes"),
    ];
    files.extend(env.git_prefix.as_ref().map(|p| p.join("etc/gitattributes")));
    match &env.xdg_config_home {
        Some(xdg) => files.push(xdg.join("git/attributes")),
        None => files.extend(env.home.as_ref().map(|h| h.join(".config/git/attributes"))),
    }
    files.iter().any(|f| f.exists())
        || index
            .entries
            .iter()
            .any(|e| e.path == b".gitattributes" || e.path.ends_with(b"/.gitattributes"))
        || repo.work_tree.join(".gitattributes").exists()
}

/// `Y` for one entry: ` ` unchanged, `M`, `D` or `T`; `None` where only git
/// can tell.
fn worktree_code(
    path: &Path,
    entry: &IndexEntry,
    index_mtime: (u32, u32),
    conversion: bool,
    hashed: &mut u64,
) -> Option<u8> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Some(b'D');
        }
        Err(_) => return None,
    };
    let kind = meta.file_type();
    let mode = if kind.is_symlink() {
        SYMLINK
    } else if kind.is_file() {
        if meta.mode() & 0o100 != 0 {
            0o100755
        } else {
            0o100644
        }
    } else {
        return None;
    };
    if mode & TYPE_MASK != entry.mode & TYPE_MASK {
        return Some(b'T');
    }
    if mode != entry.mode {
        return Some(b'M');
    }
    let stat = stat_of(&meta);
    let racy = index_mtime.0 < stat.mtime.0
        || (index_mtime.0 == stat.mtime.0 && index_mtime.1 <= stat.mtime.1);
    if stat == entry.stat && !racy {
        return Some(b' ');
    }
    if conversion && mode != SYMLINK {
        return None;
    }
    if stat.size != entry.stat.size && mode != SYMLINK {
        return Some(b'M');
    }
    let content = if mode == SYMLINK {
        std::fs::read_link(path)
            .ok()?
            .as_os_str()
            .as_bytes()
            .to_vec()
    } else {
        *hashed += meta.len();
        if *hashed > MAX_HASHED_BYTES {
            return None;
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::fs::File::open(path)
            .ok()?
            .take(meta.len() + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        bytes
    };
    Some(if blob_id(&content) == entry.id {
        b' '
    } else {
        b'M'
    })
}

/// The stat data as git records it (each field truncated to 32 bits).
fn stat_of(meta: &std::fs::Metadata) -> StatData {
    StatData {
        ctime: (meta.ctime() as u32, meta.ctime_nsec() as u32),
        mtime: (meta.mtime() as u32, meta.mtime_nsec() as u32),
        ino: meta.ino() as u32,
        uid: meta.uid(),
        gid: meta.gid(),
        size: meta.len() as u32,
    }
}

/// The id git gives a blob of `content`.
fn blob_id(content: &[u8]) -> ObjectId {
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", content.len()).as_bytes());
    hasher.update(content);
    hasher.finalize().into()
}

/// The untracked paths as git lists them: a file in a directory holding
/// tracked files by its path, else its topmost directory without tracked
/// files as `dir/`; nested repositories count as content. Sorted.
fn untracked(repo: &RepoDirs, env: &GitEnv, index: &Index) -> Option<BTreeSet<Vec<u8>>> {
    let work_tree = repo.work_tree.as_path();
    let tracked: HashSet<&[u8]> = index.entries.iter().map(|e| e.path.as_slice()).collect();
    let tracked_dirs = tracked_dirs(index);
    let nested: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let seen = Arc::clone(&nested);
    let mut walk = ignore::WalkBuilder::new(work_tree);
    // The excludes files from the environment git sees, matched from the
    // work tree's root; lowest precedence first.
    walk.current_dir(work_tree);
    let global = match &env.xdg_config_home {
        Some(xdg) => xdg.join("git/ignore"),
        None => env.home.as_ref()?.join(".config/git/ignore"),
    };
    for excludes in [global, repo.common_dir.join("info/exclude")] {
        if excludes.exists() && walk.add_ignore(&excludes).is_some() {
            return None;
        }
    }
    let walk = walk
        .hidden(false)
        .ignore(false)
        .parents(false)
        .git_ignore(true)
        .git_exclude(false)
        .git_global(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            if entry.file_name() == ".git" {
                return false;
            }
            let dir = entry.file_type().is_some_and(|t| t.is_dir());
            if dir && entry.depth() > 0 && entry.path().join(".git").exists() {
                if let Ok(mut nested) = seen.lock() {
                    nested.push(entry.path().to_path_buf());
                }
                return false;
            }
            true
        })
        .build();
    let mut found = BTreeSet::new();
    for (walked, entry) in walk.enumerate() {
        let entry = entry.ok()?;
        if walked > MAX_PATHS {
            return None;
        }
        if entry.file_type().is_none_or(|t| t.is_dir()) {
            continue;
        }
        let path = entry
            .path()
            .strip_prefix(work_tree)
            .ok()?
            .as_os_str()
            .as_bytes();
        if !tracked.contains(path) {
            found.insert(shown_untracked(path, &tracked_dirs, false));
        }
    }
    for dir in nested.lock().ok()?.iter() {
        let path = dir.strip_prefix(work_tree).ok()?.as_os_str().as_bytes();
        if !tracked.contains(path) {
            found.insert(shown_untracked(path, &tracked_dirs, true));
        }
    }
    Some(found)
}

/// Every directory holding a tracked file (at any depth).
fn tracked_dirs(index: &Index) -> HashSet<&[u8]> {
    let mut dirs = HashSet::new();
    for entry in &index.entries {
        for (i, b) in entry.path.iter().enumerate() {
            if *b == b'/' {
                dirs.insert(&entry.path[..i]);
            }
        }
    }
    dirs
}

/// A path git itself would accept in an index: relative, no empty, `.`,
/// `..` or `.git` component (a hostile index must not make this read
/// outside the work tree).
fn plain_path(path: &[u8]) -> bool {
    path.split(|b| *b == b'/')
        .all(|part| !matches!(part, b"" | b"." | b"..") && !part.eq_ignore_ascii_case(b".git"))
}

/// A tracked directory that is a symlink in the work tree (git would see
/// the files below it as deleted; the reads here would follow it).
fn is_symlink(work_tree: &Path, dir: &[u8]) -> bool {
    std::fs::symlink_metadata(work_tree.join(OsStr::from_bytes(dir)))
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// An untracked `path` as listed: its topmost ancestor directory (itself if
/// `is_dir`) that holds no tracked file, with a `/`, else the path itself.
fn shown_untracked(path: &[u8], tracked_dirs: &HashSet<&[u8]>, is_dir: bool) -> Vec<u8> {
    let ends = path
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'/')
        .map(|(i, _)| i)
        .chain(is_dir.then_some(path.len()));
    for end in ends {
        if !tracked_dirs.contains(&path[..end]) {
            let mut dir = path[..end].to_vec();
            dir.push(b'/');
            return dir;
        }
    }
    path.to_vec()
}

/// `path` (from the work tree's root; a trailing `/` for a directory) as git
/// shows it from the directory `prefix`.
fn relative(path: &[u8], prefix: &[&[u8]]) -> Vec<u8> {
    let is_dir = path.ends_with(b"/");
    let trimmed = path.strip_suffix(b"/").unwrap_or(path);
    let parts: Vec<&[u8]> = trimmed.split(|b| *b == b'/').collect();
    let common = prefix
        .iter()
        .zip(&parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut shown = b"../".repeat(prefix.len() - common);
    shown.extend(parts[common..].join(&b'/'));
    if is_dir {
        if shown.is_empty() {
            shown.extend_from_slice(b"./");
        } else if !shown.ends_with(b"/") {
            shown.push(b'/');
        }
    }
    shown
}

/// A byte git's short format would print quoted (`core.quotePath` on, and
/// paths with spaces quoted too).
fn needs_quoting(byte: u8) -> bool {
    !(0x20..0x7f).contains(&byte) || matches!(byte, b'"' | b'\\' | b' ')
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn paths_are_shown_relative_to_the_cwd() {
        let sub: [&[u8]; 2] = [b"sub", b"dir"];
        assert_eq!(relative(b"a/b.rs", &[]), b"a/b.rs");
        assert_eq!(relative(b"sub/dir/a", &sub), b"a");
        assert_eq!(relative(b"sub/b", &sub), b"../b");
        assert_eq!(relative(b"x", &sub), b"../../x");
        assert_eq!(relative(b"sub/dir/new/", &sub), b"new/");
        assert_eq!(relative(b"sub/dir/", &sub), b"./");
        assert_eq!(relative(b"sub/", &sub), b"../");
    }

    #[test]
    fn an_untracked_file_shows_as_its_topmost_untracked_directory() {
        let tracked: HashSet<&[u8]> = [b"src".as_slice(), b"src/a"].into_iter().collect();
        assert_eq!(shown_untracked(b"new.rs", &tracked, false), b"new.rs");
        assert_eq!(
            shown_untracked(b"src/new.rs", &tracked, false),
            b"src/new.rs"
        );
        assert_eq!(
            shown_untracked(b"src/a/b/c.rs", &tracked, false),
            b"src/a/b/"
        );
        assert_eq!(shown_untracked(b"docs/x/y.md", &tracked, false), b"docs/");
        assert_eq!(shown_untracked(b"src/repo", &tracked, true), b"src/repo/");
    }

    #[test]
    fn config_that_changes_status_is_noticed_and_init_defaults_are_not() {
        let init = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\
                    \tbare = false\n\tlogallrefupdates = true\n";
        assert!(!config_changes_status(init));
        for extra in [
            "\tfilemode = false",
            "\tautocrlf = input",
            "[status]\n\tshowUntrackedFiles = all",
            "\tignoreCase = true",
            "[include]\n\tpath = x",
            "\tquotePath = false",
        ] {
            assert!(
                config_changes_status(&format!("{init}{extra}\n")),
                "{extra}"
            );
        }
    }

    #[test]
    fn index_paths_that_leave_the_work_tree_are_not_plain() {
        assert!(plain_path(b"src/lib.rs"));
        assert!(plain_path(b".github/x.yml"));
        for bad in [
            &b"../x"[..],
            b"a/../../x",
            b"/etc/passwd",
            b"a//b",
            b".git/config",
            b"a/.GIT/x",
        ] {
            assert!(!plain_path(bad), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        let id = crate::objects::to_hex(&blob_id(b"hello\n"));
        assert_eq!(id, "ce013625030ba8dba906f756967f9e9ca394464a");
    }
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod repo_tests;
