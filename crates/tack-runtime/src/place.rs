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
    /// tack's config dir (`~/.tack`, or `TACK_CONFIG_DIR`): transcripts, trust.
    pub config_dir: PathBuf,
    pub home_dir: Option<PathBuf>,
    pub env: Env,
}

/// `HOME` and `TACK_CONFIG_DIR` are both unset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot find the config directory: set HOME or TACK_CONFIG_DIR")]
pub struct NoConfigDir;

impl Place {
    /// The place for `cwd` under `env`: the config dir is `TACK_CONFIG_DIR`, else
    /// `$HOME/.tack`.
    pub fn new(cwd: PathBuf, env: Env) -> Result<Place, NoConfigDir> {
        let home_dir = env.get("HOME").map(PathBuf::from);
        let config_dir = match (env.get("TACK_CONFIG_DIR"), &home_dir) {
            (Some(dir), _) => PathBuf::from(dir),
            (None, Some(home)) => home.join(".tack"),
            (None, None) => return Err(NoConfigDir),
        };
        Ok(Place {
            cwd,
            config_dir,
            home_dir,
            env,
        })
    }
}
