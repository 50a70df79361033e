//! Claude Code plugins: a directory with an optional `.claude-plugin/plugin.json`
//! and components in their default folders (`commands/`, `agents/`,
//! `skills/`, `hooks/hooks.json`, `.mcp.json`, `output-styles/`) or where
//! the manifest puts them.
//!
//! This crate reads plugins; it runs nothing. The runtime loads each
//! component kind with the loader it uses for the user's own (commands,
//! agents, skills, hooks, MCP servers), names them `plugin:name`, and applies
//! the same trust and permission rules.

mod error;
mod manifest;
mod plugin;

pub use error::PluginError;
pub use manifest::{Author, HooksField, McpField, PluginManifest, parse_manifest};
pub use plugin::{MANIFEST_PATH, Plugin, PluginSource, valid_plugin_name};
