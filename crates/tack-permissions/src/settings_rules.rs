//! Building a [`RuleSet`] from the `permissions.allow/ask/deny` lists of every
//! settings source, and writing "allow always" rules to the local settings file.
//!
//! Precedence does not depend on the source: deny beats ask beats allow wherever
//! each was written, so no source (not even `--allowedTools`) can widen a deny.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::rule::{Rule, Specifier, ToolPattern, parse_rule};

/// Whether a rule allows, asks or denies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleBehavior {
    /// `permissions.allow`, `--allowedTools`.
    Allow,
    /// `permissions.ask`.
    Ask,
    /// `permissions.deny`, `--disallowedTools`.
    Deny,
}

impl RuleBehavior {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleBehavior::Allow => "allow",
            RuleBehavior::Ask => "ask",
            RuleBehavior::Deny => "deny",
        }
    }
}

/// Where rules come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSource {
    /// A short name (`userSettings`, `projectSettings`, `localSettings`,
    /// `cliArg`, `session`, ...).
    pub name: String,
    /// The file, when there is one (named in errors).
    pub file: Option<PathBuf>,
    /// The directory `/path` rule patterns are relative to (project root for
    /// project and local settings). `None`: the cwd.
    pub root: Option<PathBuf>,
}

impl RuleSource {
    /// A source without a file (`cliArg`, `session`).
    pub fn named(name: &str) -> RuleSource {
        RuleSource {
            name: name.to_string(),
            file: None,
            root: None,
        }
    }

    fn describe(&self) -> String {
        match &self.file {
            Some(f) => f.display().to_string(),
            None => self.name.clone(),
        }
    }
}

/// A rule that could not be used, naming the rule and where it was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid permission rule `{rule}` in {source_desc} ({behavior}): {message}")]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// The file or source name.
    pub source_desc: String,
    /// `allow`, `ask` or `deny`.
    pub behavior: &'static str,
    /// What is wrong.
    pub message: String,
}

/// One rule with its behaviour and source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedRule {
    /// The rule.
    pub rule: Rule,
    /// Allow, ask or deny.
    pub behavior: RuleBehavior,
    /// Where it was written.
    pub source: Arc<RuleSource>,
}

/// The rules of one source, as read from settings or flags.
#[derive(Debug, Clone, Default)]
pub struct RuleLists {
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `permissions.ask`.
    pub ask: Vec<String>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
}

/// All rules of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    pub(crate) rules: Vec<SourcedRule>,
    pub(crate) warnings: Vec<String>,
}

impl RuleSet {
    /// An empty set.
    pub fn new() -> RuleSet {
        RuleSet::default()
    }

