//! A session's agent definitions: the built-ins, the user's and the
//! project's files, `--agents`. A malformed definition is reported (file and
//! line) and skipped; the others load.

use std::path::{Path, PathBuf};

use super::definition::{AgentSource, Catalog, built_in};
use super::parse::{parse_flag, parse_markdown};

/// Makes the source of a definition file from its path.
type SourceOf = fn(PathBuf) -> AgentSource;

/// Where definitions are looked for.
#[derive(Debug, Clone)]
pub struct AgentDirs {
    /// The user's home (`~/.claude/agents`, `~/.tack/agents`).
    pub home: Option<PathBuf>,
    /// The project root (`.claude/agents`, `.tack/agents`).
    pub project: PathBuf,
}

/// Every definition by precedence (built-in < user < project < `--agents`),
/// and one warning line per definition skipped.
pub fn load_catalog(dirs: &AgentDirs, flag: Option<&str>) -> (Catalog, Vec<String>) {
    let mut catalog = Catalog::default();
    let mut warnings = Vec::new();
    for def in built_in() {
        catalog.add(def);
    }
    let mut folders: Vec<(PathBuf, SourceOf)> = Vec::new();
    if let Some(home) = &dirs.home {
        folders.push((home.join(".claude/agents"), AgentSource::User));
        folders.push((home.join(".tack/agents"), AgentSource::User));
    }
    folders.push((dirs.project.join(".claude/agents"), AgentSource::Project));
    folders.push((dirs.project.join(".tack/agents"), AgentSource::Project));
    for (folder, source) in folders {
        for path in markdown_files(&folder) {
            let text = match tack_sys::read_config_file(&path, tack_sys::MAX_CONFIG_BYTES) {
                Ok(t) => t,
                Err(e) => {
                    warnings.push(format!(
                        "warning: {}: cannot read agent definition ({e}); skipped",
                        path.display()
                    ));
                    continue;
                }
            };
            match parse_markdown(&text, source(path.clone())) {
                Ok(def) => catalog.add(def),
                Err(e) => warnings.push(format!(
                    "warning: {}:{}: {}; agent skipped",
                    path.display(),
                    e.line,
                    e.message
                )),
            }
        }
    }
    if let Some(json) = flag {
        let (defs, errors) = parse_flag(json);
        for def in defs {
            catalog.add(def);
        }
        for e in errors {
            warnings.push(format!(
                "warning: --agents:{}: {}; agent skipped",
                e.line, e.message
            ));
        }
    }
    (catalog, warnings)
}

/// The `*.md` files of `dir`, sorted (none if it does not exist).
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    files.sort();
    files
}
