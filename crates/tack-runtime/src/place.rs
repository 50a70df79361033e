//! Where a session runs: its directories and the environment it sees.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// The process environment as the session sees it: the inherited environment
/// with settings' `env` applied on top. Passed in, never read from the process
/// by the library, so tests stay hermetic.
#[derive(Debug, Clone, Default)]
pub struct Env(pub HashMap<String, String>);

impl Env {
    pub fn from_process() -> Env {
        Env(std::env::vars().collect())
    }

    /// The value of `key`, if set and not blank.
    pub fn get(&self, key: &str) -> Option<String> {
        self.0.get(key).filter(|v| !v.trim().is_empty()).cloned()
    }

    /// Applies settings' `env`: it wins over the inherited environment (as in
    /// Claude Code, where a settings `env` value beats a shell export).
    pub fn apply(&mut self, vars: &BTreeMap<String, String>) {
        self.0
            .extend(vars.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

/// The directories of a session and its environment.
#[derive(Debug, Clone)]
pub struct Place {
    pub cwd: PathBuf,
    /// tack's own config dir (`~/.tack`, or `TACK_CONFIG_DIR`): settings,
    /// trust, prompt history, and transcripts written before tack kept them
    /// where Claude Code does (still read, never written).
    pub config_dir: PathBuf,
    /// Claude Code's config dir (`CLAUDE_CONFIG_DIR`, else `~/.claude`): where
    /// new transcripts are written. Without `HOME` or `CLAUDE_CONFIG_DIR`,
    /// tack's config dir.
    pub claude_dir: PathBuf,
    /// Claude Code's global state file, whose `projects[dir].hasTrustDialogAccepted`
    /// is read and written beside tack's trust store: `$CLAUDE_CONFIG_DIR/.claude.json`,
    /// else `~/.claude.json` (not inside `~/.claude`).
    pub claude_json: Option<PathBuf>,
    pub home_dir: Option<PathBuf>,
    pub env: Env,
}

/// `HOME` and `TACK_CONFIG_DIR` are both unset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot find the config directory: set HOME or TACK_CONFIG_DIR")]
pub struct NoConfigDir;

impl Place {
    /// The place for `cwd` under `env`: the config dir is `TACK_CONFIG_DIR`, else
    /// `$HOME/.tack`; Claude Code's is `CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
    pub fn new(cwd: PathBuf, env: Env) -> Result<Place, NoConfigDir> {
        let home_dir = env.get("HOME").map(PathBuf::from);
        let config_dir = match (env.get("TACK_CONFIG_DIR"), &home_dir) {
            (Some(dir), _) => PathBuf::from(dir),
            (None, Some(home)) => home.join(".tack"),
            (None, None) => return Err(NoConfigDir),
        };
        let claude_config = env.get("CLAUDE_CONFIG_DIR").map(PathBuf::from);
        let claude_dir = match (&claude_config, &home_dir) {
            (Some(dir), _) => dir.clone(),
            (None, Some(home)) => home.join(".claude"),
            (None, None) => config_dir.clone(),
        };
        let claude_json = match (&claude_config, &home_dir) {
            (Some(dir), _) => Some(dir.join(".claude.json")),
            (None, Some(home)) => Some(home.join(".claude.json")),
            (None, None) => None,
        };
        Ok(Place {
            cwd,
            config_dir,
            claude_dir,
            claude_json,
            home_dir,
            env,
        })
    }
}

impl Place {
    /// The session transcripts: new ones in Claude Code's dir, and sessions
    /// tack wrote under its own config dir before still found by `--resume`,
    /// `--continue` and listings (Claude Code's dir first).
    pub fn session_store(&self) -> tack_store::SessionStore {
        tack_store::SessionStore::new(&self.claude_dir).also_reading(&self.config_dir)
    }

    /// The trust records: tack's store and Claude Code's `.claude.json`.
    pub fn trust_store(&self) -> crate::trust::TrustStore {
        crate::trust::TrustStore::new(&self.config_dir).also_claude_json(self.claude_json.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(vars: &[(&str, &str)]) -> Place {
        let env = Env(vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect());
        Place::new(PathBuf::from("/w"), env).unwrap()
    }

    #[test]
    fn claude_code_dirs_follow_claude_config_dir_else_home() {
        let p = place(&[("HOME", "/h")]);
        assert_eq!(
            (p.config_dir, p.claude_dir, p.claude_json),
            (
                PathBuf::from("/h/.tack"),
                PathBuf::from("/h/.claude"),
                Some(PathBuf::from("/h/.claude.json"))
            )
        );
        let p = place(&[
            ("HOME", "/h"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("TACK_CONFIG_DIR", "/t"),
        ]);
        assert_eq!(
            (p.config_dir, p.claude_dir, p.claude_json),
            (
                PathBuf::from("/t"),
                PathBuf::from("/c"),
                Some(PathBuf::from("/c/.claude.json"))
            )
        );
        let p = place(&[("TACK_CONFIG_DIR", "/t")]);
        assert_eq!(
            (p.config_dir, p.claude_dir, p.claude_json),
            (PathBuf::from("/t"), PathBuf::from("/t"), None)
        );
    }
}
