//! Memory files: the CLAUDE.md / AGENTS.md instructions tack reads at the start
//! of a session, with their `@path` imports.
//!
//! Discovery order (later files win when they disagree, so closer files come later):
//! 1. user level: `<home>/.claude/CLAUDE.md` (Claude Code's), then `<home>/.tack/CLAUDE.md`;
//!    then the user's rules (`<home>/.claude/rules/`, see `rules.rs`);
//! 2. project level, from the repository root (the nearest ancestor of the cwd with a
//!    `.git` entry; without one, only the cwd) down to the cwd. In each directory:
//!    `CLAUDE.md`, `.claude/CLAUDE.md`, `.tack/CLAUDE.md`, `AGENTS.md`, the rules of
//!    `.claude/rules/`, then the personal `CLAUDE.local.md`.
//!
//! Rules with a `paths` list load later, when the session touches a matching
//! file; they are listed in [`DiscoveredMemory::path_rules`] unread.
//!
//! Each file is followed by the files it imports (`@path`, depth-first). A file is
//! included once even if it is found several times (a symlink, an import of a file
//! that is also discovered), at its first position.
//!
//! # What a checkout may import
//!
//! A project's memory files come with the checkout, so they are not trusted to
//! read the rest of the disk: `@/etc/shadow`, `@~/secret.txt` or `@../x` in a
//! repository's CLAUDE.md would send that file to the API. Project and local
//! memory files (and everything they import) may only import files inside the
//! project (the repository root, else the cwd) and its additional directories,
//! judged on the real path (symlinks followed); a project memory file that is
//! itself a symlink out of the project is held back the same way. Anything else
//! is skipped with a warning, unless the user approved external imports.
//! User-level memory files (and what they import) import freely.
//!
//! Nothing is dropped silently: skipped imports, a file cut at
//! [`MAX_FILE_CHARS`], a file over the size limit or not UTF-8 each produce a
//! warning in [`DiscoveredMemory::warnings`].
//!
//! All of this is blocking file I/O; [`super::load_prompt_context`] runs it on the
//! blocking pool.

use std::collections::HashSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use super::rules::{rule_files, rule_paths, split_frontmatter};

/// Most characters of one file that are included; the rest is cut with a note.
pub const MAX_FILE_CHARS: usize = 40_000;
/// Files larger than this are skipped altogether (they are not instructions).
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Import depth: a discovered file is depth 0, so imports go at most 4 hops deep
/// (Claude Code's documented limit).
const MAX_IMPORT_DEPTH: usize = 5;

/// The file names looked for in each project directory, in order.
const PROJECT_FILES: &[(&str, MemoryKind)] = &[
    ("CLAUDE.md", MemoryKind::Project),
    (".claude/CLAUDE.md", MemoryKind::Project),
    (".tack/CLAUDE.md", MemoryKind::Project),
    ("AGENTS.md", MemoryKind::Project),
    ("CLAUDE.local.md", MemoryKind::Local),
];

/// The user-level files under the home directory, in order.
const USER_FILES: &[&str] = &[".claude/CLAUDE.md", ".tack/CLAUDE.md"];

/// Where a memory file comes from, which tells the model how much to trust it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryKind {
    /// In the user's home config dir: applies to every project.
    User,
    /// In the repository: shared with the team.
    Project,
    /// `CLAUDE.local.md`: the user's private notes for this project.
    Local,
}

impl MemoryKind {
    fn description(self) -> &'static str {
        match self {
            MemoryKind::User => "user's private global instructions for all projects",
            MemoryKind::Project => "project instructions, checked into the codebase",
            MemoryKind::Local => "user's private project instructions, not checked in",
        }
    }
}

/// One loaded memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// The path as found (made absolute and free of `.`/`..`, symlinks kept).
    pub path: PathBuf,
    /// An imported file has the kind of the file that imported it.
    pub kind: MemoryKind,
    /// The text, cut at [`MAX_FILE_CHARS`] with a note.
    pub content: String,
}

/// The nearest ancestor of `cwd` (itself included) that has a `.git` entry
/// (a directory, or a file in worktrees and submodules).
pub fn find_repo_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The memory file a `#` note goes to in `project_dir`: the first of the
/// shared project files (in the order they are read: `CLAUDE.md`,
/// `.claude/CLAUDE.md`, `.tack/CLAUDE.md`, `AGENTS.md`) that exists there,
/// else `CLAUDE.md`, to be created.
pub fn project_memory_file(project_dir: &Path) -> PathBuf {
    PROJECT_FILES
        .iter()
        .filter(|(_, kind)| *kind == MemoryKind::Project)
        .map(|(name, _)| project_dir.join(name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| project_dir.join("CLAUDE.md"))
}

/// A rule that loads only when the session touches a file its globs match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRule {
    /// The rule file (made absolute, symlinks kept).
    pub path: PathBuf,
    /// The folder its globs are relative to.
    pub base: PathBuf,
    pub kind: MemoryKind,
    /// The globs of its `paths` frontmatter, as written.
    pub patterns: Vec<String>,
}

