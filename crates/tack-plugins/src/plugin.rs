//! One plugin on disk: its name, root, manifest and where it came from, and
//! the paths of its components (the default folders, then the manifest's
//! extra paths, each kept inside the plugin's root).

use std::path::{Component, Path, PathBuf};

use crate::error::PluginError;
use crate::manifest::{HooksField, McpField, PluginManifest, parse_manifest};

/// Where the manifest lives under a plugin's root.
pub const MANIFEST_PATH: &str = ".claude-plugin/plugin.json";

/// A manifest larger than this is not a manifest.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// How the session came to have a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginSource {
    /// `--plugin-dir` (this session only).
    Dir,
    /// Installed from a marketplace and enabled in settings.
    Installed { marketplace: String },
}

/// A plugin ready to be loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Plugin {
    /// What its components are namespaced with (`name:command`).
    pub name: String,
    pub root: PathBuf,
    /// Defaults when the plugin has no manifest.
    pub manifest: PluginManifest,
    pub source: PluginSource,
    /// The default places not read because a `strict: false` marketplace
    /// entry lists that kind itself (`skills/` when the entry has `skills`):
    /// such an entry is the plugin's whole definition, as in Claude Code.
    pub replaced_defaults: Vec<DefaultPlace>,
}

/// A component kind's default place in a plugin's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultPlace {
    Commands,
    Agents,
    Skills,
    OutputStyles,
    /// `hooks/hooks.json`.
    Hooks,
    /// `.mcp.json`.
    McpServers,
}

impl DefaultPlace {
    /// The folder or file, relative to the plugin's root.
    pub fn path(self) -> &'static str {
        match self {
            DefaultPlace::Commands => "commands",
            DefaultPlace::Agents => "agents",
            DefaultPlace::Skills => "skills",
            DefaultPlace::OutputStyles => "output-styles",
            DefaultPlace::Hooks => "hooks/hooks.json",
            DefaultPlace::McpServers => ".mcp.json",
        }
    }
}

impl Plugin {
    /// Reads the plugin at `root`. Without a manifest the name is the
    /// folder's, as Claude Code does for `--plugin-dir`.
    pub fn load(root: &Path, source: PluginSource) -> Result<Plugin, PluginError> {
        Plugin::load_named(root, source, None)
    }

    /// [`Plugin::load`], named `name` when it has no manifest (an installed
    /// plugin's folder is its version, its name the marketplace entry's).
    pub fn load_or_named(
        root: &Path,
        name: &str,
        source: PluginSource,
    ) -> Result<Plugin, PluginError> {
        Plugin::load_named(root, source, Some(name))
    }

