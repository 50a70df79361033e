//! Why a confined command's write failed: the sandbox refuses a write with the
//! kernel's own words (`Permission denied` from Landlock, `Read-only file
//! system` from a read-only bind), which read like the file's permissions. When
//! a confined command's error output names a path the policy keeps from it,
//! the result says so, and how the user could allow it.

use std::path::{Component, Path, PathBuf};

use crate::policy::Policy;

/// What the kernel says when the sandbox refuses a write.
const REFUSED: &[&str] = &[
    "Permission denied",
    "Read-only file system",
    "Operation not permitted",
];

/// At most this many paths are named in one note.
const MAX_NAMED: usize = 3;

/// Why the policy keeps a path from being written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kept {
    /// Outside every writable tree.
    Outside,
    /// Inside one, but kept read-only (`denyWrite`, the git dir, settings,
    /// shell rc files).
    ReadOnly,
}

/// The note for a confined command whose `stderr` shows writes the policy
/// refused (paths relative to `cwd`), or `None` when it shows none.
/// `unsandboxed_allowed`: `dangerouslyDisableSandbox` may be offered.
pub fn explain_refusal(
    policy: &Policy,
    cwd: &Path,
    stderr: &str,
    unsandboxed_allowed: bool,
) -> Option<String> {
    let mut named: Vec<(String, Kept)> = Vec::new();
    for line in stderr
        .lines()
        .filter(|l| REFUSED.iter().any(|r| l.contains(r)))
    {
        let Some((shown, kept)) = candidates(line).into_iter().find_map(|c| {
            let path = absolute(cwd, &c);
            kept(policy, &path).map(|k| (c, k))
        }) else {
            continue;
        };
        if named.len() < MAX_NAMED && !named.iter().any(|(s, _)| *s == shown) {
            named.push((shown, kept));
        }
    }
    if named.is_empty() {
        return None;
    }
    let mut note =
        String::from("tack sandbox: this command ran confined, and the sandbox refused ");
    let parts: Vec<String> = (named.iter())
        .map(|(shown, kept)| match kept {
            Kept::Outside => format!("`{shown}` (outside the folders it may write)"),
            Kept::ReadOnly => format!("`{shown}` (kept read-only: code outside the sandbox reads or runs it, or `denyWrite` names it)"),
        })
        .collect();
    note.push_str(&parts.join(", "));
    note.push_str(", not the files' own permissions. It may write in: ");
    let roots: Vec<String> = policy
        .writable
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    note.push_str(&roots.join(", "));
    note.push_str(
        ". To allow more, the user can add a folder to `sandbox.filesystem.allowWrite` in settings",
    );
    if unsandboxed_allowed {
        note.push_str(
            "; or run the command again with `dangerouslyDisableSandbox: true`, which asks the user first",
        );
    }
    note.push('.');
    Some(note)
}