/// The memory files of a session and what could not be loaded as asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiscoveredMemory {
    pub files: Vec<MemoryFile>,
    /// One line each, for the user (not the model): skipped imports, files
    /// cut or not loaded.
    pub warnings: Vec<String>,
    /// The rules that load when a matching file is touched, in memory order.
    pub path_rules: Vec<PathRule>,
    /// What those rules may import, when they load.
    pub access: ImportAccess,
}

/// What a memory file may import: project and local files only from inside
/// `allowed_roots` (real paths; `None`: anywhere, as approved), user files
/// from anywhere; `~/` is `home_dir`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportAccess {
    pub(crate) home_dir: Option<PathBuf>,
    pub(crate) allowed_roots: Option<Vec<PathBuf>>,
}

/// Finds and reads the memory files for a session in `cwd`; `home_dir` is where
/// the user-level files live (no user-level files when `None`). Project files
/// may only import from the project; see [`discover_memory`].
pub fn discover_memory_files(cwd: &Path, home_dir: Option<&Path>) -> Vec<MemoryFile> {
    discover_memory(cwd, home_dir, &[], false).files
}

/// [`discover_memory_files`] with the warnings. Project and local files may
/// import from the project and `additional_dirs`; anywhere if
/// `external_imports_approved`.
pub fn discover_memory(
    cwd: &Path,
    home_dir: Option<&Path>,
    additional_dirs: &[PathBuf],
    external_imports_approved: bool,
) -> DiscoveredMemory {
    let cwd = normalize_path(cwd);
    let repo_root = find_repo_root(&cwd);
    let project = repo_root.clone().unwrap_or_else(|| cwd.clone());
    let allowed_roots = std::iter::once(&project)
        .chain(additional_dirs)
        .filter_map(|dir| fs::canonicalize(dir).ok())
        .collect();
    let mut loader = Loader::new(ImportAccess {
        home_dir: home_dir.map(normalize_path),
        allowed_roots: (!external_imports_approved).then_some(allowed_roots),
    });

    if let Some(home) = loader.access.home_dir.clone() {
        for name in USER_FILES {
            loader.load(&home.join(name), MemoryKind::User, 0, Body::Whole);
        }
        loader.load_rules(&home.join(".claude"), &project, MemoryKind::User);
    }

    let mut dirs: Vec<&Path> = match &repo_root {
        Some(root) => cwd
            .ancestors()
            .take_while(|dir| dir.starts_with(root))
            .collect(),
        None => vec![cwd.as_path()],
    };
    dirs.reverse();
    for dir in dirs {
        loader.load_dir(dir);
    }
    DiscoveredMemory {
        files: loader.files,
        warnings: loader.warnings,
        path_rules: loader.path_rules,
        access: loader.access,
    }
}

/// The memory of a folder below the cwd, loaded when the session first
/// touches a file in it (Claude Code's nested memory): its memory files and
/// rules as a project folder's at the start, its `paths` rules listed.
pub(crate) fn discover_nested(dir: &Path, access: &ImportAccess) -> DiscoveredMemory {
    let mut loader = Loader::new(access.clone());
    loader.load_dir(dir);
    DiscoveredMemory {
        files: loader.files,
        warnings: loader.warnings,
        path_rules: loader.path_rules,
        access: ImportAccess::default(),
    }
}

/// A rule that matched a touched file, loaded now: its body (frontmatter
/// left out), then what it imports.
pub(crate) fn load_rule_body(
    path: &Path,
    kind: MemoryKind,
    access: &ImportAccess,
) -> DiscoveredMemory {
    let mut loader = Loader::new(access.clone());
    loader.load(path, kind, 0, Body::Rule);
    DiscoveredMemory {
        files: loader.files,
        warnings: loader.warnings,
        ..DiscoveredMemory::default()
    }
}

/// The memory files as one text for the user context, or `None` if there are none.
pub fn format_memory_files(files: &[MemoryFile]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let mut out = String::from(
        "Codebase and user instructions are shown below. Be sure to adhere to these \
         instructions. IMPORTANT: These instructions OVERRIDE any default behavior and \
         you MUST follow them exactly as written.",
    );
    for file in files {
        let path = file.path.display();
        let kind = file.kind.description();
        let content = file.content.trim_end();
        out.push_str(&format!("\n\nContents of {path} ({kind}):\n\n{content}"));
    }
    Some(out)
}

/// How much of a file is memory: all of it, or a rule's text after its
/// frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Whole,
    Rule,
}

