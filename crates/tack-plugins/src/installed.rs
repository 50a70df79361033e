//! `plugins/installed_plugins.json`, as Claude Code writes it (version 2):
//! `{"version": 2, "plugins": {"<plugin>@<marketplace>": [<install>, …]}}`,
//! one install per scope (and per project for project and local scopes):
//! `scope`, `projectPath` (project and local), `installPath`, `version`,
//! `installedAt`, `lastUpdated`, `gitCommitSha` when known.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::InstallError;
use crate::store::{PluginsDir, read_object, write_value};

/// The version of the file's format tack writes.
pub const INSTALLED_FORMAT_VERSION: u64 = 2;

/// Where an install applies, and which settings file enables it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallScope {
    /// Every project: `<config dir>/settings.json`.
    User,
    /// This project, shared: `.claude/settings.json`.
    Project,
    /// This project, only you: `.claude/settings.local.json`.
    Local,
}

impl InstallScope {
    pub fn name(self) -> &'static str {
        match self {
            InstallScope::User => "user",
            InstallScope::Project => "project",
            InstallScope::Local => "local",
        }
    }

    pub fn parse(s: &str) -> Result<InstallScope, InstallError> {
        match s {
            "user" => Ok(InstallScope::User),
            "project" => Ok(InstallScope::Project),
            "local" => Ok(InstallScope::Local),
            other => Err(InstallError::refused(format!(
                "unknown scope `{other}`: use user, project or local"
            ))),
        }
    }

    /// The settings file whose `enabledPlugins` this scope writes.
    pub fn settings_file(self, claude_dir: &Path, project_dir: &Path) -> PathBuf {
        match self {
            InstallScope::User => claude_dir.join("settings.json"),
            InstallScope::Project => project_dir.join(".claude").join("settings.json"),
            InstallScope::Local => project_dir.join(".claude").join("settings.local.json"),
        }
    }
}

/// One install of a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Install {
    pub scope: InstallScope,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_path: Option<PathBuf>,
    pub install_path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_updated: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit_sha: Option<String>,
}

impl Install {
    /// Whether this install is the one of `scope` for `project_dir`.
    pub fn is_for(&self, scope: InstallScope, project_dir: &Path) -> bool {
        self.scope == scope
            && (scope == InstallScope::User || self.project_path.as_deref() == Some(project_dir))
    }

    /// Whether a session in `project_dir` may use it.
    pub fn applies_in(&self, project_dir: &Path) -> bool {
        self.scope == InstallScope::User || self.project_path.as_deref() == Some(project_dir)
    }
}

/// The file, read. Installs that do not parse are kept in the file and
/// reported.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstalledPlugins {
    pub plugins: BTreeMap<String, Vec<Install>>,
    pub broken: Vec<String>,
    /// Keys of the file other than `version` and `plugins`.
    other: Map<String, Value>,
}

impl InstalledPlugins {
    pub fn read(dir: &PluginsDir) -> Result<InstalledPlugins, InstallError> {
        let mut file = read_object(&dir.installed_plugins())?;
        file.remove("version");
        let plugins = file.remove("plugins");
        let mut out = InstalledPlugins {
            other: file,
            ..InstalledPlugins::default()
        };
        let Some(Value::Object(plugins)) = plugins else {
            return Ok(out);
        };
        for (id, installs) in plugins {
            // Version 1 kept one object per plugin; version 2 a list.
            let list = match installs {
                Value::Array(items) => items,
                other => vec![other],
            };
            let mut parsed = Vec::new();
            for item in list {
                match serde_json::from_value::<Install>(item) {
                    Ok(install) => parsed.push(install),
                    Err(e) => out.broken.push(format!("{id}: {e}")),
                }
            }
            out.plugins.insert(id, parsed);
        }
        Ok(out)
    }

    pub fn write(&self, dir: &PluginsDir) -> Result<(), InstallError> {
        let mut file = Map::new();
        file.insert("version".to_owned(), Value::from(INSTALLED_FORMAT_VERSION));
        let plugins: Map<String, Value> = self
            .plugins
            .iter()
            .filter(|(_, list)| !list.is_empty())
            .map(|(id, list)| {
                (
                    id.clone(),
                    serde_json::to_value(list).unwrap_or(Value::Array(Vec::new())),
                )
            })
            .collect();
        file.insert("plugins".to_owned(), Value::Object(plugins));
        for (k, v) in &self.other {
            file.insert(k.clone(), v.clone());
        }
        write_value(&dir.installed_plugins(), &Value::Object(file))
    }

    /// Records `install`, replacing the one of the same scope and project.
    pub fn upsert(&mut self, id: &str, install: Install) {
        let list = self.plugins.entry(id.to_owned()).or_default();
        let project = install.project_path.clone().unwrap_or_default();
        list.retain(|i| !i.is_for(install.scope, &project));
        list.push(install);
    }

    /// Removes the install of `scope` for `project_dir`; returns it.
    pub fn remove(&mut self, id: &str, scope: InstallScope, project_dir: &Path) -> Option<Install> {
        let list = self.plugins.get_mut(id)?;
        let at = list.iter().position(|i| i.is_for(scope, project_dir))?;
        let install = list.remove(at);
        if list.is_empty() {
            self.plugins.remove(id);
        }
        Some(install)
    }

    /// Whether any install still uses `path`.
    pub fn uses(&self, path: &Path) -> bool {
        self.plugins
            .values()
            .flatten()
            .any(|i| i.install_path == path)
    }
}
