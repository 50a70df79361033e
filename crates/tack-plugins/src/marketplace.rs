//! `.claude-plugin/marketplace.json`: a marketplace's name, owner and plugin
//! entries. An entry names its plugin's `source`, whether the plugin's own
//! manifest is the authority (`strict`, the default) and may carry component
//! fields of its own, merged into the plugin's manifest (or, with
//! `strict: false`, standing in for it).

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::InstallError;
use crate::manifest::PluginManifest;
use crate::plugin::{DefaultPlace, Plugin, valid_plugin_name};
use crate::source::PluginEntrySource;
use crate::store::read_value;

/// Where the file lives under a marketplace's root.
pub const MARKETPLACE_PATH: &str = ".claude-plugin/marketplace.json";

/// A parsed `marketplace.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Marketplace {
    pub name: String,
    /// Relative plugin sources resolve from here.
    pub root: PathBuf,
    /// `metadata.pluginRoot`: prefixed to bare relative sources.
    pub plugin_root: Option<String>,
    pub plugins: Vec<MarketplaceEntry>,
    /// The file, for messages.
    pub path: PathBuf,
}

/// One plugin entry.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketplaceEntry {
    pub name: String,
    pub source: Option<PluginEntrySource>,
    pub strict: bool,
    pub version: Option<String>,
    pub description: Option<String>,
    /// The whole entry, for its component fields and `details`.
    pub raw: Map<String, Value>,
}

impl Marketplace {
    /// Reads the marketplace at `location`: a folder with
    /// `.claude-plugin/marketplace.json`, or that file itself.
    pub fn load(location: &Path) -> Result<Marketplace, InstallError> {
        let (path, root) = if location.is_dir() {
            (location.join(MARKETPLACE_PATH), location.to_path_buf())
        } else {
            let parent = location.parent().unwrap_or(Path::new("/"));
            let root = if parent.file_name().is_some_and(|n| n == ".claude-plugin") {
                parent.parent().unwrap_or(parent)
            } else {
                parent
            };
            (location.to_path_buf(), root.to_path_buf())
        };
        let value = read_value(&path)?.ok_or_else(|| match location.is_dir() {
            true => InstallError::NotAMarketplace {
                place: location.display().to_string(),
                looked: MARKETPLACE_PATH.to_owned(),
            },
            false => InstallError::NotAMarketplace {
                place: path.display().to_string(),
                looked: "such file".to_owned(),
            },
        })?;
        parse_marketplace(&value, &path, &root)
    }

    pub fn entry(&self, name: &str) -> Option<&MarketplaceEntry> {
        self.plugins.iter().find(|e| e.name == name)
    }

    /// The folder of a relative entry, kept inside the marketplace's root
    /// (`..`, absolute paths and symlinks that lead out are refused).
    pub fn relative_dir(&self, relative: &str) -> Result<PathBuf, InstallError> {
        let joined = match (&self.plugin_root, relative.starts_with("./")) {
            (Some(base), false) => format!("{}/{relative}", base.trim_end_matches('/')),
            _ => relative.to_owned(),
        };
        let bad = |why: &str| {
            InstallError::refused(format!(
                "{}: plugin source `{relative}` {why}",
                self.path.display()
            ))
        };
        if Path::new(&joined)
            .components()
            .any(|c| !matches!(c, Component::CurDir | Component::Normal(_)))
        {
            return Err(bad("leaves the marketplace's folder"));
        }
        let dir = self.root.join(&joined);
        let (Ok(real), Ok(root)) = (dir.canonicalize(), self.root.canonicalize()) else {
            return Err(bad("does not exist"));
        };
        if !real.starts_with(&root) {
            return Err(bad("leads out of the marketplace's folder"));
        }
        if !real.is_dir() {
            return Err(bad("is not a folder"));
        }
        Ok(real)
    }
}

