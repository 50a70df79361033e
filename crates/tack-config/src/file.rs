//! One settings file: JSON text → [`FileSettings`], with errors that name the
//! file, line, column and key.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::{Map, Value};

use crate::error::ConfigError;
use crate::providers::{ModelPrice, Provider};
use crate::source::Source;
use crate::unknown_keys;

/// `permissions.defaultMode` values (`manual` is an alias of `default`).
pub(crate) const PERMISSION_MODES: &[&str] = &[
    "default",
    "acceptEdits",
    "plan",
    "auto",
    "dontAsk",
    "bypassPermissions",
    "manual",
];

/// One file's `worktree` object: tack reads `baseRef` (Claude Code's other
/// keys are kept unread).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileWorktree {
    pub base_ref: Option<WorktreeBase>,
}

/// `worktree.baseRef`: which ref new worktrees branch from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorktreeBase {
    /// The remote's default branch (`origin/HEAD`), else local HEAD.
    #[default]
    Fresh,
    /// Local HEAD (unpushed commits and the current branch's state).
    Head,
}

/// The top-level keys [`FileSettings`] reads; every other key is kept as is in
/// `extra` and otherwise ignored (and warned about unless Claude Code reads it).
const KNOWN_KEYS: &[&str] = unknown_keys::TACK_KEYS;

/// One file's settings, as written (`None`: not set in this file).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileSettings {
    pub model: Option<String>,
    #[serde(default, deserialize_with = "one_or_many")]
    pub fallback_model: Option<Vec<String>>,
    pub permissions: Option<Object<FilePermissions>>,
    #[serde(default, deserialize_with = "env_map")]
    pub env: Option<BTreeMap<String, String>>,
    pub hooks: Option<BTreeMap<String, Vec<Value>>>,
    pub disable_all_hooks: Option<bool>,
    pub api_key_helper: Option<String>,
    pub otel_headers_helper: Option<String>,
    #[serde(default, deserialize_with = "days")]
    pub cleanup_period_days: Option<u32>,
    pub include_co_authored_by: Option<bool>,
    pub attribution: Option<Map<String, Value>>,
    pub enable_all_project_mcp_servers: Option<bool>,
    pub enabled_mcpjson_servers: Option<Vec<String>>,
    pub disabled_mcpjson_servers: Option<Vec<String>>,
    pub auto_compact_enabled: Option<bool>,
    pub output_style: Option<String>,
    pub status_line: Option<Map<String, Value>>,
    pub providers: Option<BTreeMap<String, Provider>>,
    pub model_prices: Option<BTreeMap<String, ModelPrice>>,
    pub sandbox: Option<Object<crate::sandbox::FileSandbox>>,
    pub worktree: Option<Object<FileWorktree>>,
    /// `autoMode`, as written: the classifier's rules (read by tack-automode,
    /// and only from trusted sources).
    pub auto_mode: Option<Object<Map<String, Value>>>,
    pub use_auto_mode_during_plan: Option<bool>,
    pub skip_auto_permission_prompt: Option<bool>,
    /// Unknown keys (filled after parsing; never an error).
    #[serde(skip)]
    pub extra: Map<String, Value>,
    /// Keys neither tack nor Claude Code reads (dotted), with their line.
    #[serde(skip)]
    pub unknown: Vec<(String, usize)>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FilePermissions {
    pub allow: Option<Vec<String>>,
    pub ask: Option<Vec<String>>,
    pub deny: Option<Vec<String>>,
    #[serde(default, deserialize_with = "mode")]
    pub default_mode: Option<String>,
    pub additional_directories: Option<Vec<String>>,
    #[serde(default, deserialize_with = "disable")]
    pub disable_bypass_permissions_mode: Option<String>,
    #[serde(default, deserialize_with = "disable")]
    pub disable_auto_mode: Option<String>,
    pub deny_instead_of_prompting: Option<bool>,
}

/// Parses one file. Empty (whitespace-only) text is an empty settings object.
pub(crate) fn parse(source: &Source, text: &str) -> Result<FileSettings, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(FileSettings::default());
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let Object(mut settings): Object<FileSettings> = serde_path_to_error::deserialize(&mut de)
        .map_err(|e| error(source, text, e.path().to_string(), e.into_inner()))?;
    de.end()
        .map_err(|e| error(source, text, ".".to_owned(), e))?;
    let all: Map<String, Value> =
        serde_json::from_str(text).map_err(|e| error(source, text, ".".to_owned(), e))?;
    settings.extra = all
        .into_iter()
        .filter(|(k, _)| !KNOWN_KEYS.contains(&k.as_str()))
        .collect();
    settings.unknown = unknown_keys::find(text);
    Ok(settings)
}

fn error(source: &Source, text: &str, key: String, e: serde_json::Error) -> ConfigError {
    let (line, column) = (e.line(), e.column());
    let message = e.to_string();
    let column = char_column(text, line, column);
    let message = message
        .strip_suffix(&format!(" at line {line} column {}", e.column()))
        .unwrap_or(&message)
        .to_owned();
    let path = source.path.clone();
    if e.is_data() && key != "." {
        ConfigError::Invalid {
            path,
            key,
            line,
            column,
            message,
        }
    } else {
        ConfigError::Parse {
            path,
            line,
            column,
            message,
        }
    }
}

/// serde_json counts columns in bytes; an editor counts characters. The
/// column (1-based) of the character holding byte `byte_column` of `line`;
/// serde_json's column 0 (before the first character) is column 1.
fn char_column(text: &str, line: usize, byte_column: usize) -> usize {
    let Some(line_text) = text.split('\n').nth(line.saturating_sub(1)) else {
        return byte_column.max(1);
    };
    let mut at = byte_column.saturating_sub(1).min(line_text.len());
    while !line_text.is_char_boundary(at) {
        at -= 1;
    }
    line_text[..at].chars().count() + 1
}