struct Loader {
    access: ImportAccess,
    /// Canonical paths already included (or being included: cycles stop here).
    seen: HashSet<PathBuf>,
    files: Vec<MemoryFile>,
    warnings: Vec<String>,
    path_rules: Vec<PathRule>,
}

impl Loader {
    fn new(access: ImportAccess) -> Self {
        Loader {
            access,
            seen: HashSet::new(),
            files: Vec::new(),
            warnings: Vec::new(),
            path_rules: Vec::new(),
        }
    }

    /// A project folder's memory files, its rules before the local file.
    fn load_dir(&mut self, dir: &Path) {
        for (name, kind) in PROJECT_FILES {
            if *kind == MemoryKind::Local {
                self.load_rules(&dir.join(".claude"), dir, MemoryKind::Project);
            }
            self.load(&dir.join(name), *kind, 0, Body::Whole);
        }
    }

    /// The rules of `claude_dir/rules/`: those without `paths` load now, the
    /// others are kept for later with globs relative to `base`.
    fn load_rules(&mut self, claude_dir: &Path, base: &Path, kind: MemoryKind) {
        for file in rule_files(&claude_dir.join("rules")) {
            match rule_paths(&file) {
                Some(patterns) => self.path_rules.push(PathRule {
                    path: file,
                    base: base.to_path_buf(),
                    kind,
                    patterns,
                }),
                None => self.load(&file, kind, 0, Body::Rule),
            }
        }
    }

    /// Loads `path` and, depth-first, what it imports. What does not exist (or
    /// is a directory, a device...) is skipped silently, being no memory file;
    /// a file too large or not UTF-8 is skipped with a warning.
    fn load(&mut self, path: &Path, kind: MemoryKind, depth: usize, body: Body) {
        // Most candidates do not exist: one `stat` says so, where resolving
        // the real path first costs a call per path component.
        let Ok(meta) = fs::metadata(path) else {
            return;
        };
        if !meta.is_file() {
            return;
        }
        let Ok(canonical) = fs::canonicalize(path) else {
            return;
        };
        if depth == 0 && !self.may_read(kind, &canonical) {
            self.warnings.push(format!(
                "Skipped {} from outside the project (it links to {}). To allow it: {APPROVE}",
                path.display(),
                canonical.display()
            ));
            return;
        }
        if meta.len() > MAX_FILE_BYTES {
            self.warnings.push(format!(
                "{} is {} bytes, over the {MAX_FILE_BYTES}-byte limit for memory files; it was not loaded",
                path.display(),
                meta.len()
            ));
            return;
        }
        if !self.seen.insert(canonical) {
            return;
        }
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                self.warnings.push(format!(
                    "{} is not UTF-8 text; it was not loaded",
                    path.display()
                ));
                return;
            }
            Err(_) => return,
        };
        let text = match body {
            Body::Whole => text,
            Body::Rule => split_frontmatter(&text).1.to_owned(),
        };
        let (content, cut) = cap_content(text, path);
        if let Some(total) = cut {
            self.warnings.push(format!(
                "{} has {total} characters; only the first {MAX_FILE_CHARS} are sent to the model",
                path.display()
            ));
        }
        let imports = import_paths(&content);
        if !content.trim().is_empty() {
            self.files.push(MemoryFile {
                path: path.to_path_buf(),
                kind,
                content,
            });
        }
        if depth + 1 >= MAX_IMPORT_DEPTH {
            return;
        }
        let base = path.parent().unwrap_or(Path::new("/"));
        let mut skipped = Vec::new();
        for import in imports {
            let Some((written, target)) = self.resolve_import(base, &import) else {
                continue;
            };
            let inside = fs::canonicalize(&target).is_ok_and(|real| self.may_read(kind, &real));
            if inside {
                self.load(&target, kind, depth + 1, Body::Whole);
            } else if !skipped.contains(&written) {
                skipped.push(written);
            }
        }
        if !skipped.is_empty() {
            self.warnings.push(format!(
                "Skipped {} import(s) in {} from outside the project ({}). To allow them: {APPROVE}",
                skipped.len(),
                path.display(),
                skipped.join(", ")
            ));
        }
    }

    /// Whether a file of `kind` may read the file at real path `real`.
    fn may_read(&self, kind: MemoryKind, real: &Path) -> bool {
        match (kind, &self.access.allowed_roots) {
            (MemoryKind::User, _) | (_, None) => true,
            (MemoryKind::Project | MemoryKind::Local, Some(roots)) => {
                roots.iter().any(|root| real.starts_with(root))
            }
        }
    }

    /// The file an `@path` mention refers to, if it exists, with the mention as
    /// it matched. A mention followed by punctuation (`see @docs/style.md.`)
    /// also matches without the punctuation.
    fn resolve_import(&self, base: &Path, mention: &str) -> Option<(String, PathBuf)> {
        let trimmed = mention.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '"', '\'']);
        [mention, trimmed]
            .into_iter()
            .filter(|m| !m.is_empty())
            .filter_map(|m| {
                let path = if let Some(rest) = m.strip_prefix("~/") {
                    self.access.home_dir.as_ref()?.join(rest)
                } else {
                    base.join(m)
                };
                Some((m.to_owned(), normalize_path(&path)))
            })
            .find(|(_, path)| path.is_file())
    }
}

