//! Properties of the settings loader: no text makes it panic, an error always
//! names a position inside the text, a valid settings file reads back as it
//! was written, and every unknown key is reported at its own line.
//! `PROPTEST_CASES` raises the case count (see BENCHMARKS.md).

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tack_config::{ConfigError, Scope, Settings, SettingsWarning, Source};

fn config(default_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    config
}

fn load(text: &str) -> Result<Settings, ConfigError> {
    let source = Source::file(Scope::Project, "/p/.claude/settings.json", "/p");
    Settings::from_layers([(source, text.to_owned())], None)
}

/// The error's position is inside `text` (1-based line and column).
fn position_is_inside(e: &ConfigError, text: &str) -> bool {
    let (line, column) = match e {
        ConfigError::Parse { line, column, .. } | ConfigError::Invalid { line, column, .. } => {
            (*line, *column)
        }
        ConfigError::Io { .. }
        | ConfigError::ApiKeyHelper { .. }
        | ConfigError::OtelHeadersHelper { .. } => return false,
    };
    let lines: Vec<&str> = text.split('\n').collect();
    line >= 1
        && line <= lines.len().max(1)
        && column >= 1
        && column <= lines.get(line - 1).map_or(1, |l| l.chars().count() + 1)
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A settings object whose keys are mostly ones tack reads, with any values.
fn settings_shaped() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "model",
        "fallbackModel",
        "permissions",
        "env",
        "hooks",
        "disableAllHooks",
        "apiKeyHelper",
        "cleanupPeriodDays",
        "autoCompactEnabled",
        "statusLine",
        "enabledMcpjsonServers",
        "somethingElse",
    ]);
    let permissions = prop::collection::btree_map(
        prop::sample::select(vec![
            "allow",
            "deny",
            "ask",
            "defaultMode",
            "additionalDirectories",
            "x",
        ]),
        json_value(),
        0..4,
    )
    .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()));
    prop::collection::btree_map(key, prop_oneof![json_value(), permissions], 0..8)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

/// What a valid file says, for the round trip.
#[derive(Debug, Clone)]
struct Valid {
    model: Option<String>,
    allow: Vec<String>,
    deny: Vec<String>,
    env: BTreeMap<String, String>,
    cleanup_days: Option<u32>,
    /// Keys no one reads.
    unknown: Vec<String>,
}

