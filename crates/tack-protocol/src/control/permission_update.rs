//! Permission changes, as the SDKs spell them: suggested in `can_use_tool`,
//! applied with an allow (`updatedPermissions`).

use serde::{Deserialize, Serialize};

/// A permission change, in `permission_suggestions` and `updatedPermissions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum PermissionUpdate {
    AddRules(RulesUpdate),
    ReplaceRules(RulesUpdate),
    RemoveRules(RulesUpdate),
    SetMode(ModeUpdate),
    AddDirectories(DirectoriesUpdate),
    RemoveDirectories(DirectoriesUpdate),
}

impl PermissionUpdate {
    /// A rule (`Bash(npm test *)`) as an "always allow" suggestion: add it to
    /// the local settings.
    pub fn allow_rule(rule: &str) -> PermissionUpdate {
        let (tool_name, rule_content) = match rule.split_once('(') {
            Some((tool, rest)) => (tool.to_owned(), rest.strip_suffix(')').map(str::to_owned)),
            None => (rule.to_owned(), None),
        };
        PermissionUpdate::AddRules(RulesUpdate {
            rules: vec![PermissionRuleValue {
                tool_name,
                rule_content,
            }],
            behavior: PermissionBehavior::Allow,
            destination: PermissionDestination::LocalSettings,
        })
    }
}

/// `addRules` / `replaceRules` / `removeRules`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RulesUpdate {
    pub rules: Vec<PermissionRuleValue>,
    pub behavior: PermissionBehavior,
    pub destination: PermissionDestination,
}

/// `setMode`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeUpdate {
    /// A permission mode name (`acceptEdits`, ...).
    pub mode: String,
    pub destination: PermissionDestination,
}

/// `addDirectories` / `removeDirectories`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectoriesUpdate {
    pub directories: Vec<String>,
    pub destination: PermissionDestination,
}

/// `{"toolName": "Bash", "ruleContent": "npm test *"}`; no `ruleContent` is a rule
/// for every use of the tool (the Python SDK leaves the key out, never `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRuleValue {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_content: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionBehavior {
    Allow,
    Deny,
    Ask,
}

/// Where a permission update is applied and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionDestination {
    UserSettings,
    ProjectSettings,
    LocalSettings,
    /// In memory until the session ends (the Python SDK's default).
    Session,
    /// The command line's rules (TypeScript only).
    CliArg,
}