/// A struct that must be written as a JSON object (serde's derived structs
/// would also take an array of field values).
#[derive(Debug)]
pub(crate) struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for Visitor<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        d.deserialize_map(Visitor(PhantomData))
    }
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "a string or an array of strings")]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(Option::<OneOrMany>::deserialize(d)?.map(|v| match v {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    }))
}

/// `env` values are strings; numbers and booleans are accepted and written as
/// JSON writes them (`"MAX_THINKING_TOKENS": 1024` is a common spelling).
fn env_map<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BTreeMap<String, String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "a string")]
    enum EnvValue {
        String(String),
        Number(serde_json::Number),
        Bool(bool),
    }
    let Some(map) = Option::<BTreeMap<String, EnvValue>>::deserialize(d)? else {
        return Ok(None);
    };
    // What the OS cannot hold (and `std::env::set_var` would panic on).
    if let Some(bad) = map.keys().find(|k| k.is_empty() || k.contains(['=', '\0'])) {
        return Err(de::Error::custom(format!(
            "`{bad}` is not a valid environment variable name"
        )));
    }
    if let Some(bad) = map.iter().find_map(|(k, v)| match v {
        EnvValue::String(s) if s.contains('\0') => Some(k),
        _ => None,
    }) {
        return Err(de::Error::custom(format!(
            "the value of `{bad}` contains a NUL character"
        )));
    }
    Ok(Some(
        map.into_iter()
            .map(|(k, v)| {
                let v = match v {
                    EnvValue::String(s) => s,
                    EnvValue::Number(n) => n.to_string(),
                    EnvValue::Bool(b) => b.to_string(),
                };
                (k, v)
            })
            .collect(),
    ))
}

fn days<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match Option::<u32>::deserialize(d)? {
        Some(0) => Err(de::Error::custom("must be at least 1 (days)")),
        days => Ok(days),
    }
}

fn mode<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let mode = Option::<String>::deserialize(d)?;
    match mode.as_deref() {
        None => Ok(None),
        Some("manual") => Ok(Some("default".to_owned())),
        Some(m) if PERMISSION_MODES.contains(&m) => Ok(mode),
        Some(m) => Err(de::Error::custom(format!(
            "unknown permission mode `{m}`, expected one of: {}",
            PERMISSION_MODES[..PERMISSION_MODES.len() - 1].join(", ")
        ))),
    }
}

fn disable<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(d)?;
    match value.as_deref() {
        None | Some("disable") => Ok(value),
        Some(other) => Err(de::Error::custom(format!(
            "expected \"disable\", got `{other}`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> Source {
        Source::inline("/")
    }

    #[test]
    fn every_known_key_is_read() {
        let text = r#"{"model": "m", "fallbackModel": "f", "permissions": {}, "env": {},
            "hooks": {}, "disableAllHooks": false, "apiKeyHelper": "h", "otelHeadersHelper": "o",
            "cleanupPeriodDays": 1,
            "includeCoAuthoredBy": true, "attribution": {}, "enableAllProjectMcpServers": true,
            "enabledMcpjsonServers": [], "disabledMcpjsonServers": [], "autoCompactEnabled": true,
            "outputStyle": "o", "statusLine": {}, "providers": {}, "modelPrices": {}, "sandbox": {},
            "worktree": {"baseRef": "head", "sparsePaths": ["a"]}, "autoMode": {},
            "useAutoModeDuringPlan": true, "skipAutoPermissionPrompt": false}"#;
        let all: Map<String, Value> = serde_json::from_str(text).unwrap();
        assert_eq!(all.len(), KNOWN_KEYS.len());
        let parsed = parse(&source(), text).unwrap();
        assert!(parsed.extra.is_empty());
        assert_eq!(parsed.model.as_deref(), Some("m"));
        let worktree = parsed.worktree.map(|Object(w)| w.base_ref);
        assert_eq!(worktree, Some(Some(WorktreeBase::Head)));
        let err = parse(&source(), r#"{"worktree": {"baseRef": "main"}}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown variant `main`, expected `fresh` or `head`"),
            "{err}"
        );
    }

    #[test]
    fn objects_must_be_objects() {
        // serde's derived structs would read `[["Read"]]` as `{"allow": ["Read"]}`.
        let err = parse(&source(), r#"{"permissions": [["Read"]]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid settings in --settings:1:16: `permissions`: invalid type: sequence, expected a JSON object"
        );
        let err = parse(&source(), r#"["m"]"#).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::Parse {
                    line: 1,
                    column: 1,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn env_names_and_values_must_fit_the_os() {
        let err = parse(&source(), r#"{"env": {"A=B": "x"}}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid settings in --settings:1:21: `env`: `A=B` is not a valid environment variable name"
        );
        let err = parse(&source(), r#"{"env": {"A": "x\u0000"}}"#).unwrap_err();
        assert!(
            err.to_string()
                .contains("the value of `A` contains a NUL character"),
            "{err}"
        );
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let err = parse(&source(), "{\"é\": [1, }").unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::Parse {
                    line: 1,
                    column: 11,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(char_column("\"\u{830}", 1, 4), 2);
        assert_eq!(char_column("abc", 1, 0), 1);
    }

    #[test]
    fn null_is_unset() {
        let parsed = parse(
            &source(),
            r#"{"model": null, "permissions": null, "env": null}"#,
        )
        .unwrap();
        assert!(parsed.model.is_none() && parsed.permissions.is_none() && parsed.env.is_none());
    }
}
