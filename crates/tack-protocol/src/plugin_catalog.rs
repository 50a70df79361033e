//! What a front end shows of plugins: those the added marketplaces offer
//! (installed or not) and one plugin's components with the tokens each adds
//! to every prompt. Filled by the CLI from tack-plugins and tack-runtime;
//! shown by `tack plugin list --available`, `details` and the terminal UI's
//! `/plugin`.

use serde::{Deserialize, Serialize};

/// A plugin a marketplace offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogPlugin {
    pub name: String,
    pub marketplace: String,
    pub description: Option<String>,
    pub version: Option<String>,
    /// Installed where this project can use it.
    pub installed: bool,
    /// Enabled in the merged settings.
    pub enabled: bool,
}

impl CatalogPlugin {
    /// `name@marketplace`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.marketplace)
    }
}

/// A kind of plugin component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComponentKind {
    Skill,
    Command,
    Agent,
    OutputStyle,
    Hook,
    McpServer,
    LspServer,
}

impl ComponentKind {
    /// The heading a list of them has.
    pub fn heading(self) -> &'static str {
        match self {
            ComponentKind::Skill => "Skills",
            ComponentKind::Command => "Commands",
            ComponentKind::Agent => "Agents",
            ComponentKind::OutputStyle => "Output styles",
            ComponentKind::Hook => "Hooks",
            ComponentKind::McpServer => "MCP servers",
            ComponentKind::LspServer => "LSP servers",
        }
    }
}

/// One component of a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginComponent {
    pub kind: ComponentKind,
    /// As the session names it (`plugin:skill`; a hook by its event).
    pub name: String,
    /// Estimated tokens it adds to every prompt (a skill's reminder line, an
    /// agent's line in the Agent tool); 0 for what is read only when used.
    pub tokens: u64,
}

/// Estimated tokens `components` add to every prompt, together.
pub fn total_tokens(components: &[PluginComponent]) -> u64 {
    components.iter().map(|c| c.tokens).sum()
}