    fn load_named(
        root: &Path,
        source: PluginSource,
        default_name: Option<&str>,
    ) -> Result<Plugin, PluginError> {
        let path = root.join(MANIFEST_PATH);
        let manifest = match tack_sys::read_config_file(&path, MAX_MANIFEST_BYTES) {
            Ok(text) => parse_manifest(&text).map_err(|message| PluginError::Manifest {
                path: path.clone(),
                message,
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => PluginManifest::default(),
            Err(source) => return Err(PluginError::Read { path, source }),
        };
        let name = match manifest.name.as_str() {
            "" if default_name.is_some() => default_name.unwrap_or_default().to_owned(),
            "" => root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            name => name.to_owned(),
        };
        if !valid_plugin_name(&name) {
            return Err(PluginError::Manifest {
                path,
                message: format!(
                    "plugin name `{name}`: use letters, digits, `-`, `_` and `.`, not starting with `.`"
                ),
            });
        }
        Ok(Plugin {
            name,
            root: root.to_path_buf(),
            manifest,
            source,
            replaced_defaults: Vec::new(),
        })
    }

    /// `name@marketplace`, as Claude Code keys installed plugins
    /// (`name@inline` for a `--plugin-dir` one).
    pub fn id(&self) -> String {
        match &self.source {
            PluginSource::Installed { marketplace } => format!("{}@{marketplace}", self.name),
            PluginSource::Dir => format!("{}@inline", self.name),
        }
    }

    /// `${CLAUDE_PLUGIN_DATA}`: the plugin's own folder for state that
    /// outlives updates, under the config dir's `plugins/data/`.
    pub fn data_dir(&self, claude_config_dir: &Path) -> PathBuf {
        let id: String = self
            .id()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        claude_config_dir.join("plugins").join("data").join(id)
    }

    /// Command files and folders: `commands/`, then the manifest's.
    pub fn command_paths(&self) -> Result<Vec<PathBuf>, PluginError> {
        self.paths(DefaultPlace::Commands, &self.manifest.commands)
    }

    /// Agent files and folders: `agents/`, then the manifest's.
    pub fn agent_paths(&self) -> Result<Vec<PathBuf>, PluginError> {
        self.paths(DefaultPlace::Agents, &self.manifest.agents)
    }

    /// Skill folders: `skills/`, then the manifest's.
    pub fn skill_paths(&self) -> Result<Vec<PathBuf>, PluginError> {
        self.paths(DefaultPlace::Skills, &self.manifest.skills)
    }

    /// Output style files and folders: `output-styles/`, then the manifest's.
    pub fn output_style_paths(&self) -> Result<Vec<PathBuf>, PluginError> {
        self.paths(DefaultPlace::OutputStyles, &self.manifest.output_styles)
    }

    /// Hook configurations: `hooks/hooks.json` when it exists, then the
    /// manifest's files and inline objects.
    pub fn hooks(&self) -> Result<Vec<HooksField>, PluginError> {
        let mut out = Vec::new();
        if self
            .default_path(DefaultPlace::Hooks)
            .is_some_and(|p| p.is_file())
        {
            out.push(HooksField::Path("./hooks/hooks.json".to_owned()));
        }
        for field in &self.manifest.hooks {
            if let HooksField::Path(p) = field {
                self.resolve(p)?;
            }
            if !out.contains(field) {
                out.push(field.clone());
            }
        }
        Ok(out)
    }

    /// MCP server configurations: `.mcp.json` when it exists, then the
    /// manifest's files and inline objects.
    pub fn mcp_servers(&self) -> Result<Vec<McpField>, PluginError> {
        let mut out = Vec::new();
        if self
            .default_path(DefaultPlace::McpServers)
            .is_some_and(|p| p.is_file())
        {
            out.push(McpField::Path("./.mcp.json".to_owned()));
        }
        for field in &self.manifest.mcp_servers {
            if let McpField::Path(p) = field {
                self.resolve(p)?;
            }
            if !out.contains(field) {
                out.push(field.clone());
            }
        }
        Ok(out)
    }

    /// A manifest path (`./…`) under the root; one that climbs out of it
    /// (`..`, an absolute path) is an error naming the manifest.
    pub fn resolve(&self, relative: &str) -> Result<PathBuf, PluginError> {
        let bad = |message: String| PluginError::ComponentPath {
            path: self.root.join(MANIFEST_PATH),
            message,
        };
        let path = Path::new(relative);
        if !relative.starts_with("./") {
            return Err(bad(format!(
                "`{relative}`: component paths start with `./`"
            )));
        }
        if path
            .components()
            .any(|c| !matches!(c, Component::CurDir | Component::Normal(_)))
        {
            return Err(bad(format!("`{relative}` leaves the plugin's folder")));
        }
        Ok(self.root.join(&relative[2..]))
    }

    /// `place`'s path when it is read: no entry replaced it.
    fn default_path(&self, place: DefaultPlace) -> Option<PathBuf> {
        (!self.replaced_defaults.contains(&place)).then(|| self.root.join(place.path()))
    }

    /// The default folder when it exists (and is not replaced), then each
    /// manifest path (which must exist: a missing one is an error, as
    /// `claude plugin validate` reports it).
    fn paths(&self, default: DefaultPlace, extra: &[String]) -> Result<Vec<PathBuf>, PluginError> {
        let mut out = Vec::new();
        if let Some(dir) = self.default_path(default).filter(|d| d.is_dir()) {
            out.push(dir);
        }
        for relative in extra {
            let path = self.resolve(relative)?;
            if !path.exists() {
                return Err(PluginError::ComponentPath {
                    path: self.root.join(MANIFEST_PATH),
                    message: format!("`{relative}` does not exist"),
                });
            }
            if !out.contains(&path) {
                out.push(path);
            }
        }
        Ok(out)
    }
}

/// A plugin name usable as a namespace (`name:command`) and a folder name.
pub fn valid_plugin_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
