//! The classifier's rules: the four lists under `autoMode` and how the
//! trusted sources merge them.
//!
//! # Merging
//! Only trusted sources are read (user settings, `--settings`, managed
//! settings; a repository's `autoMode` never reaches here, so it cannot widen
//! the rules). For each list:
//! - no source sets it (absent, or an empty list, as Claude Code reads it):
//!   tack's defaults;
//! - one or more sources set it: their entries concatenated in source order
//!   (lowest precedence first), the defaults spliced in where the literal
//!   `"$defaults"` first stands (a later `"$defaults"` is dropped, so the
//!   defaults appear once). Without `"$defaults"` the defaults are replaced.
//!
//! `classifyAllShell` is a bool; the highest-precedence source that sets it
//! wins. Anything malformed is skipped with a warning, never an error: a bad
//! entry must not turn auto mode off.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::defaults;

/// The literal that splices the defaults into a list.
pub const DEFAULTS_MARKER: &str = "$defaults";

/// The four lists, under Claude Code's keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AutoModeRules {
    /// Exceptions to `soft_deny`.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Blocked unless an `allow` entry or a clear user instruction clears it.
    #[serde(default)]
    pub soft_deny: Vec<String>,
    /// Blocked whatever the user said.
    #[serde(default)]
    pub hard_deny: Vec<String>,
    /// What is inside the user's environment (the trust boundary).
    #[serde(default)]
    pub environment: Vec<String>,
}

impl AutoModeRules {
    /// tack's default lists.
    pub fn defaults() -> AutoModeRules {
        let owned = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect();
        AutoModeRules {
            allow: owned(defaults::ALLOW),
            soft_deny: owned(defaults::SOFT_DENY),
            hard_deny: owned(defaults::HARD_DENY),
            environment: owned(defaults::ENVIRONMENT),
        }
    }

    /// The lists by their keys, in a fixed order.
    pub(crate) fn sections(&self) -> [(&'static str, &[String]); 4] {
        [
            ("allow", &self.allow),
            ("soft_deny", &self.soft_deny),
            ("hard_deny", &self.hard_deny),
            ("environment", &self.environment),
        ]
    }

    fn section_mut(&mut self, key: &str) -> Option<&mut Vec<String>> {
        match key {
            "allow" => Some(&mut self.allow),
            "soft_deny" => Some(&mut self.soft_deny),
            "hard_deny" => Some(&mut self.hard_deny),
            "environment" => Some(&mut self.environment),
            _ => None,
        }
    }
}

/// Auto mode's effective configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoModeConfig {
    pub rules: AutoModeRules,
    /// `autoMode.classifyAllShell`: every shell allow rule is set aside in
    /// auto mode, so every shell command not proven safe locally is classified.
    pub classify_all_shell: bool,
}

impl AutoModeConfig {
    /// tack's defaults, `classifyAllShell` off.
    pub fn defaults() -> AutoModeConfig {
        AutoModeConfig {
            rules: AutoModeRules::defaults(),
            classify_all_shell: false,
        }
    }

    /// The `autoMode` objects of the trusted sources, lowest precedence first
    /// (user settings, then `--settings`, then managed): (source name, value).
    /// Returns the merged config (see the module's doc for the rules) and
    /// warnings (a non-string entry, an unknown key, a value of the wrong type).
    pub fn from_sources(sources: &[(&str, &Value)]) -> (AutoModeConfig, Vec<String>) {
        let mut set = AutoModeRules::default();
        let mut classify_all_shell = false;
        let mut warnings = Vec::new();
        for (source, value) in sources {
            let Some(object) = value.as_object() else {
                warnings.push(format!(
                    "{source}: `autoMode` must be an object; it was ignored"
                ));
                continue;
            };
            for (key, value) in object {
                if key == "classifyAllShell" {
                    match value.as_bool() {
                        Some(on) => classify_all_shell = on,
                        None => warnings.push(format!(
                            "{source}: `autoMode.classifyAllShell` must be true or false; it was ignored"
                        )),
                    }
                } else if let Some(list) = set.section_mut(key) {
                    read_list(source, key, value, list, &mut warnings);
                } else {
                    warnings.push(format!(
                        "{source}: unknown key `autoMode.{key}` was ignored (known: allow, \
                         soft_deny, hard_deny, environment, classifyAllShell)"
                    ));
                }
            }
        }
        let defaults = AutoModeRules::defaults();
        let rules = AutoModeRules {
            allow: splice(set.allow, &defaults.allow),
            soft_deny: splice(set.soft_deny, &defaults.soft_deny),
            hard_deny: splice(set.hard_deny, &defaults.hard_deny),
            environment: splice(set.environment, &defaults.environment),
        };
        let config = AutoModeConfig {
            rules,
            classify_all_shell,
        };
        (config, warnings)
    }

    /// The entries that are not tack's defaults, by list key (lists with none
    /// left out): what `tack auto-mode critique` reviews.
    pub fn custom_rules(&self) -> Vec<(&'static str, Vec<&str>)> {
        let defaults = AutoModeRules::defaults();
        self.rules
            .sections()
            .into_iter()
            .zip(defaults.sections())
            .filter_map(|((key, list), (_, default))| {
                let custom: Vec<&str> = list
                    .iter()
                    .filter(|entry| !default.contains(entry))
                    .map(String::as_str)
                    .collect();
                (!custom.is_empty()).then_some((key, custom))
            })
            .collect()
    }
}

