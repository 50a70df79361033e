//! Keys a settings file has that nothing reads: `"permisions": {"deny":
//! ["Bash"]}` would otherwise be ignored without a word, and the deny never
//! apply. Each one becomes a [`SettingsWarning`] with the file, the line and
//! the nearest key that does exist.
//!
//! Keys Claude Code reads but tack does not (its UI, plugins, sandbox...) are
//! not warned about: tack reads Claude Code's own settings files, and those
//! keys are not mistakes.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

use serde_json::value::RawValue;

/// Top-level keys tack reads (see `file.rs`).
pub(crate) const TACK_KEYS: &[&str] = &[
    "model",
    "fallbackModel",
    "permissions",
    "env",
    "hooks",
    "disableAllHooks",
    "apiKeyHelper",
    "otelHeadersHelper",
    "cleanupPeriodDays",
    "includeCoAuthoredBy",
    "attribution",
    "enableAllProjectMcpServers",
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "autoCompactEnabled",
    "outputStyle",
    "statusLine",
    "providers",
    "modelPrices",
    "sandbox",
    "worktree",
    "autoMode",
    "useAutoModeDuringPlan",
    "skipAutoPermissionPrompt",
];

/// Top-level keys of Claude Code's settings that tack does not use.
const CLAUDE_CODE_KEYS: &[&str] = &[
    "$schema",
    // Read by tack-runtime (the main session's agent) as `teammateMode` is.
    "agent",
    "allowManagedHooksOnly",
    "allowManagedMcpServersOnly",
    "allowManagedPermissionRulesOnly",
    "allowedHttpHookUrls",
    "allowedMcpServers",
    "alwaysThinkingEnabled",
    "autoCompactWindow",
    "autoMemoryDirectory",
    "autoMemoryEnabled",
    "autoUpdatesChannel",
    "availableModels",
    "awsAuthRefresh",
    "awsCredentialExport",
    "blockedMarketplaces",
    "claudeMdExcludes",
    "companyAnnouncements",
    "deniedMcpServers",
    "editorMode",
    "effortLevel",
    "enabledPlugins",
    "extraKnownMarketplaces",
    "fastModePerSessionOptIn",
    "feedbackSurveyRate",
    "fileSuggestion",
    "forceLoginMethod",
    "forceLoginOrgUUID",
    "httpHookAllowedEnvVars",
    "includeGitInstructions",
    "language",
    "modelOverrides",
    "plansDirectory",
    "pluginTrustMessage",
    "preferredNotifChannel",
    "prefersReducedMotion",
    "respectGitignore",
    "showTurnDuration",
    "skipWebFetchPreflight",
    "spinnerTipsEnabled",
    "spinnerTipsOverride",
    "spinnerVerbs",
    "strictKnownMarketplaces",
    "subagentStatusLine",
    "teammateMode",
    "terminalProgressBarEnabled",
    "theme",
    "vimInsertModeRemaps",
];

/// `permissions` keys tack reads.
pub(crate) const TACK_PERMISSION_KEYS: &[&str] = &[
    "allow",
    "ask",
    "deny",
    "defaultMode",
    "additionalDirectories",
    "disableBypassPermissionsMode",
    "disableAutoMode",
    "denyInsteadOfPrompting",
];

/// `permissions` keys of Claude Code's that tack does not use.
const CLAUDE_CODE_PERMISSION_KEYS: &[&str] = &[];

/// Something in the settings that is not an error but that the user should
/// hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsWarning {
    /// A key no one reads; it is ignored.
    UnknownKey {
        /// The file (`--settings` for inline JSON).
        path: PathBuf,
        /// 1-based line of the key.
        line: usize,
        /// Dotted for nested keys: `permissions.dney`.
        key: String,
        /// The nearest key that exists, if one is close.
        suggestion: Option<String>,
    },
    /// A repository's settings file (project or local scope) that cannot be
    /// read or parsed: skipped, so a checkout cannot stop tack from starting.
    SkippedFile {
        /// The file.
        path: PathBuf,
        /// Why, as [`crate::ConfigError`] prints it.
        error: String,
    },
}

impl fmt::Display for SettingsWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsWarning::UnknownKey {
                path,
                line,
                key,
                suggestion,
            } => {
                write!(
                    f,
                    "unknown settings key \"{key}\" in {}:{line}",
                    path.display()
                )?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean \"{s}\"?)")?;
                }
                write!(f, "; it is ignored")
            }
            SettingsWarning::SkippedFile { error, .. } => {
                write!(f, "{error}; this settings file is skipped")
            }
        }
    }
}