/// Reads a marketplace file's value. `path` and `root` say where it is.
pub fn parse_marketplace(
    value: &Value,
    path: &Path,
    root: &Path,
) -> Result<Marketplace, InstallError> {
    let bad = |message: String| InstallError::Json {
        path: path.to_path_buf(),
        message,
    };
    let object = value
        .as_object()
        .ok_or_else(|| bad("must be a JSON object".to_owned()))?;
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("`name` is required".to_owned()))?;
    if !valid_plugin_name(name) {
        return Err(bad(format!(
            "marketplace name `{name}`: use letters, digits, `-`, `_` and `.`"
        )));
    }
    let entries = match object.get("plugins") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(bad("`plugins` must be an array".to_owned())),
        None => return Err(bad("`plugins` is required".to_owned())),
    };
    let mut plugins = Vec::new();
    for (i, item) in entries.iter().enumerate() {
        plugins.push(parse_entry(item).map_err(|m| bad(format!("plugins[{i}]: {m}")))?);
    }
    let plugin_root = object
        .get("metadata")
        .and_then(|m| m.get("pluginRoot"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(Marketplace {
        name: name.to_owned(),
        root: root.to_path_buf(),
        plugin_root,
        plugins,
        path: path.to_path_buf(),
    })
}

fn parse_entry(item: &Value) -> Result<MarketplaceEntry, String> {
    let raw = item
        .as_object()
        .ok_or_else(|| "an entry must be an object".to_owned())?
        .clone();
    let text = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_owned);
    let name = text("name").ok_or_else(|| "`name` is required".to_owned())?;
    if !valid_plugin_name(&name) {
        return Err(format!(
            "plugin name `{name}`: use letters, digits, `-`, `_` and `.`"
        ));
    }
    let strict = match raw.get("strict") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(format!("{name}: `strict` must be true or false")),
    };
    Ok(MarketplaceEntry {
        source: raw.get("source").and_then(PluginEntrySource::from_json),
        strict,
        version: text("version"),
        description: text("description"),
        name,
        raw,
    })
}

impl MarketplaceEntry {
    /// The entry's component fields (`commands`, `agents`, `skills`, `hooks`,
    /// `mcpServers`, `outputStyles`) merged into `plugin`'s manifest.
    ///
    /// `strict: true` (the default): the plugin's own `plugin.json` is the
    /// authority and the entry's lists add to it (and to the default
    /// folders). `strict: false`: the entry is the plugin's whole definition:
    /// the manifest's component fields are dropped, and a kind the entry
    /// lists is exactly those paths, its default place (`skills/`, …) not
    /// read; a kind it does not list still comes from its default place.
    /// (Claude Code refuses a `strict: false` plugin whose `plugin.json` also
    /// lists components; tack loads the entry's and ignores the manifest's.)
    pub fn apply_to(&self, plugin: &mut Plugin) -> Result<(), String> {
        let own: PluginManifest = serde_json::from_value(Value::Object(self.raw.clone()))
            .map_err(|e| format!("marketplace entry `{}`: {e}", self.name))?;
        if !self.strict {
            let listed = [
                (DefaultPlace::Commands, own.commands.is_empty()),
                (DefaultPlace::Agents, own.agents.is_empty()),
                (DefaultPlace::Skills, own.skills.is_empty()),
                (DefaultPlace::OutputStyles, own.output_styles.is_empty()),
                (DefaultPlace::Hooks, own.hooks.is_empty()),
                (DefaultPlace::McpServers, own.mcp_servers.is_empty()),
            ];
            plugin.replaced_defaults = listed
                .into_iter()
                .filter(|(_, empty)| !empty)
                .map(|(place, _)| place)
                .collect();
            let m = &mut plugin.manifest;
            m.commands.clear();
            m.agents.clear();
            m.skills.clear();
            m.output_styles.clear();
            m.hooks.clear();
            m.mcp_servers.clear();
            m.lsp_servers = None;
        }
        let m = &mut plugin.manifest;
        extend_new(&mut m.commands, own.commands);
        extend_new(&mut m.agents, own.agents);
        extend_new(&mut m.skills, own.skills);
        extend_new(&mut m.output_styles, own.output_styles);
        extend_new(&mut m.hooks, own.hooks);
        extend_new(&mut m.mcp_servers, own.mcp_servers);
        m.lsp_servers = match (m.lsp_servers.take(), own.lsp_servers) {
            (None, one) | (one, None) => one,
            (Some(a), Some(b)) => {
                let items = |v: Value| match v {
                    Value::Array(items) => items,
                    one => vec![one],
                };
                Some(Value::Array([items(a), items(b)].concat()))
            }
        };
        if m.description.is_none() {
            m.description = own.description;
        }
        if m.version.is_none() {
            m.version = own.version;
        }
        Ok(())
    }
}

fn extend_new<T: PartialEq>(into: &mut Vec<T>, items: Vec<T>) {
    for item in items {
        if !into.contains(&item) {
            into.push(item);
        }
    }
}
