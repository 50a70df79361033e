//! Resolving the paths tools touch before any rule or directory check.
//!
//! A path is checked in several forms, and a decision must hold for all of them:
//! - `lexical`: `~` expanded, made absolute against the cwd, `.`/`..` removed
//!   textually (what a tool that normalises its path would open);
//! - `real`: resolved the way the kernel does, component by component, following
//!   every symlink (including a dangling final one: writing through it creates its
//!   target), with `..` applied to the resolved directory;
//! - `real` of `lexical`.
//!
//! Deny rules match if any form matches; "inside the working directories" and
//! allow rules need every real form to be inside / to match. So a symlink inside the
//! project that points outside counts as outside.
//!
//! Platform notes: on Linux paths compare case-sensitively and byte-exactly. On
//! macOS and Windows (case-insensitive by default) comparisons and rule globs are
//! case-insensitive. Trailing dots and spaces of components are stripped on Windows
//! only (where `secret.txt.` opens `secret.txt`).

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed before giving up (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// True on platforms whose default filesystems compare names case-insensitively.
pub const CASE_INSENSITIVE: bool = cfg!(any(target_os = "macos", target_os = "windows"));

/// A path in every form the permission checks consider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// `~` expanded, absolute, `..` removed textually.
    pub lexical: PathBuf,
    /// Symlinks resolved with kernel semantics, for the path as given and for its
    /// lexical form (one entry if both agree).
    pub real: Vec<PathBuf>,
}

impl ResolvedPath {
    /// Every form (lexical first).
    pub fn forms(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.lexical.as_path()).chain(self.real.iter().map(PathBuf::as_path))
    }
}

/// A path that cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// A symlink loop or a chain longer than 40 links.
    #[error("too many levels of symbolic links resolving {0}")]
    TooManyLinks(PathBuf),
}

/// Expands a leading `~` or `~/` to `home`; other paths are returned unchanged.
pub fn expand_home(path: &Path, home: &Path) -> PathBuf {
    let mut comps = path.components();
    match comps.next() {
        Some(Component::Normal(first)) if first == "~" => home.join(comps.as_path()),
        _ => path.to_path_buf(),
    }
}

/// `~`-expanded and absolute against `cwd`, not normalised.
pub fn absolute(path: &Path, cwd: &Path, home: &Path) -> PathBuf {
    let p = expand_home(path, home);
    if p.is_absolute() { p } else { cwd.join(p) }
}

/// Removes `.` and `..` textually (`..` at the root stays at the root).
pub fn lexical_normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(platform_component(n.to_os_string())),
        }
    }
    out
}

#[cfg(windows)]
fn platform_component(c: OsString) -> OsString {
    match c.to_str() {
        Some(s) => OsString::from(s.trim_end_matches(['.', ' '])),
        None => c,
    }
}

#[cfg(not(windows))]
fn platform_component(c: OsString) -> OsString {
    c
}

/// Resolves `path` (absolute) like the kernel: component by component, following
/// symlinks, `..` applied to the resolved directory. Components from the first
/// missing one on are appended as they are (`..` still pops).
pub fn real_path(path: &Path) -> Result<PathBuf, PathError> {
    let mut cur = PathBuf::new();
    let mut pending: Vec<OsString> = Vec::new();
    push_components(path, &mut cur, &mut pending);
    let mut links = 0;
    let mut missing = false;
    while let Some(c) = pending.pop() {
        if c == "." {
            continue;
        }
        if c == ".." {
            cur.pop();
            continue;
        }
        let cand = cur.join(platform_component(c));
        if missing {
            cur = cand;
            continue;
        }
        match std::fs::symlink_metadata(&cand) {
            Ok(md) if md.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(PathError::TooManyLinks(path.to_path_buf()));
                }
                match std::fs::read_link(&cand) {
                    Ok(target) => push_components(&target, &mut cur, &mut pending),
                    Err(_) => {
                        missing = true;
                        cur = cand;
                    }
                }
            }
            Ok(_) => cur = cand,
            Err(_) => {
                missing = true;
                cur = cand;
            }
        }
    }
    if cur.as_os_str().is_empty() {
        cur.push(Component::RootDir.as_os_str());
    }
    Ok(cur)
}

