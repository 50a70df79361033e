//! What git and tack run later, outside the sandbox, and so what a confined
//! command must not plant: a repository's git dir (its `config`, `hooks`,
//! `commondir`, `modules/` and `worktrees/` can all name programs), tack's
//! and Claude Code's settings folders (`.claude`: hooks), `.mcp.json`
//! (servers), editor folders (`.vscode` tasks), and the user's own config
//! (git's global config, `~/.ssh`, tack's trust store).
//!
//! Two halves, because the kernel can refuse writes to what exists but not
//! the creation of a *name* in a writable folder (Landlock grants rights per
//! folder tree, never per name, and a bind needs something to bind):
//!
//! - before the command: every such thing that exists is bound read-only
//!   (a mount point also cannot be renamed or removed, so `mv .git x` fails
//!   with "Device or resource busy"), the git dirs by their real paths
//!   ([`git_dirs`]: a `.git` file's `gitdir:`, a `commondir`);
//! - after it (every process of its namespace is gone by then): whatever it
//!   created or swapped in at those names ([`Snapshot::planted`]) is moved
//!   aside to `NAME.blocked-by-sandbox` and reported on the command's stderr,
//!   so it reaches the tool result. Creating one takes running the command
//!   with the sandbox disabled, which asks first.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Names that make a folder something git or tack acts on, anywhere in a
/// project: a repository (its config and hooks run), a settings folder (its
/// hooks run), MCP servers (started).
pub const PLANTABLE: &[&str] = &[".git", ".claude", ".mcp.json"];

/// What a moved-aside plant is renamed to (`NAME` + this).
pub const BLOCKED_SUFFIX: &str = ".blocked-by-sandbox";

/// Folders walked at most, per root, looking for [`PLANTABLE`] names; past
/// that the walk stops and the report says so.
pub const MAX_SCAN_DIRS: usize = 100_000;

/// The git dirs of the repository `root` is in, by their real paths: the
/// nearest `.git` at or above `root` (a folder, or a file naming one with
/// `gitdir:`), the folder a `.git` file names, and the common dir a
/// `commondir` file names (a linked worktree's or a planted one). Only
/// those that exist.
pub fn git_dirs(root: &Path) -> Vec<PathBuf> {
    let Some(dot_git) = root
        .ancestors()
        .map(|a| a.join(".git"))
        .find(|p| p.symlink_metadata().is_ok())
    else {
        return Vec::new();
    };
    let mut dirs = vec![dot_git.clone()];
    let git_dir = if dot_git.is_file() {
        let named = std::fs::read_to_string(&dot_git).ok().and_then(|text| {
            let target = text.trim().strip_prefix("gitdir:")?.trim().to_owned();
            Some(dot_git.parent()?.join(target))
        });
        match named.and_then(|p| p.canonicalize().ok()) {
            Some(dir) => dir,
            None => return dirs,
        }
    } else {
        match dot_git.canonicalize() {
            Ok(dir) => dir,
            Err(_) => return dirs,
        }
    };
    if !dirs.contains(&git_dir) {
        dirs.push(git_dir.clone());
    }
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .and_then(|text| git_dir.join(text.trim()).canonicalize().ok());
    if let Some(common) = common.filter(|c| !dirs.contains(c)) {
        dirs.push(common);
    }
    dirs
}

/// The folder a path is in, by what it is: a path whose folder was renamed
/// away and made anew is somewhere else, though named the same. (The path
/// itself, bound read-only, cannot be replaced from inside; replaced from
/// outside, by an editor saving it, it is still the user's.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
}

