//! A session's agent definitions: the built-ins, the user's and the
//! project's files, `--agents`. A malformed definition is reported (file and
//! line) and skipped; the others load.

use std::path::{Path, PathBuf};

use super::definition::{AgentDefinition, AgentSource, Catalog, built_in};
use super::parse::{parse_flag, parse_markdown};
use crate::plugins::PluginPaths;

/// Makes the source of a definition file from its path.
type SourceOf = fn(PathBuf) -> AgentSource;

/// Where definitions are looked for.
#[derive(Debug, Clone)]
pub struct AgentDirs {
    /// The user's home (`~/.claude/agents`, `~/.tack/agents`).
    pub home: Option<PathBuf>,
    /// The project root (`.claude/agents`, `.tack/agents`).
    pub project: PathBuf,
    /// The session's plugins' agent folders and files (`plugin:agent`).
    pub plugins: Vec<PluginPaths>,
}

/// Every definition by precedence (built-in < plugin < user < project <
/// `--agents`),
/// and one warning line per definition skipped.
pub fn load_catalog(dirs: &AgentDirs, flag: Option<&str>) -> (Catalog, Vec<String>) {
    let mut catalog = Catalog::default();
    let mut warnings = Vec::new();
    for def in built_in() {
        catalog.add(def);
    }
    for plugin in &dirs.plugins {
        let files = plugin.paths.iter().flat_map(|p| match p.is_dir() {
            true => markdown_files(p),
            false => vec![p.clone()],
        });
        for path in files {
            if let Some(mut def) = read_definition(&path, AgentSource::Plugin, &mut warnings) {
                def.name = format!("{}:{}", plugin.plugin, def.name);
                catalog.add(def);
            }
        }
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
            if let Some(def) = read_definition(&path, source, &mut warnings) {
                catalog.add(def);
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

/// The definition in the file at `path`; `None` (and a warning) when it
/// cannot be read or parsed.
fn read_definition(
    path: &Path,
    source: SourceOf,
    warnings: &mut Vec<String>,
) -> Option<AgentDefinition> {
    let text = match tack_sys::read_config_file(path, tack_sys::MAX_CONFIG_BYTES) {
        Ok(t) => t,
        Err(e) => {
            warnings.push(format!(
                "warning: {}: cannot read agent definition ({e}); skipped",
                path.display()
            ));
            return None;
        }
    };
    match parse_markdown(&text, source(path.to_path_buf())) {
        Ok(def) => Some(def),
        Err(e) => {
            warnings.push(format!(
                "warning: {}:{}: {}; agent skipped",
                path.display(),
                e.line,
                e.message
            ));
            None
        }
    }
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
