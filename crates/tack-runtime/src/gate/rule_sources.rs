//! The permission rules as the settings files and the flags give them, one
//! entry per source, and their parsing into one rule set: an invalid rule of
//! the user's stops the session, one of the repository's is skipped with a
//! warning.

use std::path::{Path, PathBuf};

use tack_permissions::{RuleBehavior, RuleLists, RuleSet, RuleSource};

/// Rules as read from settings and flags, one entry per source, not parsed yet.
pub type RuleSources = Vec<(RuleSource, RuleLists)>;

/// The `permissions.allow/ask/deny` lists of every settings file, lowest first,
/// each with its scope (`userSettings`, ...), file and root.
pub fn settings_rule_sources(p: &tack_config::Permissions) -> RuleSources {
    let mut out: Vec<(tack_config::Source, RuleLists)> = Vec::new();
    let lists = [
        (RuleBehavior::Allow, p.allow()),
        (RuleBehavior::Ask, p.ask()),
        (RuleBehavior::Deny, p.deny()),
    ];
    for (behavior, list) in lists {
        for rule in list {
            let i = match out.iter().position(|(s, _)| s == rule.source()) {
                Some(i) => i,
                None => {
                    out.push((rule.source().clone(), RuleLists::default()));
                    out.len() - 1
                }
            };
            let l = &mut out[i].1;
            match behavior {
                RuleBehavior::Allow => l.allow.push(rule.value().clone()),
                RuleBehavior::Ask => l.ask.push(rule.value().clone()),
                RuleBehavior::Deny => l.deny.push(rule.value().clone()),
            }
        }
    }
    out.into_iter()
        .map(|(source, lists)| {
            let rs = RuleSource {
                name: source.scope().name().to_owned(),
                file: Some(
                    source
                        .file_path()
                        .map_or_else(|| PathBuf::from("--settings"), Path::to_path_buf),
                ),
                root: Some(source.root().to_path_buf()),
            };
            (rs, lists)
        })
        .collect()
}

/// `--allowedTools` / `--disallowedTools` as a rule source (`cliArg`).
pub fn cli_rule_source(allow: Vec<String>, deny: Vec<String>) -> (RuleSource, RuleLists) {
    (
        RuleSource::named("cliArg"),
        RuleLists {
            allow,
            ask: Vec::new(),
            deny,
        },
    )
}

/// An invalid permission rule (one line naming the rule and its file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RulesError(pub String);

/// Parses every rule. An invalid rule of the repository's settings (project
/// or local) is left out with a warning, so a checkout cannot stop tack from
/// starting; the first invalid rule of any other source is the error.
/// Warnings (rules applied differently than written, rules left out) are
/// returned.
pub fn build_rules(mut sources: RuleSources) -> Result<(RuleSet, Vec<String>), RulesError> {
    let mut warnings = Vec::new();
    for (source, lists) in &mut sources {
        if !matches!(source.name.as_str(), "projectSettings" | "localSettings") {
            continue;
        }
        let Err((_, errors)) = RuleSet::from_sources([(source.clone(), lists.clone())]) else {
            continue;
        };
        for e in errors {
            let list = match e.behavior {
                "allow" => &mut lists.allow,
                "ask" => &mut lists.ask,
                _ => &mut lists.deny,
            };
            list.retain(|r| r != &e.rule);
            warnings.push(format!("warning: {e}; the rule is skipped"));
        }
    }
    let set = RuleSet::from_sources(sources).map_err(|(_, errors)| {
        let first = errors.into_iter().next().map(|e| e.to_string());
        RulesError(first.unwrap_or_else(|| "invalid permission rule".to_owned()))
    })?;
    warnings.extend(set.warnings().iter().map(|w| format!("warning: {w}")));
    Ok((set, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_rules_name_the_rule_and_the_file() {
        let source = RuleSource {
            name: "userSettings".into(),
            file: Some(PathBuf::from("/h/.claude/settings.json")),
            root: None,
        };
        let lists = RuleLists {
            allow: vec!["Bash(echo *)".into(), "Bash(:*".into()],
            ..RuleLists::default()
        };
        let err = build_rules(vec![(source, lists)]).unwrap_err().to_string();
        assert!(err.contains("`Bash(:*`"), "{err}");
        assert!(err.contains("/h/.claude/settings.json"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }

    #[test]
    fn invalid_rules_of_the_repository_are_skipped_with_a_warning() {
        let source = RuleSource {
            name: "projectSettings".into(),
            file: Some(PathBuf::from("/p/.claude/settings.json")),
            root: Some(PathBuf::from("/p")),
        };
        let lists = RuleLists {
            deny: vec!["Bash(rm *)".into(), "Bash(:*".into()],
            ..RuleLists::default()
        };
        let (set, warnings) = build_rules(vec![(source, lists)]).unwrap();
        let kept: Vec<String> = set.rules().iter().map(|r| r.rule.text.clone()).collect();
        assert_eq!(kept, vec!["Bash(rm *)".to_owned()]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(
                "warning: invalid permission rule `Bash(:*` in /p/.claude/settings.json (deny)"
            ) && warnings[0].ends_with("; the rule is skipped"),
            "{warnings:?}"
        );
    }
}
