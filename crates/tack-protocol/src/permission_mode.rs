//! Permission modes, as named in settings (`permissions.defaultMode`) and on the
//! command line (`--permission-mode`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How the engine decides when no rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Read-only tools inside the working directories run; everything else asks.
    /// Shown as "Manual" (Claude Code's name since auto mode; `manual` is accepted).
    #[default]
    #[serde(alias = "manual")]
    Default,
    /// As `Default`, plus file edits (and `mkdir`/`touch`/`mv`/`cp`, and output
    /// redirections) inside the working directories run without asking.
    AcceptEdits,
    /// Read-only tools only; any other call is denied until the plan is approved.
    Plan,
    /// No prompts: everything not denied (or explicitly asked) by a rule runs.
    /// Writes to protected paths (`.git`, `.claude`, `.tack`) still ask.
    /// Only reachable through an explicit flag; see [`PermissionMode::parse`].
    BypassPermissions,
    /// Anything not pre-allowed by a rule or a mode default is denied (never asks).
    DontAsk,
    /// A classifier model decides what no rule, safety check or local fast
    /// path (read-only calls, edits inside the working directories) decides.
    Auto,
}

impl PermissionMode {
    /// The settings / CLI spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Auto => "auto",
        }
    }
}

impl PermissionMode {
    /// The name a person reads (`default` is "Manual").
    pub fn label(self) -> &'static str {
        match self {
            PermissionMode::Default => "Manual",
            PermissionMode::AcceptEdits => "Accept edits",
            PermissionMode::Plan => "Plan",
            PermissionMode::BypassPermissions => "Bypass permissions",
            PermissionMode::DontAsk => "Don't ask",
            PermissionMode::Auto => "Auto",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown mode name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMode(pub String);

impl fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown permission mode `{}` (expected one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto)",
            self.0
        )
    }
}

impl std::error::Error for UnknownMode {}

impl FromStr for PermissionMode {
    type Err = UnknownMode;

    /// Accepts the spec's names plus `manual` (alias of `default`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "default" | "manual" => PermissionMode::Default,
            "acceptEdits" => PermissionMode::AcceptEdits,
            "plan" => PermissionMode::Plan,
            "bypassPermissions" => PermissionMode::BypassPermissions,
            "dontAsk" => PermissionMode::DontAsk,
            "auto" => PermissionMode::Auto,
            other => return Err(UnknownMode(other.to_string())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_name() {
        for m in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
            PermissionMode::BypassPermissions,
            PermissionMode::DontAsk,
            PermissionMode::Auto,
        ] {
            assert_eq!(m.as_str().parse::<PermissionMode>(), Ok(m));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.as_str()));
        }
        assert_eq!("manual".parse(), Ok(PermissionMode::Default));
        let manual: PermissionMode = serde_json::from_str("\"manual\"").unwrap();
        assert_eq!(manual, PermissionMode::Default);
        assert!("yolo".parse::<PermissionMode>().is_err());
    }
}
