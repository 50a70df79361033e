//! One plugin's components by name, read with the loaders a session uses,
//! and the tokens each adds to every prompt: a skill's line in the skills
//! reminder, an agent's line in the Agent tool's description (estimated as
//! tack estimates a request, `tack_api::tokens`). Commands, hooks, MCP and
//! LSP servers are listed with 0: their text is read only when used (an MCP
//! server's tools are known once it runs). Nothing is run.

use std::path::Path;

use tack_extensions::agents::{AgentDirs, AgentSource, load_catalog};
use tack_extensions::custom_commands::{CommandDirs, CommandScope, load_commands};
use tack_extensions::plugins::session_plugins;
use tack_extensions::skills::{SkillDirs, load_skills};
use tack_plugins::Plugin;
use tack_protocol::ContentBlock;
use tack_protocol::plugin_catalog::{ComponentKind, PluginComponent};

/// `plugin`'s components, by kind then name, and a warning per part that
/// could not be read.
pub fn plugin_components(plugin: &Plugin) -> (Vec<PluginComponent>, Vec<String>) {
    // An empty folder: no project or user file is read beside the plugin's.
    let nowhere = Path::new("/nonexistent-tack-plugin-details");
    let loaded = session_plugins(&[], vec![plugin.clone()], nowhere, None);
    let mut warnings: Vec<String> = loaded.failures.iter().map(|f| f.message.clone()).collect();
    let mut out = Vec::new();
    let (skills, more) = load_skills(&SkillDirs {
        project: nowhere.to_path_buf(),
        cwd: nowhere.to_path_buf(),
        user: Vec::new(),
        project_source: false,
        trusted: false,
        plugins: loaded.skills.clone(),
    });
    warnings.extend(more);
    for s in skills.iter() {
        let line = format!("- {}: {}\n", s.name, s.description);
        let tokens = if s.model_invocable {
            text_tokens(&line)
        } else {
            0
        };
        out.push(component(ComponentKind::Skill, &s.name, tokens));
    }
    let (commands, more) = load_commands(&CommandDirs {
        project: None,
        home: None,
        config_dir: nowhere.to_path_buf(),
        trusted: false,
        plugins: loaded.commands.clone(),
    });
    warnings.extend(more);
    for c in commands.iter().filter(|c| c.scope == CommandScope::Plugin) {
        out.push(component(ComponentKind::Command, &c.name, 0));
    }
    let (agents, more) = load_catalog(
        &AgentDirs {
            home: None,
            project: nowhere.to_path_buf(),
            plugins: loaded.agents.clone(),
        },
        None,
    );
    warnings.extend(more);
    for a in agents
        .iter()
        .filter(|a| matches!(a.source, AgentSource::Plugin(_)))
    {
        let line = format!("- {}: {}\n", a.name, a.description);
        out.push(component(ComponentKind::Agent, &a.name, text_tokens(&line)));
    }
    for p in loaded.output_style_paths() {
        for path in &p.paths {
            for name in markdown_names(path) {
                let name = format!("{}:{name}", p.plugin);
                out.push(component(ComponentKind::OutputStyle, &name, 0));
            }
        }
    }
    for h in &loaded.hooks {
        for event in h.hooks.as_object().into_iter().flat_map(|o| o.keys()) {
            out.push(component(ComponentKind::Hook, event, 0));
        }
    }
    for s in &loaded.mcp_servers {
        out.push(component(ComponentKind::McpServer, &s.name, 0));
    }
    for name in lsp_servers(&plugin.root) {
        out.push(component(ComponentKind::LspServer, &name, 0));
    }
    out.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    out.dedup();
    (out, warnings)
}

fn component(kind: ComponentKind, name: &str, tokens: u64) -> PluginComponent {
    PluginComponent {
        kind,
        name: name.to_owned(),
        tokens,
    }
}

/// Tokens of `text` as a request's text block counts them.
fn text_tokens(text: &str) -> u64 {
    tack_api::estimate_block(&ContentBlock::text(text))
}

/// The `.md` files' stems of a folder, or the file's own stem.
fn markdown_names(path: &Path) -> Vec<String> {
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    match std::fs::read_dir(path) {
        Ok(dir) => {
            let mut names: Vec<String> = dir
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .filter_map(|p| stem(&p))
                .collect();
            names.sort();
            names
        }
        Err(_) => stem(path).into_iter().collect(),
    }
}

/// The servers of the plugin's `.lsp.json` (Claude Code runs them; tack
/// lists them and does not).
fn lsp_servers(root: &Path) -> Vec<String> {
    let Ok(text) = tack_sys::read_config_file(&root.join(".lsp.json"), tack_sys::MAX_CONFIG_BYTES)
    else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str(&text) else {
        return Vec::new();
    };
    map.keys().cloned().collect()
}
