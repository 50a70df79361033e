//! `plugins/known_marketplaces.json`: the marketplaces added on this machine,
//! by name, as Claude Code writes it:
//! `{"<name>": {"source": {...}, "installLocation": "...", "lastUpdated": "..."}}`.
//! Keys tack does not know (`autoUpdate`, …) are kept as they are.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::error::InstallError;
use crate::source::MarketplaceSource;
use crate::store::{PluginsDir, read_object, write_value};

/// One known marketplace.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownMarketplace {
    pub source: MarketplaceSource,
    /// A folder with `.claude-plugin/marketplace.json`, or that file.
    pub install_location: PathBuf,
    pub last_updated: Option<String>,
    /// Everything else in the entry.
    pub other: Map<String, Value>,
}

/// The file, read: entries that do not parse are reported, not fatal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KnownMarketplaces {
    pub entries: BTreeMap<String, KnownMarketplace>,
    /// `name: why` for each entry left out.
    pub broken: Vec<String>,
    /// The file's entries as read, so broken ones are written back untouched.
    raw: Map<String, Value>,
}

impl KnownMarketplaces {
    pub fn read(dir: &PluginsDir) -> Result<KnownMarketplaces, InstallError> {
        let raw = read_object(&dir.known_marketplaces())?;
        let mut out = KnownMarketplaces {
            raw: raw.clone(),
            ..KnownMarketplaces::default()
        };
        for (name, value) in raw {
            match parse_entry(&value) {
                Ok(entry) => {
                    out.entries.insert(name, entry);
                }
                Err(why) => out.broken.push(format!("{name}: {why}")),
            }
        }
        Ok(out)
    }

    pub fn get(&self, name: &str) -> Option<&KnownMarketplace> {
        self.entries.get(name)
    }

    pub fn insert(&mut self, name: &str, entry: KnownMarketplace) {
        self.raw.insert(name.to_owned(), to_value(&entry));
        self.entries.insert(name.to_owned(), entry);
    }

    pub fn remove(&mut self, name: &str) -> Option<KnownMarketplace> {
        self.raw.remove(name);
        self.entries.remove(name)
    }

    pub fn write(&self, dir: &PluginsDir) -> Result<(), InstallError> {
        write_value(&dir.known_marketplaces(), &Value::Object(self.raw.clone()))
    }
}

fn parse_entry(value: &Value) -> Result<KnownMarketplace, String> {
    let mut other = value
        .as_object()
        .ok_or_else(|| "not an object".to_owned())?
        .clone();
    let source = other
        .remove("source")
        .ok_or_else(|| "no `source`".to_owned())?;
    let source: MarketplaceSource =
        serde_json::from_value(source).map_err(|e| format!("`source`: {e}"))?;
    let install_location = match other.remove("installLocation") {
        Some(Value::String(s)) => PathBuf::from(s),
        _ => return Err("no `installLocation`".to_owned()),
    };
    let last_updated = match other.remove("lastUpdated") {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    Ok(KnownMarketplace {
        source,
        install_location,
        last_updated,
        other,
    })
}

fn to_value(entry: &KnownMarketplace) -> Value {
    let mut map = Map::new();
    map.insert(
        "source".to_owned(),
        serde_json::to_value(&entry.source).unwrap_or(Value::Null),
    );
    map.insert(
        "installLocation".to_owned(),
        Value::String(entry.install_location.to_string_lossy().into_owned()),
    );
    if let Some(t) = &entry.last_updated {
        map.insert("lastUpdated".to_owned(), Value::String(t.clone()));
    }
    for (k, v) in &entry.other {
        map.insert(k.clone(), v.clone());
    }
    Value::Object(map)
}