    /// Builds a set from several sources, reporting every invalid rule at once.
    /// Valid rules are kept even when others fail: callers that want to fail hard
    /// check the `Err`, callers that want to warn can use [`RuleSet::add`] instead.
    pub fn from_sources(
        sources: impl IntoIterator<Item = (RuleSource, RuleLists)>,
    ) -> Result<RuleSet, (RuleSet, Vec<RuleError>)> {
        let mut set = RuleSet::new();
        let mut errors = Vec::new();
        for (source, lists) in sources {
            let source = Arc::new(source);
            for (behavior, list) in [
                (RuleBehavior::Deny, &lists.deny),
                (RuleBehavior::Ask, &lists.ask),
                (RuleBehavior::Allow, &lists.allow),
            ] {
                for text in list {
                    if let Err(e) = set.add_shared(&source, behavior, text) {
                        errors.push(e);
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(set)
        } else {
            Err((set, errors))
        }
    }

    /// Parses and adds one rule.
    pub fn add(
        &mut self,
        source: &RuleSource,
        behavior: RuleBehavior,
        text: &str,
    ) -> Result<(), RuleError> {
        self.add_shared(&Arc::new(source.clone()), behavior, text)
    }

    fn add_shared(
        &mut self,
        source: &Arc<RuleSource>,
        behavior: RuleBehavior,
        text: &str,
    ) -> Result<(), RuleError> {
        let err = |message: String| RuleError {
            rule: text.to_string(),
            source_desc: source.describe(),
            behavior: behavior.as_str(),
            message,
        };
        let mut rule = parse_rule(text).map_err(err)?;
        if behavior == RuleBehavior::Allow {
            if let ToolPattern::Glob(g) = &rule.tool {
                let ok = g
                    .strip_prefix("mcp__")
                    .and_then(|r| r.split_once("__"))
                    .is_some_and(|(server, _)| !server.is_empty() && !server.contains('*'));
                if !ok {
                    return Err(err(
                        "allow rules accept a tool-name wildcard only after `mcp__<server>__`"
                            .into(),
                    ));
                }
            }
            if let Specifier::Param { .. } = rule.specifier {
                return Err(err(
                    "`key:value` parameter rules are only valid in deny and ask".into(),
                ));
            }
        }
        // `Write(path)` / `MultiEdit(path)`: Claude Code ignores them (Edit rules
        // govern every file-writing tool). tack ignores them as allow rules, and
        // applies them as Edit rules when they deny or ask (never less safe).
        if let (ToolPattern::Name(n), Specifier::Path(_)) = (&rule.tool, &rule.specifier)
            && matches!(n.as_str(), "Write" | "MultiEdit")
        {
            let where_ = source.describe();
            if behavior == RuleBehavior::Allow {
                self.warnings.push(format!(
                    "ignored allow rule `{text}` in {where_}: file-writing tools are governed by Edit(...) rules"
                ));
                return Ok(());
            }
            self.warnings.push(format!(
                "rule `{text}` in {where_} applied as an Edit(...) rule: Edit rules govern every file-writing tool"
            ));
            rule.tool = ToolPattern::Name("Edit".into());
        }
        self.rules.push(SourcedRule {
            rule,
            behavior,
            source: Arc::clone(source),
        });
        Ok(())
    }

    /// Removes every rule of the source named `name` (rules added for one
    /// turn, e.g. a custom command's `allowed-tools`); returns how many.
    pub fn remove_source(&mut self, name: &str) -> usize {
        let before = self.rules.len();
        self.rules.retain(|r| r.source.name != name);
        before - self.rules.len()
    }

    /// Every rule, in insertion order.
    pub fn rules(&self) -> &[SourcedRule] {
        &self.rules
    }

    /// Warnings about rules accepted with a caveat.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub(crate) fn with(&self, behavior: RuleBehavior) -> impl Iterator<Item = &SourcedRule> {
        self.rules.iter().filter(move |r| r.behavior == behavior)
    }
}

/// Errors writing the local settings file.
#[derive(Debug, thiserror::Error)]
pub enum LocalSettingsError {
    /// Reading, writing or renaming failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The existing file is not a JSON object (or `permissions`/`allow` have the
    /// wrong type); it is left untouched.
    #[error("{path}: {message}; not modified")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Adds `rule` to `permissions.allow` of the settings file at `path` (the
/// project's local settings, e.g. `<project>/.tack/settings.local.json`), creating
/// the file and its directory if needed. Other keys are preserved (their order is
/// not: keys are written sorted). A rule already present is not added twice. The
/// write is atomic (temporary file in the same directory, then rename).
pub fn add_allow_rule_to_local_settings(path: &Path, rule: &str) -> Result<(), LocalSettingsError> {
    let io = |source| LocalSettingsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let invalid = |message: &str| LocalSettingsError::Invalid {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    let mut root: Value = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Ok(text) => serde_json::from_str(&text).map_err(|e| invalid(&format!("not JSON: {e}")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(e) => return Err(io(e)),
    };
    let obj = root
        .as_object_mut()
        .ok_or_else(|| invalid("not a JSON object"))?;
    let perms = obj
        .entry("permissions")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| invalid("`permissions` is not an object"))?;
    let allow = perms
        .entry("allow")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| invalid("`permissions.allow` is not an array"))?;
    if allow.iter().any(|v| v.as_str() == Some(rule)) {
        return Ok(());
    }
    allow.push(Value::String(rule.to_string()));
    let mut text = serde_json::to_string_pretty(&root).map_err(|e| invalid(&e.to_string()))?;
    text.push('\n');
    tack_sys::write_atomic(path, text.as_bytes()).map_err(io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn lists(allow: &[&str], ask: &[&str], deny: &[&str]) -> RuleLists {
        let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect();
        RuleLists {
            allow: v(allow),
            ask: v(ask),
            deny: v(deny),
        }
    }

    #[test]
    fn errors_name_rule_and_file() {
        let src = RuleSource {
            name: "projectSettings".into(),
            file: Some(PathBuf::from("/p/.tack/settings.json")),
            root: None,
        };
        let Err((set, errs)) =
            RuleSet::from_sources([(src, lists(&["Bash(git diff", "Read", "*"], &[], &["*"]))])
        else {
            panic!("expected errors");
        };
        assert_eq!(set.rules().len(), 2);
        assert_eq!(
            errs.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
            vec![
                "invalid permission rule `Bash(git diff` in /p/.tack/settings.json (allow): missing closing `)` at the end",
                "invalid permission rule `*` in /p/.tack/settings.json (allow): allow rules accept a tool-name wildcard only after `mcp__<server>__`",
            ]
        );
    }

    #[test]
    fn write_rules_are_edit_rules_when_denying() {
        let mut set = RuleSet::new();
        let s = RuleSource::named("cliArg");
        set.add(&s, RuleBehavior::Allow, "Write(./x)").unwrap();
        set.add(&s, RuleBehavior::Deny, "Write(./y)").unwrap();
        assert_eq!(set.rules().len(), 1);
        assert_eq!(set.rules()[0].rule.tool, ToolPattern::Name("Edit".into()));
        assert_eq!(set.warnings().len(), 2);
        assert!(
            set.add(&s, RuleBehavior::Allow, "Bash(run_in_background:true)")
                .is_err()
        );
        assert!(
            set.add(&s, RuleBehavior::Deny, "Bash(run_in_background:true)")
                .is_ok()
        );
        assert!(set.add(&s, RuleBehavior::Allow, "mcp__gh__*").is_ok());
    }

    #[test]
    fn removing_a_source_keeps_the_others() {
        let mut set = RuleSet::new();
        let cli = RuleSource::named("cliArg");
        let turn = RuleSource::named("command");
        set.add(&cli, RuleBehavior::Allow, "Read").unwrap();
        set.add(&turn, RuleBehavior::Allow, "Bash(git status:*)")
            .unwrap();
        set.add(&turn, RuleBehavior::Allow, "Edit").unwrap();
        set.add(&cli, RuleBehavior::Deny, "WebFetch").unwrap();
        assert_eq!(set.remove_source("command"), 2);
        let left: Vec<(&str, &str)> = set
            .rules()
            .iter()
            .map(|r| (r.rule.text.as_str(), r.source.name.as_str()))
            .collect();
        assert_eq!(left, vec![("Read", "cliArg"), ("WebFetch", "cliArg")]);
        assert_eq!(set.remove_source("command"), 0);
    }

    #[test]
    fn local_settings_are_edited_atomically() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join(".tack/settings.local.json");
        add_allow_rule_to_local_settings(&path, "Bash(git diff:*)").unwrap();
        add_allow_rule_to_local_settings(&path, "Bash(git diff:*)").unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v, json!({"permissions": {"allow": ["Bash(git diff:*)"]}}));

        std::fs::write(
            &path,
            r#"{"model":"x","permissions":{"deny":["Read(./.env)"],"allow":["Read"]}}"#,
        )
        .unwrap();
        add_allow_rule_to_local_settings(&path, "Edit(./src/**)").unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            v,
            json!({"model":"x","permissions":{"deny":["Read(./.env)"],"allow":["Read","Edit(./src/**)"]}})
        );

        std::fs::write(&path, "[1]").unwrap();
        assert!(add_allow_rule_to_local_settings(&path, "Read").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[1]");
    }
}
