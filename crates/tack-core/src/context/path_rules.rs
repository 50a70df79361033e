//! What loads mid-session when a tool call touches a file (Claude Code's
//! `nested_memory`): the `paths` rules it matches (see `rules.rs`), and the
//! memory of the folders between the cwd and the file (their `CLAUDE.md`
//! files and `.claude/rules/`, as a project folder's at the start), each
//! once a session. [`PathRules::for_file`] is the one entry.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use globset::GlobSet;

use super::memory_files::{
    ImportAccess, MemoryFile, MemoryKind, PathRule, discover_nested, load_rule_body,
};
use super::rules::glob_set;

/// Why a file loaded mid-session (an InstructionsLoaded hook's
/// `load_reason`, with what goes with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadReason {
    /// A rule whose `paths` globs (as written) match the touched file.
    PathGlobMatch { globs: Vec<String> },
    /// A folder's memory between the cwd and the touched file.
    NestedTraversal,
    /// Imported (`@path`) by the file `parent`.
    Include { parent: PathBuf },
}

impl LoadReason {
    /// The hook's `load_reason`.
    pub fn as_str(&self) -> &'static str {
        match self {
            LoadReason::PathGlobMatch { .. } => "path_glob_match",
            LoadReason::NestedTraversal => "nested_traversal",
            LoadReason::Include { .. } => "include",
        }
    }
}

/// A file that loaded because a tool call touched a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedFile {
    pub file: MemoryFile,
    pub reason: LoadReason,
}

/// A session's path rules and nested folders, and which it has loaded.
/// Shared by every tool call of the session (sub-agents' too).
#[derive(Debug, Default)]
pub struct PathRules {
    access: ImportAccess,
    /// Folders below it load their memory when a file in them is touched;
    /// `None`: none do.
    cwd: Option<PathBuf>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    rules: Vec<Rule>,
    /// Folders below the cwd whose memory has been read.
    dirs: HashSet<PathBuf>,
}

#[derive(Debug)]
struct Rule {
    rule: PathRule,
    set: GlobSet,
    loaded: bool,
    /// Found at the start (not in a folder below the cwd).
    from_start: bool,
}

impl Rule {
    fn new(rule: PathRule, from_start: bool) -> Rule {
        let set = glob_set(&rule.patterns);
        Rule {
            rule,
            set,
            loaded: false,
            from_start,
        }
    }

    /// Marks the rule loaded if `file` matches it and it was not.
    fn takes(&mut self, file: &Path) -> bool {
        let hit = !self.loaded
            && file
                .strip_prefix(&self.rule.base)
                .is_ok_and(|relative| self.set.is_match(relative));
        self.loaded |= hit;
        hit
    }
}

impl PartialEq for PathRules {
    fn eq(&self, other: &Self) -> bool {
        self.rules() == other.rules() && self.access == other.access && self.cwd == other.cwd
    }
}

impl Eq for PathRules {}

impl PathRules {
    /// `rules` from the start; folders below `cwd` load as files in them
    /// are touched.
    pub(crate) fn new(rules: Vec<PathRule>, access: ImportAccess, cwd: Option<PathBuf>) -> Self {
        PathRules {
            access,
            cwd,
            state: Mutex::new(State {
                rules: rules.into_iter().map(|r| Rule::new(r, true)).collect(),
                dirs: HashSet::new(),
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `paths` rules known so far, in memory order.
    pub fn rules(&self) -> Vec<PathRule> {
        self.state().rules.iter().map(|r| r.rule.clone()).collect()
    }

    /// Forgets what was loaded (the conversation was compacted or cleared):
    /// every rule and folder loads again when touched. Rules found in
    /// folders below the cwd are found again then.
    pub fn forget_loaded(&self) {
        let mut state = self.state();
        state.rules.retain(|r| r.from_start);
        for rule in &mut state.rules {
            rule.loaded = false;
        }
        state.dirs.clear();
    }

    /// Whether no touched file can load anything.
    pub fn is_empty(&self) -> bool {
        self.cwd.is_none() && self.state().rules.is_empty()
    }

    /// What touching `file` (absolute) loads, not loaded before: the user's
    /// `paths` rules it matches, then the memory of each new folder from the
    /// cwd down to the file (and that folder's `paths` rules it matches),
    /// then the project's `paths` rules it matches; each rule followed by
    /// what it imports. With warnings about what could not be read.
    pub fn for_file(&self, file: &Path) -> (Vec<LoadedFile>, Vec<String>) {
        let mut state = self.state();
        let mut found = Vec::new();
        for rule in take_matching(&mut state.rules, file, MemoryKind::User) {
            found.push((
                rule_reasons(&rule),
                load_rule_body(&rule.path, rule.kind, &self.access),
            ));
        }
        for dir in self.new_dirs(&mut state, file) {
            let mut nested = discover_nested(&dir, &self.access);
            let rules = std::mem::take(&mut nested.path_rules);
            state
                .rules
                .extend(rules.into_iter().map(|r| Rule::new(r, false)));
            found.push((None, nested));
        }
        for rule in take_matching(&mut state.rules, file, MemoryKind::Project) {
            found.push((
                rule_reasons(&rule),
                load_rule_body(&rule.path, rule.kind, &self.access),
            ));
        }
        let mut files = Vec::new();
        let mut warnings = Vec::new();
        for (rule, part) in found {
            files.extend(part.files.into_iter().map(|file| {
                let reason = match &rule {
                    None => LoadReason::NestedTraversal,
                    Some((path, globs)) if *path == file.path => LoadReason::PathGlobMatch {
                        globs: globs.clone(),
                    },
                    Some((path, _)) => LoadReason::Include {
                        parent: path.clone(),
                    },
                };
                LoadedFile { file, reason }
            }));
            warnings.extend(part.warnings);
        }
        (files, warnings)
    }

    /// The folders strictly below the cwd down to `file`'s, top first, that
    /// were not read yet (now marked read).
    fn new_dirs(&self, state: &mut State, file: &Path) -> Vec<PathBuf> {
        let Some(cwd) = &self.cwd else {
            return Vec::new();
        };
        let mut dirs: Vec<PathBuf> = file
            .ancestors()
            .skip(1)
            .take_while(|d| d.starts_with(cwd) && *d != cwd.as_path())
            .map(Path::to_path_buf)
            .collect();
        dirs.reverse();
        dirs.retain(|d| state.dirs.insert(d.clone()));
        dirs
    }
}

/// A rule's file and globs: its body loads for them, what it imports
/// because of it.
fn rule_reasons(rule: &PathRule) -> Option<(PathBuf, Vec<String>)> {
    Some((rule.path.clone(), rule.patterns.clone()))
}

/// The rules of `kind` that `file` matches and that were not loaded, now
/// marked loaded.
fn take_matching(rules: &mut [Rule], file: &Path, kind: MemoryKind) -> Vec<PathRule> {
    rules
        .iter_mut()
        .filter(|r| r.rule.kind == kind)
        .filter_map(|r| r.takes(file).then(|| r.rule.clone()))
        .collect()
}

/// The text Claude Code attaches for a memory file loaded mid-session.
pub fn attachment_text(file: &MemoryFile) -> String {
    format!(
        "Contents of {}:\n\n{}",
        file.path.display(),
        file.content.trim_end()
    )
}
