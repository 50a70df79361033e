//! What every `tack plugin` operation is given: where things are, the
//! settings layers, whether the project is trusted, and how to fetch a URL
//! (the front end owns the HTTP client).

use std::path::PathBuf;
use std::time::Duration;

use crate::layers::SettingsLayer;
use crate::store::PluginsDir;

/// Fetches a URL's body (bounded by the caller), or says why not.
pub type Fetch<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, String>;

pub struct Context<'a> {
    /// Claude Code's config dir (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub claude_dir: PathBuf,
    /// The project whose `.claude/` the project and local scopes write.
    pub project_dir: PathBuf,
    /// Relative marketplace paths resolve from here.
    pub cwd: PathBuf,
    pub layers: Vec<SettingsLayer>,
    pub project_trusted: bool,
    pub fetch: Fetch<'a>,
    pub git_timeout: Duration,
}

impl Context<'_> {
    pub fn plugins_dir(&self) -> PluginsDir {
        PluginsDir::new(&self.claude_dir)
    }
}
