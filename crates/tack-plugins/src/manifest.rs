//! `.claude-plugin/plugin.json`, as Claude Code reads it: `name` (required
//! when the file exists), metadata, and component paths that add to the
//! default folders. Unknown keys are kept out of the way, not errors, so a
//! manifest written for a newer Claude Code still loads.

use serde::Deserialize;
use serde_json::Value;

/// A parsed manifest.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginManifest {
    #[serde(default)]
    pub name: String,
    pub version: Option<String>,
    pub description: Option<String>,
    pub author: Option<Author>,
    pub homepage: Option<String>,
    pub repository: Option<Value>,
    pub license: Option<String>,
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Extra command files or folders (`./`-relative).
    #[serde(default, deserialize_with = "one_or_many")]
    pub commands: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub agents: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub skills: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub output_styles: Vec<String>,
    #[serde(default, deserialize_with = "one_or_many_value")]
    pub hooks: Vec<HooksField>,
    #[serde(default, deserialize_with = "one_or_many_value")]
    pub mcp_servers: Vec<McpField>,
    /// Language servers: a path to a JSON file of them, the servers inline,
    /// or an array of both; read by `tack_tools::lsp::plugin_servers`.
    pub lsp_servers: Option<Value>,
}

/// `author`: an object as documented, or a plain name as some manifests have.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Author {
    Name(String),
    Details {
        name: String,
        email: Option<String>,
        url: Option<String>,
    },
}

/// `hooks`: a path to a hooks file, or the hooks configuration inline.
#[derive(Debug, Clone, PartialEq)]
pub enum HooksField {
    Path(String),
    Inline(Value),
}

/// `mcpServers`: a path to an `.mcp.json`-shaped file, or servers inline.
#[derive(Debug, Clone, PartialEq)]
pub enum McpField {
    Path(String),
    Inline(Value),
}

impl From<Value> for HooksField {
    fn from(value: Value) -> HooksField {
        match value {
            Value::String(path) => HooksField::Path(path),
            other => HooksField::Inline(other),
        }
    }
}

impl From<Value> for McpField {
    fn from(value: Value) -> McpField {
        match value {
            Value::String(path) => McpField::Path(path),
            other => McpField::Inline(other),
        }
    }
}

/// Parses a manifest's text. The message says which key is wrong.
pub fn parse_manifest(text: &str) -> Result<PluginManifest, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    if !value.is_object() {
        return Err("the manifest must be a JSON object".to_owned());
    }
    let manifest: PluginManifest =
        serde_json::from_value(value).map_err(|e| format!("invalid manifest: {e}"))?;
    if manifest.name.is_empty() {
        return Err("`name` is required".to_owned());
    }
    Ok(manifest)
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(path) => vec![path],
        OneOrMany::Many(paths) => paths,
    })
}

/// A string, an object, or a list of those, each turned into `T`.
fn one_or_many_value<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: From<Value>,
{
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items.into_iter().map(T::from).collect(),
        Value::Null => Vec::new(),
        other => vec![T::from(other)],
    })
}