/// Queues `p`'s components (first on top); an absolute `p` resets `cur` to its root.
fn push_components(p: &Path, cur: &mut PathBuf, pending: &mut Vec<OsString>) {
    let mut names = Vec::new();
    let mut root = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => root.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => names.push(OsString::from("..")),
            Component::Normal(n) => names.push(n.to_os_string()),
        }
    }
    if !root.as_os_str().is_empty() {
        *cur = root;
    }
    pending.extend(names.into_iter().rev());
}

/// Resolves a tool's path in all forms (see the module docs).
pub fn resolve(path: &Path, cwd: &Path, home: &Path) -> Result<ResolvedPath, PathError> {
    let abs = absolute(path, cwd, home);
    let lexical = lexical_normalize(&abs);
    let mut real = vec![real_path(&abs)?];
    let second = real_path(&lexical)?;
    if second != real[0] {
        real.push(second);
    }
    Ok(ResolvedPath { lexical, real })
}

/// Resolves a directory the same way and returns its kernel-resolved form
/// (working directories, rule bases).
pub fn resolve_dir(dir: &Path, cwd: &Path, home: &Path) -> PathBuf {
    let abs = absolute(dir, cwd, home);
    real_path(&abs).unwrap_or_else(|_| lexical_normalize(&abs))
}

/// True when `path` is `dir` or below it (component-wise; case-insensitive on
/// macOS and Windows). Both must already be resolved.
pub fn is_inside(path: &Path, dir: &Path) -> bool {
    let mut p = path.components();
    for d in dir.components() {
        match p.next() {
            Some(pc) if same_component(pc.as_os_str(), d.as_os_str()) => {}
            _ => return false,
        }
    }
    true
}

fn same_component(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    if CASE_INSENSITIVE {
        a.to_string_lossy().to_lowercase() == b.to_string_lossy().to_lowercase()
    } else {
        a == b
    }
}

/// True when every real form of `path` is inside one of `dirs`.
pub fn is_inside_any(path: &ResolvedPath, dirs: &[PathBuf]) -> bool {
    path.real
        .iter()
        .all(|r| dirs.iter().any(|d| is_inside(r, d)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn lexical() {
        assert_eq!(
            lexical_normalize(Path::new("/a/b/../c/./d/../../e")),
            PathBuf::from("/a/e")
        );
        assert_eq!(
            lexical_normalize(Path::new("/../../x")),
            PathBuf::from("/x")
        );
        assert_eq!(
            expand_home(Path::new("~/x"), Path::new("/home/u")),
            PathBuf::from("/home/u/x")
        );
        assert_eq!(
            expand_home(Path::new("~user/x"), Path::new("/home/u")),
            PathBuf::from("~user/x")
        );
    }

    #[test]
    fn symlinks_resolve_like_the_kernel() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        let proj = root.join("proj");
        let deep = root.join("outside/a/b");
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::create_dir_all(&deep).unwrap();
        std::os::unix::fs::symlink(&deep, proj.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join("outside/new.txt"), proj.join("dangling")).unwrap();
        std::os::unix::fs::symlink("loop", proj.join("loop")).unwrap();

        // `link/../x`: the kernel goes to outside/a/x; lexically it is proj/x.
        let r = resolve(Path::new("link/../x"), &proj, &root).unwrap();
        assert_eq!(r.lexical, proj.join("x"));
        assert_eq!(r.real, vec![root.join("outside/a/x"), proj.join("x")]);
        assert!(!is_inside_any(&r, std::slice::from_ref(&proj)));

        let r = resolve(Path::new("dangling"), &proj, &root).unwrap();
        assert_eq!(r.real, vec![root.join("outside/new.txt")]);

        assert!(resolve(Path::new("loop"), &proj, &root).is_err());

        let r = resolve(Path::new("src/new.rs"), &proj, &root).unwrap();
        assert_eq!(r.real, vec![proj.join("src/new.rs")]);
        assert!(is_inside_any(&r, std::slice::from_ref(&proj)));
    }

    #[test]
    fn inside_is_component_wise() {
        assert!(is_inside(Path::new("/a/b/c"), Path::new("/a/b")));
        assert!(is_inside(Path::new("/a/b"), Path::new("/a/b")));
        assert!(!is_inside(Path::new("/a/bc"), Path::new("/a/b")));
        assert_eq!(
            is_inside(Path::new("/a/B/c"), Path::new("/a/b")),
            CASE_INSENSITIVE
        );
    }
}