/// Appends the string entries of one source's list to `list`.
fn read_list(
    source: &str,
    key: &str,
    value: &Value,
    list: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    let Some(items) = value.as_array() else {
        warnings.push(format!(
            "{source}: `autoMode.{key}` must be a list of strings; it was ignored"
        ));
        return;
    };
    for (i, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim) {
            Some("") => warnings.push(format!(
                "{source}: `autoMode.{key}[{i}]` is blank; it was skipped"
            )),
            Some(text) => list.push(text.to_owned()),
            None => warnings.push(format!(
                "{source}: `autoMode.{key}[{i}]` is not a string; it was skipped"
            )),
        }
    }
}

/// `set` with the defaults at its first `"$defaults"`; the defaults alone
/// when nothing was set.
fn splice(set: Vec<String>, defaults: &[String]) -> Vec<String> {
    if set.is_empty() {
        return defaults.to_vec();
    }
    let mut out = Vec::with_capacity(set.len() + defaults.len());
    let mut spliced = false;
    for entry in set {
        if entry == DEFAULTS_MARKER {
            if !spliced {
                out.extend_from_slice(defaults);
                spliced = true;
            }
        } else {
            out.push(entry);
        }
    }
    out
}

/// `tack auto-mode defaults`: the default lists as pretty JSON.
pub fn defaults_json() -> String {
    rules_json(&AutoModeRules::defaults())
}

/// `tack auto-mode config`: the effective lists as pretty JSON (the four
/// lists, as Claude Code prints them).
pub fn config_json(config: &AutoModeConfig) -> String {
    rules_json(&config.rules)
}

fn rules_json(rules: &AutoModeRules) -> String {
    // Serialising a struct of string lists cannot fail.
    serde_json::to_string_pretty(rules).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn no_sources_is_the_defaults() {
        assert_eq!(
            AutoModeConfig::from_sources(&[]),
            (AutoModeConfig::defaults(), Vec::new())
        );
    }

    #[test]
    fn a_list_replaces_the_defaults_unless_it_splices_them() {
        let user = json!({"allow": ["Deploys to staging are fine."], "soft_deny": ["No pip.", "$defaults", "No brew."]});
        let (config, warnings) = AutoModeConfig::from_sources(&[("user settings", &user)]);
        let defaults = AutoModeRules::defaults();
        let mut soft_deny = strings(&["No pip."]);
        soft_deny.extend(defaults.soft_deny.iter().cloned());
        soft_deny.push("No brew.".into());
        assert_eq!(
            (config, warnings),
            (
                AutoModeConfig {
                    rules: AutoModeRules {
                        allow: strings(&["Deploys to staging are fine."]),
                        soft_deny,
                        hard_deny: defaults.hard_deny.clone(),
                        environment: defaults.environment.clone(),
                    },
                    classify_all_shell: false,
                },
                Vec::new()
            )
        );
    }

    #[test]
    fn sources_concatenate_in_order_and_the_defaults_appear_once() {
        let user = json!({"environment": ["$defaults", "git.corp.example is ours."], "classifyAllShell": true});
        let flag = json!({"environment": ["s3://team-bucket is ours.", "$defaults"]});
        let managed = json!({"environment": ["Nothing under prod-* is ours."], "classifyAllShell": false, "hard_deny": []});
        let (config, warnings) = AutoModeConfig::from_sources(&[
            ("user settings", &user),
            ("--settings", &flag),
            ("managed settings", &managed),
        ]);
        let defaults = AutoModeRules::defaults();
        let mut environment = defaults.environment.clone();
        environment.extend(strings(&[
            "git.corp.example is ours.",
            "s3://team-bucket is ours.",
            "Nothing under prod-* is ours.",
        ]));
        assert_eq!(
            (config, warnings),
            (
                AutoModeConfig {
                    rules: AutoModeRules {
                        environment,
                        ..defaults
                    },
                    classify_all_shell: false,
                },
                Vec::new()
            )
        );
    }

    #[test]
    fn malformed_entries_are_skipped_with_warnings() {
        let user = json!({
            "allow": ["ok", 3, "  ", null],
            "soft_deny": "not a list",
            "classifyAllShell": "yes",
            "allowAll": true,
        });
        let broken = json!(["not", "an", "object"]);
        let (config, warnings) =
            AutoModeConfig::from_sources(&[("user settings", &user), ("--settings", &broken)]);
        assert_eq!(
            (config.rules.allow, warnings),
            (
                strings(&["ok"]),
                strings(&[
                    "user settings: `autoMode.allow[1]` is not a string; it was skipped",
                    "user settings: `autoMode.allow[2]` is blank; it was skipped",
                    "user settings: `autoMode.allow[3]` is not a string; it was skipped",
                    "user settings: `autoMode.soft_deny` must be a list of strings; it was ignored",
                    "user settings: `autoMode.classifyAllShell` must be true or false; it was ignored",
                    "user settings: unknown key `autoMode.allowAll` was ignored (known: allow, soft_deny, hard_deny, environment, classifyAllShell)",
                    "--settings: `autoMode` must be an object; it was ignored",
                ])
            )
        );
    }

    #[test]
    fn custom_rules_are_the_entries_that_are_not_defaults() {
        let user = json!({"allow": ["$defaults", "Deploys to staging are fine."], "hard_deny": ["Never touch prod."]});
        let (config, _) = AutoModeConfig::from_sources(&[("user settings", &user)]);
        assert_eq!(
            config.custom_rules(),
            vec![
                ("allow", vec!["Deploys to staging are fine."]),
                ("hard_deny", vec!["Never touch prod."]),
            ]
        );
        assert_eq!(AutoModeConfig::defaults().custom_rules(), Vec::new());
    }
}
