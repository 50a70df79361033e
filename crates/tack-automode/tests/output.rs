//! `tack auto-mode defaults` and `tack auto-mode config`: whole outputs.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_automode::{AutoModeConfig, AutoModeRules, config_json, defaults_json};

#[test]
fn defaults_print_as_claude_codes_four_lists() {
    insta::assert_snapshot!(defaults_json());
}

#[test]
fn config_prints_the_merged_lists() {
    let user = json!({"soft_deny": ["No brew.", "$defaults"], "hard_deny": ["Never touch prod."], "classifyAllShell": true});
    let (config, warnings) = AutoModeConfig::from_sources(&[("user settings", &user)]);
    assert_eq!(warnings, Vec::<String>::new());
    let printed: Value = serde_json::from_str(&config_json(&config)).unwrap();
    let defaults = AutoModeRules::defaults();
    let mut soft_deny = vec!["No brew.".to_owned()];
    soft_deny.extend(defaults.soft_deny);
    assert_eq!(
        printed,
        json!({
            "allow": defaults.allow,
            "soft_deny": soft_deny,
            "hard_deny": ["Never touch prod."],
            "environment": defaults.environment,
        })
    );
    assert_eq!(config_json(&AutoModeConfig::defaults()), defaults_json());
}

#[test]
fn the_classifiers_system_prompt_with_the_defaults() {
    insta::assert_snapshot!(tack_automode::system_prompt(&AutoModeRules::defaults()));
}

#[test]
fn verdicts_serialize_as_tagged_objects() {
    use tack_automode::Verdict;
    let verdicts = [
        Verdict::Allow { stage: 1 },
        Verdict::Block {
            stage: 2,
            category: Some("History rewrite".into()),
            reason: "It rewrites main.".into(),
        },
        Verdict::Failed {
            why: "unreachable".into(),
        },
    ];
    assert_eq!(
        serde_json::to_value(&verdicts).unwrap(),
        json!([
            {"verdict": "allow", "stage": 1},
            {"verdict": "block", "stage": 2, "category": "History rewrite", "reason": "It rewrites main."},
            {"verdict": "failed", "why": "unreachable"},
        ])
    );
}
