//! The session's language servers (`tack_tools::lsp`): those its plugins
//! declare (the `--plugin-dir`s and the enabled installed plugins; a
//! disabled plugin's run nothing), offered through the `LSP` tool, with the
//! file tools syncing their edits. `ENABLE_LSP_TOOL` set to a false value
//! (`0`, `false`, `no`, `off`) turns it all off; unset, it is on when a
//! server is configured, as in Claude Code since 2.0.74 (`docs/lsp.md`).
//! Nothing starts here: a server starts on its first use.

use std::path::Path;
use std::sync::Arc;

use tack_extensions::plugins::SessionPlugins;
use tack_tool::Tool;
use tack_tools::lsp::{LspServers, plugin_servers, with_lsp};

use crate::emit::Emitter;
use crate::event::Notice;
use crate::place::Env;

/// The switch.
const ENABLE_LSP_TOOL: &str = "ENABLE_LSP_TOOL";

fn switched_off(env: &Env) -> bool {
    env.get(ENABLE_LSP_TOOL).is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}

/// `tools` with the `LSP` tool and synced file tools when a plugin declares a
/// server; a server that cannot be read is a warning.
pub(crate) fn add_lsp(
    tools: Vec<Arc<dyn Tool>>,
    env: &Env,
    plugins: &SessionPlugins,
    project: &Path,
    emit: &Emitter,
) -> Vec<Arc<dyn Tool>> {
    if plugins.plugins.is_empty() || switched_off(env) {
        return tools;
    }
    let mut specs = Vec::new();
    for plugin in &plugins.plugins {
        let (found, warnings) = plugin_servers(
            &plugin.name,
            &plugin.root,
            plugin.manifest.lsp_servers.as_ref(),
        );
        specs.extend(found);
        for w in warnings {
            emit.notice(Notice::warning(w));
        }
    }
    match LspServers::new(specs, project.to_path_buf()) {
        Some(servers) => with_lsp(tools, &servers),
        None => tools,
    }
}