fn valid() -> impl Strategy<Value = Valid> {
    (
        prop::option::of("[a-z0-9.-]{1,20}"),
        prop::collection::vec("(Read|Edit|Bash)\\([a-z *]{1,10}\\)", 0..4),
        prop::collection::vec("(Write|WebFetch|Bash\\(rm [a-z*]{1,5}\\))", 0..3),
        prop::collection::btree_map("[A-Z_]{1,10}", "[^\u{0}]{0,10}", 0..4),
        prop::option::of(1u32..1000),
        prop::collection::btree_set("zz[a-zA-Z]{3,10}", 0..3),
    )
        .prop_map(|(model, allow, deny, env, cleanup_days, unknown)| {
            let dedup = |v: Vec<String>| {
                let mut out: Vec<String> = Vec::new();
                for s in v {
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
                out
            };
            Valid {
                model,
                allow: dedup(allow),
                deny: dedup(deny),
                env,
                cleanup_days,
                unknown: unknown.into_iter().collect(),
            }
        })
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn prop_any_text_is_settings_or_an_error_inside_it(text in "\\PC{0,200}") {
        if let Err(e) = load(&text) {
            prop_assert!(position_is_inside(&e, &text), "{} for {:?}", e, text);
        }
    }

    #[test]
    fn prop_settings_shaped_json_never_panics(value in settings_shaped(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        match load(&text) {
            Ok(settings) => {
                // Every warning points at a line of the file.
                let lines = text.lines().count();
                for w in settings.warnings() {
                    let line = match w {
                        SettingsWarning::UnknownKey { line, .. } => *line,
                        // from_layers skips no file.
                        SettingsWarning::SkippedFile { .. } => 0,
                    };
                    prop_assert!(line >= 1 && line <= lines, "{}", w);
                }
            }
            Err(e) => prop_assert!(position_is_inside(&e, &text), "{} for {}", e, text),
        }
    }

    #[test]
    fn prop_a_valid_file_reads_back_and_unknown_keys_are_found_on_their_line(v in valid()) {
        let mut object = Map::new();
        if let Some(model) = &v.model {
            object.insert("model".into(), json!(model));
        }
        object.insert("permissions".into(), json!({"allow": v.allow, "deny": v.deny}));
        object.insert("env".into(), json!(v.env));
        if let Some(days) = v.cleanup_days {
            object.insert("cleanupPeriodDays".into(), json!(days));
        }
        for key in &v.unknown {
            object.insert(key.clone(), json!(1));
        }
        let text = serde_json::to_string_pretty(&Value::Object(object)).unwrap();
        let settings = load(&text).unwrap();
        prop_assert_eq!(settings.model(), v.model.as_deref());
        let values = |list: &[tack_config::Sourced<String>]| {
            list.iter().map(|s| s.value().clone()).collect::<Vec<_>>()
        };
        prop_assert_eq!(values(settings.permissions().allow()), v.allow.clone());
        prop_assert_eq!(values(settings.permissions().deny()), v.deny.clone());
        prop_assert_eq!(settings.env(), &v.env);
        prop_assert_eq!(settings.cleanup_period_days(), v.cleanup_days.unwrap_or(30));
        let found: Vec<(String, usize)> = settings
            .warnings()
            .iter()
            .map(|w| match w {
                SettingsWarning::UnknownKey { key, line, .. } => (key.clone(), *line),
                SettingsWarning::SkippedFile { error, .. } => (error.clone(), 0),
            })
            .collect();
        let expected: Vec<(String, usize)> = v
            .unknown
            .iter()
            .map(|key| {
                let needle = format!("  \"{key}\": 1");
                let line = text.lines().position(|l| l.starts_with(&needle)).unwrap() + 1;
                (key.clone(), line)
            })
            .collect();
        let mut expected = expected;
        expected.sort_by_key(|(_, line)| *line);
        prop_assert_eq!(found, expected);
    }
}

// ---------------------------------------------------------------------------
// Repository YAML (agent, command and skill frontmatter), issue 23.

/// YAML-ish text: keys, lists, anchors and aliases that may name each other.
fn yamlish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("a: ".to_owned()),
        Just("- ".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just(", ".to_owned()),
        Just("\n".to_owned()),
        Just("  ".to_owned()),
        (0u8..4).prop_map(|i| format!("&a{i} ")),
        (0u8..4).prop_map(|i| format!("*a{i}")),
        "[a-z0-9 :'\"#|>-]{0,6}",
    ];
    proptest::collection::vec(token, 0..60).prop_map(|t| t.concat())
}

proptest! {
    /// Any text: loaded or refused, never a panic, and what loads is what
    /// the unbounded loader builds.
    #[test]
    fn prop_bounded_yaml_agrees_with_the_loader_or_refuses(text in prop_oneof![yamlish(), ".{0,200}"]) {
        match tack_config::load_yaml(&text) {
            Ok(docs) => prop_assert_eq!(Some(docs), yaml_rust2::YamlLoader::load_from_str(&text).ok()),
            Err(e) => prop_assert!(e.line >= 1, "{:?}", e),
        }
    }

    /// Nested aliases never build more than the bound, however deep.
    #[test]
    fn prop_alias_expansion_is_bounded(width in 2usize..12, depth in 1usize..12) {
        let mut text = format!("a0: &a0 [{}]\n", vec!["x"; width].join(", "));
        for i in 1..depth {
            let refs = vec![format!("*a{}", i - 1); width].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let expanded: f64 = (1..=depth).map(|d| (width as f64).powi(d as i32)).sum();
        match tack_config::load_yaml(&text) {
            Ok(_) => prop_assert!(expanded < 2.0 * tack_config::yaml::MAX_YAML_NODES as f64),
            Err(e) => prop_assert!(e.message.contains("expands to more than"), "{:?}", e),
        }
    }
}
