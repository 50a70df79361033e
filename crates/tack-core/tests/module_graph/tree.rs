//! A crate's module tree and what each module's `use` items bring into its
//! scope, so that a path through a re-export (`crate::Name` for a `pub use
//! a::Name` in lib.rs) leads to the module that defines the name.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::rust_files;
use super::scan::{
    ModPath, defined_names, module_of, resolve, test_modules, use_items, without_comments,
};

/// How many re-exports a path may go through before the search gives up (a
/// chain that loops does not compile, so only a misread one gets that far).
const MAX_HOPS: usize = 16;

/// The names a module's code brings into its scope.
#[derive(Debug, Default)]
struct Scope {
    /// `use` items: each name → the path it stands for from the crate root,
    /// `None` for another crate's.
    named: BTreeMap<String, Option<ModPath>>,
    /// The modules its `use x::*` items read.
    globs: Vec<ModPath>,
    /// Names it defines itself (these hide a glob's).
    defined: BTreeSet<String>,
}

/// One crate's `src/`, test-only modules left out.
#[derive(Debug)]
pub(super) struct CrateTree {
    pub modules: BTreeSet<ModPath>,
    /// Each file's module and its code without comments.
    pub files: Vec<(ModPath, String)>,
    scopes: BTreeMap<ModPath, Scope>,
}

impl CrateTree {
    pub fn load(src: &Path) -> CrateTree {
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        let mut sources = Vec::new();
        let mut test_files: BTreeSet<PathBuf> = BTreeSet::new();
        let mut test_mods: BTreeSet<ModPath> = BTreeSet::new();
        for file in paths {
            let Some(module) = module_of(file.strip_prefix(src).expect("under src")) else {
                continue;
            };
            let source = fs::read_to_string(&file).expect("readable");
            for (name, path) in test_modules(&source) {
                match path {
                    Some(path) => test_files.insert(file.parent().expect("in src").join(path)),
                    None => test_mods.insert([module.clone(), vec![name]].concat()),
                };
            }
            sources.push((file, module, source));
        }
        let files: Vec<(ModPath, String)> = sources
            .into_iter()
            .filter(|(file, module, _)| {
                !test_files.contains(file)
                    && !(1..=module.len()).any(|n| test_mods.contains(&module[..n]))
            })
            .map(|(_, module, source)| (module, without_comments(&source)))
            .collect();
        let modules: BTreeSet<ModPath> = files.iter().map(|(m, _)| m.clone()).collect();
        let mut tree = CrateTree {
            modules,
            files,
            scopes: BTreeMap::new(),
        };
        for (module, code) in &tree.files {
            let mut scope = Scope {
                defined: defined_names(code),
                ..Scope::default()
            };
            for item in use_items(code) {
                let mut path = item.path;
                if path.last().is_some_and(|p| p == "self") {
                    path.pop();
                }
                let target = tree.rooted(module, &path);
                let name = match (item.alias, path.last()) {
                    (Some(alias), _) => alias,
                    (None, Some(last)) => last.clone(),
                    (None, None) => continue,
                };
                match (name.as_str(), target) {
                    ("_", _) => {}
                    ("*", Some(mut glob)) => {
                        glob.pop();
                        scope.globs.push(glob);
                    }
                    ("*", None) => {} // another crate's names
                    (_, target) => {
                        scope.named.insert(name, target);
                    }
                }
            }
            tree.scopes.insert(module.clone(), scope);
        }
        tree
    }

    /// A `use` path of `from` from the crate root: `crate::`, `super::`,
    /// `self::` or a child module's name first; `None` for another crate's.
    fn rooted(&self, from: &[String], path: &[String]) -> Option<ModPath> {
        let first = path.first()?;
        if matches!(first.as_str(), "crate" | "super" | "self") {
            return Some(resolve(from, path));
        }
        let child = [from, &path[..1]].concat();
        self.modules.contains(&child).then(|| [from, path].concat())
    }

    /// `path` (from the crate root) reaches another module's name through a
    /// re-export of the crate root: `[PluginSummary]` for lib.rs's `pub use
    /// event::PluginSummary`.
    pub fn through_root(&self, path: &[String]) -> bool {
        let Some(first) = path.get(..1) else {
            return false;
        };
        !self.modules.contains(first) && self.follow(first.to_vec(), 0) != first
    }

    /// What `path` (from the crate root) names once every re-export on the
    /// way is followed: `[PluginSummary]` → `[event, PluginSummary]` for a
    /// `pub use event::PluginSummary` in lib.rs.
    pub fn canonical(&self, path: ModPath) -> ModPath {
        self.follow(path, 0)
    }

    fn follow(&self, path: ModPath, hops: usize) -> ModPath {
        if hops > MAX_HOPS {
            return path;
        }
        for (i, name) in path.iter().enumerate() {
            let module = &path[..i];
            if self.modules.contains(&path[..=i]) {
                continue;
            }
            let Some(scope) = self.scopes.get(module) else {
                return path;
            };
            let target = match scope.named.get(name) {
                Some(target) => target.clone(),
                None if scope.defined.contains(name) => None,
                None => scope
                    .globs
                    .iter()
                    .find(|glob| self.has(glob, name, hops))
                    .map(|glob| [glob.as_slice(), &path[i..=i]].concat()),
            };
            return match target {
                Some(target) => self.follow([target.as_slice(), &path[i + 1..]].concat(), hops + 1),
                None => path,
            };
        }
        path
    }

    /// `module` has `name` in its scope (its own, a `use` or a glob's).
    fn has(&self, module: &[String], name: &str, hops: usize) -> bool {
        if self
            .modules
            .contains(&[module, &[name.to_owned()]].concat())
        {
            return true;
        }
        let Some(scope) = self.scopes.get(module) else {
            return false;
        };
        scope.named.contains_key(name)
            || scope.defined.contains(name)
            || (hops < MAX_HOPS && scope.globs.iter().any(|g| self.has(g, name, hops + 1)))
    }
}