fn identity(path: &Path) -> Option<Identity> {
    path.symlink_metadata().ok()?;
    let meta = path.parent()?.symlink_metadata().ok()?;
    Some(Identity {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

/// The plantable things found in the writable roots and at the watched
/// paths, as they were at one moment.
#[derive(Debug, Default)]
pub struct Snapshot {
    found: HashMap<PathBuf, Identity>,
    /// Roots whose walk stopped at [`MAX_SCAN_DIRS`].
    truncated: Vec<PathBuf>,
}

impl Snapshot {
    /// Walks each root (symlinks not followed, a plantable name not entered)
    /// for [`PLANTABLE`] names, and looks at each watched path.
    pub fn take(roots: &[PathBuf], watched: &[PathBuf]) -> Snapshot {
        let mut snap = Snapshot::default();
        for root in roots {
            if !walk(root, &mut snap.found) {
                snap.truncated.push(root.clone());
            }
        }
        for path in watched {
            if let Some(id) = identity(path) {
                snap.found.insert(path.clone(), id);
            }
        }
        snap
    }

    /// The paths found (for binding them read-only).
    pub fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        self.found.keys()
    }

    /// What is in `after` and was not here (or is in another folder of the
    /// same name), sorted.
    pub fn planted(&self, after: &Snapshot) -> Vec<PathBuf> {
        let mut new: Vec<PathBuf> = after
            .found
            .iter()
            .filter(|(path, id)| self.found.get(*path) != Some(*id))
            .map(|(path, _)| path.clone())
            .collect();
        new.sort();
        new
    }

    /// Moves each planted thing aside and returns one line per thing for the
    /// command's stderr (and one per root that was too big to walk).
    pub fn disarm(&self, after: &Snapshot) -> Vec<String> {
        let mut lines: Vec<String> = self
            .planted(after)
            .iter()
            .map(|path| match move_aside(path) {
                Ok(to) => format!(
                    "tack sandbox: the command created {} ({}); it was moved to {}. \
                     Creating it needs the command run with the sandbox disabled, which asks first.",
                    path.display(),
                    what(path),
                    to.display()
                ),
                Err(e) => format!(
                    "tack sandbox: the command created {} ({}), and it could not be moved aside: {e}",
                    path.display(),
                    what(path)
                ),
            })
            .collect();
        for root in &after.truncated {
            lines.push(format!(
                "tack sandbox: {} has over {MAX_SCAN_DIRS} folders; repositories and settings \
                 folders past them were not checked",
                root.display()
            ));
        }
        lines
    }
}

/// What a plantable thing would make git or tack do.
fn what(path: &Path) -> &'static str {
    match path.file_name().and_then(|n| n.to_str()) {
        Some(".git") => {
            "a repository: git runs what its config and hooks name, outside the sandbox"
        }
        Some(".claude") => "a settings folder: tack runs its hooks, outside the sandbox",
        Some(".mcp.json") => "MCP servers that tack starts outside the sandbox",
        Some(".vscode" | ".idea") => "an editor's settings: the editor runs the tasks they name",
        Some(_) | None => "a file that code outside the sandbox reads or runs",
    }
}

/// Renames `path` to `path.blocked-by-sandbox` (or `...-2`, ... if taken).
fn move_aside(path: &Path) -> std::io::Result<PathBuf> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    for n in 1..100 {
        let suffix = if n == 1 {
            BLOCKED_SUFFIX.to_owned()
        } else {
            format!("{BLOCKED_SUFFIX}-{n}")
        };
        let to = path.with_file_name(format!("{name}{suffix}"));
        if to.symlink_metadata().is_ok() {
            continue;
        }
        std::fs::rename(path, &to)?;
        return Ok(to);
    }
    Err(std::io::Error::other("every name to move it to is taken"))
}

/// Adds the plantable names under `root` to `found`; `false` when the walk
/// stopped at [`MAX_SCAN_DIRS`].
fn walk(root: &Path, found: &mut HashMap<PathBuf, Identity>) -> bool {
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        seen += 1;
        if seen > MAX_SCAN_DIRS {
            return false;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let plantable = entry
                .file_name()
                .to_str()
                .is_some_and(|n| PLANTABLE.contains(&n));
            if plantable {
                if let Some(id) = identity(&path) {
                    found.insert(path, id);
                }
            } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn git_dirs_follow_a_git_file_and_a_commondir_to_their_real_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let main = base.join("main/.git");
        let linked = main.join("worktrees/wt");
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(linked.join("commondir"), "../..\n").unwrap();
        let wt = base.join("wt");
        std::fs::create_dir_all(wt.join("src")).unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", linked.display())).unwrap();
        assert_eq!(
            git_dirs(&wt.join("src")),
            vec![wt.join(".git"), linked, main.clone()]
        );
        assert_eq!(git_dirs(&base.join("main")), vec![main]);
        assert_eq!(git_dirs(&base), Vec::<PathBuf>::new());
    }

    #[test]
    fn a_snapshot_finds_what_was_planted_or_swapped_and_moves_it_aside() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        for dir in ["kept/.git", "swapped/.git", "deep/a/b"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let watched = [root.join(".vscode"), root.join("gone")];
        let before = Snapshot::take(std::slice::from_ref(&root), &watched);
        // Its folder renamed away and made anew, with a repository in it:
        // both are new where they are now.
        std::fs::rename(root.join("swapped"), root.join("old")).unwrap();
        std::fs::create_dir_all(root.join("swapped/.git")).unwrap();
        // Replaced in place (as an editor saves, from outside: the bound
        // original cannot be from inside): still the user's.
        std::fs::remove_dir(root.join("kept/.git")).unwrap();
        std::fs::create_dir(root.join("kept/.git")).unwrap();
        std::fs::create_dir_all(root.join("deep/a/b/.claude")).unwrap();
        std::fs::write(root.join("deep/.mcp.json"), "{}").unwrap();
        std::fs::create_dir(root.join(".vscode")).unwrap();
        std::fs::create_dir(root.join("deep/.github")).unwrap();
        let after = Snapshot::take(std::slice::from_ref(&root), &watched);
        let planted = [
            ".vscode",
            "deep/.mcp.json",
            "deep/a/b/.claude",
            "old/.git",
            "swapped/.git",
        ]
        .map(|p| root.join(p));
        assert_eq!(before.planted(&after), planted.to_vec());
        let lines = before.disarm(&after);
        assert_eq!(lines.len(), 5);
        assert!(
            lines[4].starts_with(&format!(
                "tack sandbox: the command created {}/swapped/.git (a repository",
                root.display()
            )),
            "{}",
            lines[4]
        );
        let moved = planted.map(|p| {
            let name = format!(
                "{}{BLOCKED_SUFFIX}",
                p.file_name().unwrap().to_str().unwrap()
            );
            (p.exists(), p.with_file_name(name).exists())
        });
        assert_eq!(moved, [(false, true); 5]);
        assert!(root.join("kept/.git").is_dir());
    }
}