/// Unknown keys of a settings text that parsed as an object: (dotted key,
/// line), in file order. Checks the top level and `permissions`.
pub(crate) fn find(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let Some(top) = object_keys(text, text) else {
        return found;
    };
    for (key, value, line) in top {
        if key == "permissions" {
            let nested = object_keys(text, value.get()).unwrap_or_default();
            for (sub, _, line) in nested {
                if !known(&sub, TACK_PERMISSION_KEYS, CLAUDE_CODE_PERMISSION_KEYS) {
                    found.push((format!("permissions.{sub}"), line));
                }
            }
        } else if !known(&key, TACK_KEYS, CLAUDE_CODE_KEYS) {
            found.push((key, line));
        }
    }
    found
}

/// The nearest existing key to a dotted unknown one, if it is close enough to
/// be a typo (edits, a swap of two letters counting as one: at most a third
/// of its length, and at least 1).
pub(crate) fn suggest(dotted: &str) -> Option<String> {
    let (prefix, key, tack, claude) = match dotted.strip_prefix("permissions.") {
        Some(sub) => (
            "permissions.",
            sub,
            TACK_PERMISSION_KEYS,
            CLAUDE_CODE_PERMISSION_KEYS,
        ),
        None => ("", dotted, TACK_KEYS, CLAUDE_CODE_KEYS),
    };
    let lower = key.to_lowercase();
    tack.iter()
        .chain(claude)
        .map(|k| (strsim::osa_distance(&lower, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= (key.chars().count() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| format!("{prefix}{k}"))
}

fn known(key: &str, tack: &[&str], claude: &[&str]) -> bool {
    tack.contains(&key) || claude.contains(&key)
}

/// The keys of the JSON object `object` (a slice of `text`), each with its
/// raw value and the line of the key in `text`, in file order. `None` if it
/// is not an object.
fn object_keys<'t>(text: &'t str, object: &'t str) -> Option<Vec<(String, &'t RawValue, usize)>> {
    let map: HashMap<String, &'t RawValue> = serde_json::from_str(object).ok()?;
    let base = text.as_ptr() as usize;
    let mut keys: Vec<(usize, String, &RawValue)> = map
        .into_iter()
        .map(|(k, v)| (v.get().as_ptr() as usize - base, k, v))
        .collect();
    keys.sort_by_key(|(offset, _, _)| *offset);
    Some(
        keys.into_iter()
            .map(|(offset, key, value)| (key, value, key_line(text, offset)))
            .collect(),
    )
}

/// The line of the key whose value starts at byte `value_at`: the line of
/// the `"` closing the key, found back across the `:` and whitespace.
fn key_line(text: &str, value_at: usize) -> usize {
    let before = text[..value_at].trim_end();
    let before = before.strip_suffix(':').unwrap_or(before).trim_end();
    before.matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn unknown_keys_come_with_their_line_in_file_order() {
        let text = "{\n  \"model\": \"x\",\n  \"permisions\"\n    :\n  {\"deny\": [\"Bash\"]},\n  \
                    \"permissions\": {\n    \"allow\": [],\n    \"dney\": [\"Write\"]\n  },\n  \
                    \"theme\": \"dark\",\n  \"z\\u00e9\": 1\n}";
        assert_eq!(
            find(text),
            vec![
                ("permisions".to_owned(), 3),
                ("permissions.dney".to_owned(), 8),
                ("zé".to_owned(), 11),
            ]
        );
        assert_eq!(find("[1]"), vec![]);
    }

    #[test]
    fn suggestions_are_near_misses_only() {
        assert_eq!(suggest("permisions").as_deref(), Some("permissions"));
        assert_eq!(suggest("Model").as_deref(), Some("model"));
        assert_eq!(
            suggest("permissions.dney").as_deref(),
            Some("permissions.deny")
        );
        assert_eq!(
            suggest("permissions.defaultmode").as_deref(),
            Some("permissions.defaultMode")
        );
        assert_eq!(suggest("apikeyhelpr").as_deref(), Some("apiKeyHelper"));
        assert_eq!(suggest("xyz"), None);
        assert_eq!(suggest("somethingElseEntirely"), None);
    }

    #[test]
    fn warnings_read_as_one_line() {
        let w = SettingsWarning::UnknownKey {
            path: "/p/.claude/settings.json".into(),
            line: 3,
            key: "permisions".into(),
            suggestion: Some("permissions".into()),
        };
        assert_eq!(
            w.to_string(),
            "unknown settings key \"permisions\" in /p/.claude/settings.json:3 (did you mean \
             \"permissions\"?); it is ignored"
        );
    }
}
