//! Where settings come from: [`Scope`], [`Source`] and [`Locations`].

use std::fmt;
use std::path::{Path, PathBuf};

/// A settings level, lowest first (the derived order is the precedence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `~/.claude/settings.json`, `~/.tack/settings.json`.
    User,
    /// `<project>/.claude/settings.json`, `<project>/.tack/settings.json`.
    Project,
    /// `<project>/.claude/settings.local.json`, `<project>/.tack/settings.local.json`.
    Local,
    /// `--settings <file-or-json>`.
    Flag,
}

impl Scope {
    /// Claude Code's name for the level (`userSettings`, `projectSettings`,
    /// `localSettings`, `flagSettings`), as hooks and permission rules report it.
    pub fn name(self) -> &'static str {
        match self {
            Scope::User => "userSettings",
            Scope::Project => "projectSettings",
            Scope::Local => "localSettings",
            Scope::Flag => "flagSettings",
        }
    }
}

/// One settings file (or the inline JSON of `--settings`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Source {
    pub(crate) scope: Scope,
    /// The file; `--settings` for inline JSON.
    pub(crate) path: PathBuf,
    pub(crate) inline: bool,
    /// What relative paths in this file are relative to.
    pub(crate) root: PathBuf,
}

impl Source {
    /// A settings file of `scope`; relative paths in it resolve against `root`.
    pub fn file(scope: Scope, path: impl Into<PathBuf>, root: impl Into<PathBuf>) -> Source {
        Source {
            scope,
            path: path.into(),
            inline: false,
            root: root.into(),
        }
    }

    /// The inline JSON of `--settings`; relative paths resolve against `cwd`.
    pub fn inline(cwd: impl Into<PathBuf>) -> Source {
        Source {
            scope: Scope::Flag,
            path: PathBuf::from("--settings"),
            inline: true,
            root: cwd.into(),
        }
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The file, or `None` for inline `--settings` JSON.
    pub fn file_path(&self) -> Option<&Path> {
        (!self.inline).then_some(self.path.as_path())
    }

    /// The directory relative paths of this source resolve against: the
    /// project directory for project and local settings, the cwd otherwise.
    /// Permission rules written `/path` are relative to it.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// The file path, or `--settings` for inline JSON.
impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())
    }
}

/// The directories settings are read from, all passed in by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The session's working directory (`--settings <file>` and relative paths
    /// of user and `--settings` settings resolve against it).
    pub cwd: PathBuf,
    /// The project: see [`find_project_dir`].
    pub project_dir: PathBuf,
    /// Expands `~/` in `additionalDirectories`.
    pub home_dir: Option<PathBuf>,
    /// Claude Code's user directory: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub claude_user_dir: Option<PathBuf>,
    /// tack's user directory: `$TACK_CONFIG_DIR`, else `~/.tack`.
    pub tack_user_dir: Option<PathBuf>,
    /// The user has trusted the project (tack-runtime decides from its trust
    /// store). Until then project and local settings may restrict but not
    /// loosen or run anything: see [`crate::Settings::ignored_untrusted`].
    /// [`Locations::discover`] leaves it `true`; the caller sets it.
    pub workspace_trusted: bool,
    /// `--setting-sources`: only these levels' files are read (`--settings` is
    /// read whatever this says); `None`: every level.
    pub setting_sources: Option<Vec<Scope>>,
}

impl Locations {
    /// The standard locations for `cwd`, reading `HOME`, `CLAUDE_CONFIG_DIR` and
    /// `TACK_CONFIG_DIR` through `lookup` (empty values count as unset). Without
    /// `HOME` and the override, that user level is skipped.
    pub fn discover(cwd: &Path, lookup: impl Fn(&str) -> Option<String>) -> Locations {
        let get = |key: &str| {
            lookup(key)
                .filter(|v| !v.trim().is_empty())
                .map(PathBuf::from)
        };
        let home_dir = get("HOME");
        let user_dir =
            |var: &str, name: &str| get(var).or_else(|| home_dir.as_ref().map(|h| h.join(name)));
        Locations {
            cwd: cwd.to_path_buf(),
            project_dir: find_project_dir(cwd),
            claude_user_dir: user_dir("CLAUDE_CONFIG_DIR", ".claude"),
            tack_user_dir: user_dir("TACK_CONFIG_DIR", ".tack"),
            home_dir,
            workspace_trusted: true,
            setting_sources: None,
        }
    }

    /// Whether `--setting-sources` lets `scope`'s files in (every level
    /// without the flag). The same levels gate the commands and skills kept
    /// beside those files.
    pub fn reads(&self, scope: Scope) -> bool {
        self.setting_sources
            .as_ref()
            .is_none_or(|scopes| scopes.contains(&scope))
    }

    /// The settings files in precedence order, lowest first (whether or not
    /// they exist). A file reachable at two levels (tack started in `~`) is
    /// listed once, at the lower one.
    pub fn files(&self) -> Vec<Source> {
        let project = &self.project_dir;
        let mut files = Vec::new();
        for dir in [&self.claude_user_dir, &self.tack_user_dir]
            .into_iter()
            .flatten()
        {
            files.push(Source::file(
                Scope::User,
                dir.join("settings.json"),
                &self.cwd,
            ));
        }
        for (scope, name) in [
            (Scope::Project, "settings.json"),
            (Scope::Local, "settings.local.json"),
        ] {
            for dir in [".claude", ".tack"] {
                files.push(Source::file(scope, project.join(dir).join(name), project));
            }
        }
        files.retain(|s| self.reads(s.scope()));
        let mut seen: Vec<PathBuf> = Vec::new();
        files.retain(|s| {
            // Only an existing file can be another's alias; `canonicalize`
            // costs a `readlink` per path component, and most of these
            // files do not exist.
            let key = match s.path.try_exists() {
                Ok(true) => s.path.canonicalize().unwrap_or_else(|_| s.path.clone()),
                _ => s.path.clone(),
            };
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
        files
    }
}

/// The project directory settings are read from: the nearest ancestor of `cwd`
/// (itself included) containing `.git` (a directory, or a file in a worktree),
/// else `cwd` itself. So `tack` started in a subdirectory of a repository uses
/// the repository's `.claude/` and `.tack/`.
pub fn find_project_dir(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}
