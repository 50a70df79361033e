//! What a confined command may touch: the one value the tack process hands to
//! the namespace's init (as JSON, the argument after [`INIT_ARG`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The hidden first argument that makes the `tack` binary the namespace's
/// init instead of the CLI (dispatched at the top of `main`).
pub const INIT_ARG: &str = "__tack_sandbox_init";

/// Set on the tack process (tests do it on the spawned binary), read only by
/// the init: the sandbox then reports itself unavailable, as on a kernel
/// without user namespaces.
pub const FORCE_UNAVAILABLE_ENV: &str = "TACK_SANDBOX_FORCE_UNAVAILABLE";

/// The filesystem and network rules of one confined command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Policy {
    /// Writable trees (the project, added directories, the session's temp
    /// dir, `allowWrite`). Everything else is read-only.
    pub writable: Vec<PathBuf>,
    /// Read-only even inside a writable tree (`denyWrite`): bound
    /// read-only over themselves in the mount namespace. Paths that do not
    /// exist are skipped.
    pub read_only: Vec<PathBuf>,
    /// Like `read_only`, but a path that does not exist is covered by its
    /// nearest existing folder inside a writable tree (`.git/hooks`,
    /// `.git/config`, `.claude` settings, `.mcp.json`, shell rc files: code
    /// outside the sandbox reads or runs them later, so they must not be
    /// created either).
    pub protected: Vec<PathBuf>,
    /// Unreadable (`denyRead`): an empty directory or `/dev/null` is mounted
    /// over each.
    pub deny_read: Vec<PathBuf>,
    /// `sandbox.network.allowAllUnixSockets` (or a non-empty
    /// `allowUnixSockets`): creating AF_UNIX sockets is not blocked.
    pub allow_unix_sockets: bool,
    /// `sandbox.network.allowLocalBinding`. On Linux binding is never
    /// refused (the command's network namespace is its own, so what it
    /// serves is reachable only from inside); kept for macOS's profile.
    pub allow_local_binding: bool,
    /// Loopback ports inside the namespace forwarded to the proxy's Unix
    /// sockets outside: the only way out of the network namespace.
    pub bridges: Vec<Bridge>,
    /// The project and the added directories: walked before and after each
    /// command for what git and tack would run (`crate::planted`); their
    /// git dirs are bound read-only by their real paths.
    pub scan_roots: Vec<PathBuf>,
    /// Files outside the projects that code outside the sandbox reads or
    /// runs (tack's config dirs, git's global config, `~/.ssh`), inside a
    /// writable tree: bound read-only when they exist (they are in
    /// `read_only` too), moved aside when the command creates them.
    pub watched: Vec<PathBuf>,
}

/// `127.0.0.1:port` inside the namespace → the Unix socket at `socket`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bridge {
    pub port: u16,
    pub socket: PathBuf,
}

/// Files under a writable project that a confined command must not change,
/// since code outside the sandbox reads or runs them later.
pub const PROTECTED_IN_PROJECT: &[&str] = &[
    ".git/hooks",
    ".git/config",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/commands",
    ".claude/agents",
    ".claude/hooks",
    ".mcp.json",
    ".vscode",
    ".idea",
];

/// Files in the home folder that code outside the sandbox reads or runs
/// (shell rc files, git's global config, ssh's config and keys), protected
/// the same way when they are inside a writable tree.
pub const HOME_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".gitconfig",
    ".config/git",
    ".ssh",
];

impl Policy {
    /// The protected paths of each writable root that is a project, added to
    /// [`Policy::protected`]; the home folder's [`HOME_FILES`] and
    /// `user_files` (tack's config dirs and trust store,
    /// `$XDG_CONFIG_HOME/git`) to [`Policy::watched`] when a writable tree
    /// holds them (outside every one, Landlock keeps them).
    pub fn protect_roots(
        &mut self,
        roots: &[PathBuf],
        home: Option<&std::path::Path>,
        user_files: &[PathBuf],
    ) {
        for root in roots {
            for rel in PROTECTED_IN_PROJECT {
                self.protected.push(root.join(rel));
            }
        }
        let home_files = home
            .into_iter()
            .flat_map(|home| HOME_FILES.iter().map(move |f| home.join(f)));
        let outside: Vec<PathBuf> = home_files
            .chain(user_files.iter().cloned())
            .filter(|p| self.writable.iter().any(|w| p.starts_with(w)))
            .collect();
        self.read_only.extend(outside.iter().cloned());
        self.watched.extend(outside);
        self.scan_roots = roots.to_vec();
    }
}
