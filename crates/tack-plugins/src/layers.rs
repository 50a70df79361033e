//! The settings this crate reads (`enabledPlugins`,
//! `extraKnownMarketplaces`, `strictKnownMarketplaces`), layer by layer so
//! each value keeps where it came from, and the one key it writes
//! (`enabledPlugins`, and `extraKnownMarketplaces` for a shared marketplace)
//! in a settings file whose other keys stay as they are.
//!
//! Trust: a project or local layer is configuration a checkout controls.
//! Until the folder is trusted, it may turn plugins off but not on, and its
//! marketplaces are not offered.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::InstallError;
use crate::source::MarketplaceSource;
use crate::store::{read_object, write_settings};

/// Which settings file a layer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerLevel {
    User,
    Project,
    Local,
    /// `--settings`: the user's own flag.
    Flag,
}

impl LayerLevel {
    /// Project and local files come with the checkout.
    pub fn from_checkout(self) -> bool {
        matches!(self, LayerLevel::Project | LayerLevel::Local)
    }
}

/// One settings file's object, lowest precedence first in a list.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsLayer {
    pub level: LayerLevel,
    pub path: Option<PathBuf>,
    pub value: Map<String, Value>,
}

/// Reads each file (missing ones are skipped). A file that cannot be read
/// is a warning.
pub fn read_layers(files: &[(LayerLevel, PathBuf)]) -> (Vec<SettingsLayer>, Vec<String>) {
    let mut layers = Vec::new();
    let mut warnings = Vec::new();
    for (level, path) in files {
        match read_object(path) {
            Ok(value) if value.is_empty() => {}
            Ok(value) => layers.push(SettingsLayer {
                level: *level,
                path: Some(path.clone()),
                value,
            }),
            Err(e) => warnings.push(e.to_string()),
        }
    }
    (layers, warnings)
}

/// `enabledPlugins` merged over the layers, highest wins. An untrusted
/// checkout's `true` is left out (and named in the warnings); its `false`
/// counts.
pub fn merged_enabled(
    layers: &[SettingsLayer],
    project_trusted: bool,
) -> (BTreeMap<String, bool>, Vec<String>) {
    let mut merged = BTreeMap::new();
    let mut warnings = Vec::new();
    for layer in layers {
        let Some(Value::Object(map)) = layer.value.get("enabledPlugins") else {
            continue;
        };
        for (id, on) in map {
            // Claude Code also accepts a list of versions for "on".
            let on = match on {
                Value::Bool(b) => *b,
                Value::Array(_) => true,
                _ => continue,
            };
            if on && layer.level.from_checkout() && !project_trusted {
                warnings.push(format!(
                    "plugin {id} is enabled by {} but this folder is not trusted: not loaded \
                     (trust it with `tack trust`)",
                    layer_name(layer)
                ));
                continue;
            }
            merged.insert(id.clone(), on);
        }
    }
    (merged, warnings)
}

/// `extraKnownMarketplaces` of the layers that may offer marketplaces (an
/// untrusted checkout's are left out).
pub fn extra_marketplaces(
    layers: &[SettingsLayer],
    project_trusted: bool,
) -> BTreeMap<String, MarketplaceSource> {
    let mut out = BTreeMap::new();
    for layer in layers {
        if layer.level.from_checkout() && !project_trusted {
            continue;
        }
        let Some(Value::Object(map)) = layer.value.get("extraKnownMarketplaces") else {
            continue;
        };
        for (name, entry) in map {
            if let Some(source) = entry
                .get("source")
                .and_then(|s| serde_json::from_value(s.clone()).ok())
            {
                out.insert(name.clone(), source);
            }
        }
    }
    out
}

/// One line each about the `extraKnownMarketplaces` a session does not use:
/// an untrusted checkout's (ignored until the folder is trusted), and the
/// others that are not added yet (`is_added` says which are). Claude Code
/// asks to install these in its UI; a session here only reports them.
pub fn marketplace_notes(
    layers: &[SettingsLayer],
    project_trusted: bool,
    is_added: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut notes = Vec::new();
    for layer in layers {
        let Some(Value::Object(map)) = layer.value.get("extraKnownMarketplaces") else {
            continue;
        };
        if layer.level.from_checkout() && !project_trusted {
            let names: Vec<&str> = map.keys().map(String::as_str).collect();
            notes.push(format!(
                "{} names marketplace{} {} but this folder is not trusted: ignored (trust it \
                 with `tack trust`)",
                layer_name(layer),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
    }
    for (name, source) in extra_marketplaces(layers, project_trusted) {
        if !is_added(&name) {
            notes.push(format!(
                "marketplace {name} ({}) is named in the settings but not added: \
                 `tack plugin install <plugin>@{name}` adds it",
                source.describe()
            ));
        }
    }
    notes
}

/// Whether `strictKnownMarketplaces` lets `source` be added: unset allows
/// everything, a list only its sources (`[]` none). Every layer that sets it
/// must allow it (a restriction, so even an untrusted checkout's counts).
pub fn marketplace_allowed(
    layers: &[SettingsLayer],
    source: &MarketplaceSource,
) -> Result<(), String> {
    for layer in layers {
        let Some(list) = layer.value.get("strictKnownMarketplaces") else {
            continue;
        };
        let allowed = list.as_array().is_some_and(|items| {
            items.iter().any(|item| {
                serde_json::from_value::<MarketplaceSource>(item.clone())
                    .is_ok_and(|s| same_source(&s, source))
            })
        });
        if !allowed {
            return Err(format!(
                "{} is not in strictKnownMarketplaces ({})",
                source.describe(),
                layer_name(layer)
            ));
        }
    }
    Ok(())
}

/// Equal, ignoring a trailing `.git` or `/` on URLs.
fn same_source(a: &MarketplaceSource, b: &MarketplaceSource) -> bool {
    let norm = |s: &MarketplaceSource| {
        let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
        if let Some(Value::String(url)) = v.get_mut("url") {
            *url = url
                .trim_end_matches('/')
                .trim_end_matches(".git")
                .to_owned();
        }
        v
    };
    norm(a) == norm(b)
}

fn layer_name(layer: &SettingsLayer) -> String {
    match &layer.path {
        Some(p) => p.display().to_string(),
        None => "--settings".to_owned(),
    }
}

/// Sets (or with `None` removes) `key.name` in the settings file at `path`,
/// keeping everything else.
pub fn set_setting(
    path: &Path,
    key: &str,
    name: &str,
    value: Option<Value>,
) -> Result<(), InstallError> {
    let mut file = read_object(path)?;
    let holder = file
        .entry(key.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(map) = holder.as_object_mut() else {
        return Err(InstallError::Json {
            path: path.to_path_buf(),
            message: format!("`{key}` must be an object"),
        });
    };
    match value {
        Some(v) => {
            map.insert(name.to_owned(), v);
        }
        None => {
            if map.remove(name).is_none() {
                return Ok(());
            }
            if map.is_empty() {
                file.remove(key);
            }
        }
    }
    write_settings(path, &Value::Object(file))
}