/// How the user allows imports from outside the project (the command the
/// warnings name).
const APPROVE: &str = "tack trust --allow-external-imports";

/// Cuts `text` at [`MAX_FILE_CHARS`] characters, with a note saying so; the
/// second value is the original length in characters if it was cut.
fn cap_content(text: String, path: &Path) -> (String, Option<usize>) {
    let Some((cut, _)) = text.char_indices().nth(MAX_FILE_CHARS) else {
        return (text, None);
    };
    let total = text.chars().count();
    let shown = path.display();
    let capped = format!(
        "{}\n\n(truncated: {shown} has {total} characters; only the first {MAX_FILE_CHARS} are included)",
        &text[..cut]
    );
    (capped, Some(total))
}

/// The `@path` mentions in `text`, in order, skipping code fences and inline
/// code. A mention starts at the beginning of a line or after whitespace (so
/// `user@example.com` is not one) and runs to the next whitespace.
fn import_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        match (fence, marker) {
            (None, Some(c)) if run >= 3 => {
                fence = Some((c, run));
                continue;
            }
            (Some((c, n)), Some(m)) if m == c && run >= n && trimmed[run..].trim().is_empty() => {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, _) => {}
        }
        let visible = blank_inline_code(line);
        for word in visible.split_whitespace() {
            if let Some(path) = word.strip_prefix('@')
                && path.chars().next().is_some_and(|c| {
                    c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '~' | '/')
                })
            {
                out.push(path.to_owned());
            }
        }
    }
    out
}

/// `line` with the contents of inline code spans (`` `...` ``, ``` ``...`` ```)
/// replaced by spaces. An unmatched backtick run is kept as text.
fn blank_inline_code(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut close = None;
        let mut j = i + run;
        while j < chars.len() {
            if chars[j] == '`' {
                let other = chars[j..].iter().take_while(|c| **c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                out.extend(std::iter::repeat_n(' ', j + run - i));
                i = j + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// `path` made absolute-looking and without `.`/`..` components, lexically
/// (symlinks are kept: the path is shown to the model as the user wrote it).
fn normalize_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn import_mentions_skip_code_and_emails() {
        let text = "\
See @docs/style.md and @~/notes.md, mail me at me@example.com.
Inline `@not/this.md` but @this.md.
```
@fenced/no.md
```
~~~~md
@tilde/no.md
```
still fenced @no.md
~~~~
@/abs/path.md @ @@x
";
        assert_eq!(
            import_paths(text),
            vec!["docs/style.md", "~/notes.md,", "this.md.", "/abs/path.md"]
        );
    }

    #[test]
    fn inline_code_with_double_backticks() {
        assert_eq!(blank_inline_code("a ``x ` y`` b `c"), "a           b `c");
    }

    #[test]
    fn normalize_resolves_dots_lexically() {
        assert_eq!(
            normalize_path(Path::new("/a/b/./../c/d.md")),
            PathBuf::from("/a/c/d.md")
        );
    }

    #[test]
    fn long_files_are_capped_with_a_note() {
        let text = "é".repeat(MAX_FILE_CHARS + 5);
        let capped = cap_content(text, Path::new("/r/CLAUDE.md"));
        let expected = format!(
            "{}\n\n(truncated: /r/CLAUDE.md has {} characters; only the first {MAX_FILE_CHARS} are included)",
            "é".repeat(MAX_FILE_CHARS),
            MAX_FILE_CHARS + 5
        );
        assert_eq!(capped, (expected, Some(MAX_FILE_CHARS + 5)));
        assert_eq!(
            cap_content("short".into(), Path::new("/r")),
            ("short".into(), None)
        );
    }

    #[test]
    fn a_note_goes_to_the_first_shared_project_file_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(project_memory_file(root), root.join("CLAUDE.md"));
        fs::write(root.join("CLAUDE.local.md"), "private").unwrap();
        fs::write(root.join("AGENTS.md"), "# Agents").unwrap();
        assert_eq!(project_memory_file(root), root.join("AGENTS.md"));
        fs::create_dir(root.join(".claude")).unwrap();
        fs::write(root.join(".claude/CLAUDE.md"), "").unwrap();
        assert_eq!(project_memory_file(root), root.join(".claude/CLAUDE.md"));
        fs::write(root.join("CLAUDE.md"), "").unwrap();
        assert_eq!(project_memory_file(root), root.join("CLAUDE.md"));
    }
}