/// Paths a line of error output names: quoted text (`'…'`, `‘…’`, `"…"`,
/// `` `…' ``) and the `: `-separated fields that look like paths, in order.
fn candidates(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [('\'', '\''), ('‘', '’'), ('"', '"'), ('`', '\'')] {
        let mut rest = line;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let inner = &after[..end];
            if looks_like_path(inner) {
                found.push(inner.to_owned());
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    for field in line.split(": ") {
        let field = field.trim();
        if looks_like_path(field) && !found.iter().any(|f| f == field) {
            found.push(field.to_owned());
        }
    }
    found
}

fn looks_like_path(text: &str) -> bool {
    !text.is_empty()
        && !text.contains(char::is_whitespace)
        && !REFUSED.contains(&text)
        && (text.contains('/') || text.contains('.'))
        && !text.starts_with("[Errno")
        && !text.starts_with(['\'', '"', '‘', '`'])
}

/// `text` as an absolute path: relative ones from `cwd`, `.` and `..`
/// folded without touching the file system.
fn absolute(cwd: &Path, text: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in cwd.join(text).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Whether the policy keeps `path` from being written, and why. A path
/// through a symlink is judged by where its existing part leads.
fn kept(policy: &Policy, path: &Path) -> Option<Kept> {
    let real = resolved(path);
    let read_only = |p: &Path| {
        (policy.read_only.iter())
            .chain(&policy.protected)
            .any(|r| p.starts_with(r))
            // The projects' git dirs are bound read-only whole.
            || (policy.scan_roots.iter()).any(|root| p.starts_with(root.join(".git")))
    };
    if [path, real.as_path()].iter().any(|p| read_only(p)) {
        return Some(Kept::ReadOnly);
    }
    let writable = |p: &Path| policy.writable.iter().any(|w| p.starts_with(w));
    if !writable(path) || !writable(&real) {
        return Some(Kept::Outside);
    }
    None
}

/// `path` with its longest existing ancestor resolved (symlinks followed).
fn resolved(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    while !existing.exists() {
        let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
            return path.to_owned();
        };
        rest.push(name);
        existing = parent;
    }
    let mut real = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_owned());
    real.extend(rest.iter().rev());
    real
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn policy(project: &Path) -> Policy {
        Policy {
            writable: vec![project.to_owned(), PathBuf::from("/tmp/tack-sbx/tmp")],
            protected: vec![project.join(".git/hooks")],
            ..Policy::default()
        }
    }

    #[test]
    fn the_paths_of_each_tools_refusal_are_found() {
        let cases = [
            ("bash: line 2: /etc/f: Permission denied", vec!["/etc/f"]),
            (
                "touch: cannot touch '/etc/f': Read-only file system",
                vec!["/etc/f"],
            ),
            (
                "mkdir: cannot create directory ‘/opt/x’: Permission denied",
                vec!["/opt/x"],
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/usr/lib/x.py'",
                vec!["/usr/lib/x.py"],
            ),
            (
                "bash: line 1: .git/hooks/pre-commit: Read-only file system",
                vec![".git/hooks/pre-commit"],
            ),
            ("Permission denied", vec![]),
        ];
        for (line, want) in cases {
            assert_eq!(candidates(line), want, "{line}");
        }
    }

    #[test]
    fn a_refused_write_is_explained_and_an_ordinary_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        let p = policy(&project);
        let stderr = "bash: line 2: /etc/tack-x: Permission denied\n\
                      bash: line 3: .git/hooks/pre-commit: Read-only file system\n\
                      bash: line 4: /etc/tack-x: Permission denied\n";
        assert_eq!(
            explain_refusal(&p, &project, stderr, true).unwrap(),
            format!(
                "tack sandbox: this command ran confined, and the sandbox refused `/etc/tack-x` (outside the folders it may write), \
                 `.git/hooks/pre-commit` (kept read-only: code outside the sandbox reads or runs it, or `denyWrite` names it), \
                 not the files' own permissions. It may write in: {}, /tmp/tack-sbx/tmp. To allow more, the user can add a folder \
                 to `sandbox.filesystem.allowWrite` in settings; or run the command again with `dangerouslyDisableSandbox: true`, \
                 which asks the user first.",
                project.display()
            )
        );
        // A file of the project the user cannot write: not the sandbox.
        let own = "bash: line 1: notes.txt: Permission denied";
        assert_eq!(explain_refusal(&p, &project, own, true), None);
        // No unsandboxed runs: not offered.
        let note = explain_refusal(&p, &project, "bash: /etc/y: Permission denied", false).unwrap();
        assert!(!note.contains("dangerouslyDisableSandbox"), "{note}");
    }

    #[test]
    fn a_link_out_of_the_project_is_judged_by_where_it_leads() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(outside.path(), project.join("planted")).unwrap();
        let stderr = "bash: line 2: planted/via-link: Permission denied";
        let note = explain_refusal(&policy(&project), &project, stderr, true).unwrap();
        assert!(note.contains("`planted/via-link` (outside"), "{note}");
    }
}
