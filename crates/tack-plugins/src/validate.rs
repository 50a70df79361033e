//! `tack plugin validate <path>`: a plugin (a folder, or its
//! `plugin.json`) or a marketplace (a folder with
//! `.claude-plugin/marketplace.json`, or that file). Each problem is one
//! line naming the file: JSON that does not parse, a missing or bad name, a
//! component path that is missing or leaves the plugin, a hooks or MCP file
//! that is not JSON, two plugins of a marketplace with one name, a
//! marketplace name `marketplace add` refuses (the same check).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::manifest::{HooksField, McpField};
use crate::marketplace::{MARKETPLACE_PATH, Marketplace};
use crate::plugin::{MANIFEST_PATH, Plugin, PluginSource};
use crate::reserved::check_marketplace_name;
use crate::source::PluginEntrySource;
use crate::store::read_value;

/// What was checked and what is wrong with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validation {
    /// `plugin` or `marketplace`.
    pub kind: &'static str,
    pub path: PathBuf,
    pub errors: Vec<String>,
}

/// Checks what `path` names.
pub fn validate(path: &Path) -> Validation {
    let is_marketplace_file = path.file_name().is_some_and(|n| n == "marketplace.json");
    let is_manifest_file = path.file_name().is_some_and(|n| n == "plugin.json");
    if is_marketplace_file || (path.is_dir() && path.join(MARKETPLACE_PATH).is_file()) {
        let file = if is_marketplace_file {
            path.to_path_buf()
        } else {
            path.join(MARKETPLACE_PATH)
        };
        return Validation {
            kind: "marketplace",
            errors: marketplace_errors(&file),
            path: file,
        };
    }
    let root = if is_manifest_file {
        let parent = path.parent().unwrap_or(Path::new("."));
        parent.parent().unwrap_or(parent).to_path_buf()
    } else {
        path.to_path_buf()
    };
    let errors = if !root.is_dir() {
        vec![format!("{}: not found", path.display())]
    } else if !root.join(MANIFEST_PATH).is_file() {
        vec![format!(
            "{}: no {MANIFEST_PATH} or {MARKETPLACE_PATH} found",
            root.display()
        )]
    } else {
        plugin_errors(&root, None)
    };
    Validation {
        kind: "plugin",
        path: root.join(MANIFEST_PATH),
        errors,
    }
}

/// The problems of the plugin at `root` (named `name` when it has no
/// manifest).
fn plugin_errors(root: &Path, name: Option<&str>) -> Vec<String> {
    let loaded = match name {
        Some(n) => Plugin::load_or_named(root, n, PluginSource::Dir),
        None => Plugin::load(root, PluginSource::Dir),
    };
    let plugin = match loaded {
        Ok(p) => p,
        Err(e) => return vec![e.to_string()],
    };
    let mut errors = Vec::new();
    for result in [
        plugin.command_paths(),
        plugin.agent_paths(),
        plugin.skill_paths(),
        plugin.output_style_paths(),
    ] {
        if let Err(e) = result {
            errors.push(e.to_string());
        }
    }
    let mut json_files = Vec::new();
    match plugin.hooks() {
        Ok(fields) => json_files.extend(fields.into_iter().filter_map(|f| match f {
            HooksField::Path(p) => Some(p),
            HooksField::Inline(_) => None,
        })),
        Err(e) => errors.push(e.to_string()),
    }
    match plugin.mcp_servers() {
        Ok(fields) => json_files.extend(fields.into_iter().filter_map(|f| match f {
            McpField::Path(p) => Some(p),
            McpField::Inline(_) => None,
        })),
        Err(e) => errors.push(e.to_string()),
    }
    for relative in json_files {
        let Ok(file) = plugin.resolve(&relative) else {
            continue;
        };
        match read_value(&file) {
            Ok(Some(_)) => {}
            Ok(None) => errors.push(format!(
                "{}: `{relative}` does not exist",
                root.join(MANIFEST_PATH).display()
            )),
            Err(e) => errors.push(e.to_string()),
        }
    }
    errors
}

fn marketplace_errors(file: &Path) -> Vec<String> {
    let market = match Marketplace::load(file) {
        Ok(m) => m,
        Err(e) => return vec![e.to_string()],
    };
    let mut errors: Vec<String> = check_marketplace_name(&market, None)
        .err()
        .into_iter()
        .collect();
    let mut seen = BTreeSet::new();
    for entry in &market.plugins {
        if !seen.insert(entry.name.clone()) {
            errors.push(format!(
                "{}: two plugins are named `{}`",
                file.display(),
                entry.name
            ));
            continue;
        }
        match &entry.source {
            None => errors.push(format!(
                "{}: plugin `{}` has no valid `source`",
                file.display(),
                entry.name
            )),
            Some(PluginEntrySource::Relative(rel)) => match market.relative_dir(rel) {
                Ok(dir) => errors.extend(
                    plugin_errors(&dir, Some(&entry.name))
                        .into_iter()
                        .map(|e| format!("plugin `{}`: {e}", entry.name)),
                ),
                Err(e) => errors.push(e.to_string()),
            },
            Some(_) => {}
        }
    }
    errors
}
