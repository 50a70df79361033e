//! The path rules of a session (see `rules.rs`) and which of them it has
//! loaded: [`PathRules::for_file`] reads the rules a touched file matches,
//! once each.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use globset::GlobSet;

use super::memory_files::{ImportAccess, MemoryFile, PathRule, load_rule_body};
use super::rules::glob_set;

/// A session's path rules and which of them it has loaded. Shared by every
/// tool call of the session (sub-agents' too): a rule loads once.
#[derive(Debug, Default)]
pub struct PathRules {
    rules: Vec<(PathRule, GlobSet)>,
    access: ImportAccess,
    loaded: Mutex<HashSet<usize>>,
}

impl PartialEq for PathRules {
    fn eq(&self, other: &Self) -> bool {
        self.rules().eq(other.rules()) && self.access == other.access
    }
}

impl Eq for PathRules {}

impl PathRules {
    pub(crate) fn new(rules: Vec<PathRule>, access: ImportAccess) -> Self {
        let rules = rules
            .into_iter()
            .map(|rule| {
                let set = glob_set(&rule.patterns);
                (rule, set)
            })
            .collect();
        PathRules {
            rules,
            access,
            loaded: Mutex::new(HashSet::new()),
        }
    }

    /// The rules, in memory order.
    pub fn rules(&self) -> impl Iterator<Item = &PathRule> {
        self.rules.iter().map(|(rule, _)| rule)
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules that `file` (absolute) matches and that were not loaded yet,
    /// read now with their imports (a rule first, then what it imports) and
    /// marked loaded, with warnings about what could not be read.
    pub fn for_file(&self, file: &Path) -> (Vec<MemoryFile>, Vec<String>) {
        let matching: Vec<usize> = {
            let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
            (0..self.rules.len())
                .filter(|i| self.matches(*i, file) && loaded.insert(*i))
                .collect()
        };
        let mut files = Vec::new();
        let mut warnings = Vec::new();
        for i in matching {
            let rule = &self.rules[i].0;
            let found = load_rule_body(&rule.path, rule.kind, &self.access);
            files.extend(found.files);
            warnings.extend(found.warnings);
        }
        (files, warnings)
    }

    fn matches(&self, i: usize, file: &Path) -> bool {
        let (rule, set) = &self.rules[i];
        file.strip_prefix(&rule.base)
            .is_ok_and(|relative| set.is_match(relative))
    }
}

/// The text Claude Code attaches for a memory file loaded mid-session.
pub fn attachment_text(file: &MemoryFile) -> String {
    format!(
        "Contents of {}:\n\n{}",
        file.path.display(),
        file.content.trim_end()
    )
}
