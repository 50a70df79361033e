//! `--agent <name>` (or the `agent` setting; the flag wins): the main session
//! runs as one of the session's agent definitions, as Claude Code's does.
//! Its body replaces the default system prompt (as `--system-prompt` would;
//! CLAUDE.md still loads), its `model` applies unless `--model` is given, its
//! `permissionMode` unless a mode was asked for, its `disallowedTools` are
//! removed (deny rules, so `Edit` takes MultiEdit with it) and its `tools`
//! are the only ones offered (`session_tools`).

use std::path::Path;

use tack_extensions::agents::{
    AgentDefinition, AgentDirs, AgentModel, AgentSource, AgentTools, Catalog, load_catalog,
};
use tack_extensions::plugins::SessionPlugins;
use tack_permissions::PermissionMode;

use crate::config::LoadedSettings;
use crate::emit::Emitter;
use crate::event::Notice;
use crate::options::SessionOptions;

/// The definitions of a session, loaded once at start, and the one the main
/// session runs as.
pub(crate) struct SessionAgents {
    pub catalog: Catalog,
    /// One line per definition skipped (emitted with the Agent tool's start).
    pub warnings: Vec<String>,
    pub main: Option<AgentDefinition>,
}

/// An `--agent` name that is none of the session's agents.
#[derive(Debug, thiserror::Error)]
#[error("--agent: no agent named `{name}`; the agents are: {}", .available.join(", "))]
pub struct UnknownAgent {
    pub name: String,
    pub available: Vec<String>,
}

/// The session's agent definitions and `options` with the session run as
/// the one `--agent` or the `agent` setting names, if any.
pub(crate) fn apply(
    options: &mut SessionOptions,
    (loaded, resumed): (&LoadedSettings, Option<&str>),
    plugins: &SessionPlugins,
    dirs: (Option<&Path>, &Path),
    emit: &Emitter,
) -> Result<SessionAgents, UnknownAgent> {
    let setting = loaded.settings.unknown_keys().get("agent");
    let setting = match resumed {
        Some(name) => Some(Named::Resumed(name)),
        None => setting.and_then(|a| a.as_str()).map(Named::Setting),
    };
    let agents = session_agents(options, plugins, dirs, setting, emit)?;
    if let Some(def) = &agents.main {
        run_as(def, options, loaded.trust.trusted, emit);
    }
    Ok(agents)
}

/// The session's agent definitions (built-ins, plugins', the user's and the
/// project's files, `--agents`) and the main session's among them.
fn session_agents(
    options: &SessionOptions,
    plugins: &SessionPlugins,
    (home, project): (Option<&Path>, &Path),
    setting: Option<Named<'_>>,
    emit: &Emitter,
) -> Result<SessionAgents, UnknownAgent> {
    let dirs = AgentDirs {
        home: home.map(Path::to_path_buf),
        project: project.to_path_buf(),
        plugins: plugins.agents.to_vec(),
    };
    let (catalog, warnings) = load_catalog(&dirs, options.extensions.agents.as_deref());
    let main = main_agent(&catalog, options.extensions.agent.as_deref(), setting, emit)?;
    Ok(SessionAgents {
        catalog,
        warnings,
        main,
    })
}

/// The definition `name` is: its own name, or a plugin's agent by its bare
/// name when one plugin alone has it (`my-plugin:reviewer` as `reviewer`).
fn find<'a>(catalog: &'a Catalog, name: &str) -> Option<&'a AgentDefinition> {
    if let Some(def) = catalog.get(name) {
        return Some(def);
    }
    let suffix = format!(":{name}");
    let mut scoped = catalog.iter().filter(|d| d.name.ends_with(&suffix));
    match (scoped.next(), scoped.next()) {
        (Some(def), None) => Some(def),
        _ => None,
    }
}

/// Where an agent's name came from, other than `--agent`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Named<'a> {
    /// The resumed session's `agent-setting` record.
    Resumed(&'a str),
    /// The `agent` setting.
    Setting(&'a str),
}

/// The agent the main session runs as: `--agent`'s (unknown: an error
/// listing the agents there are), else the one the resumed session ran as,
/// else the `agent` setting's (unknown: a warning, and the session runs as
/// itself).
pub(crate) fn main_agent(
    catalog: &Catalog,
    flag: Option<&str>,
    setting: Option<Named<'_>>,
    emit: &Emitter,
) -> Result<Option<AgentDefinition>, UnknownAgent> {
    if let Some(name) = flag {
        return match find(catalog, name) {
            Some(def) => Ok(Some(def.clone())),
            None => Err(UnknownAgent {
                name: name.to_owned(),
                available: catalog.names(),
            }),
        };
    }
    let (name, source) = match setting {
        Some(Named::Resumed(name)) => (name, "the resumed session ran as"),
        Some(Named::Setting(name)) => (name, "the `agent` setting names"),
        None => return Ok(None),
    };
    if name.trim().is_empty() {
        return Ok(None);
    }
    let def = find(catalog, name).cloned();
    if def.is_none() {
        emit.notice(Notice::warning(format!(
            "warning: {source} `{name}`, which is none of the agents ({}); the session runs without one",
            catalog.names().join(", ")
        )));
    }
    Ok(def)
}

/// `options` with the session run as `def`; `trusted`: the project is, so a
/// project agent's `permissionMode` may apply.
pub(crate) fn run_as(
    def: &AgentDefinition,
    options: &mut SessionOptions,
    trusted: bool,
    emit: &Emitter,
) {
    options.extensions.agent = Some(def.name.clone());
    let request = &mut options.request;
    request
        .system_prompt
        .get_or_insert_with(|| def.prompt.clone());
    if request.model.is_none() {
        request.model = match &def.model {
            AgentModel::Inherit => None,
            AgentModel::SmallFast => Some("haiku".to_owned()),
            AgentModel::Named(m) => Some(m.clone()),
        };
    }
    let deny = &mut options.permissions.disallowed_tools;
    deny.extend(def.disallowed_tools.iter().cloned());
    // Tools the list does not name are not offered: the built-ins are left
    // out where the tools are made, the MCP servers' here when it names none.
    if let AgentTools::Only(list) = &def.tools
        && !list.iter().any(|n| n.starts_with("mcp__"))
    {
        deny.push("mcp__*".to_owned());
    }
    if options.permissions.mode.is_none() {
        options.permissions.mode = agent_mode(def, trusted, options.permissions.allow_bypass, emit);
    }
}

/// The mode `def` names, where it may: not a plugin's agent (Claude Code
/// ignores theirs), not an untrusted project's, and `bypassPermissions` only
/// where the session may be switched to it.
fn agent_mode(
    def: &AgentDefinition,
    trusted: bool,
    allow_bypass: bool,
    emit: &Emitter,
) -> Option<PermissionMode> {
    let named = def.permission_mode.as_deref()?;
    let refuse = |why: &str| {
        emit.notice(Notice::warning(format!(
            "warning: agent `{}`: permissionMode `{named}` {why}; starting in the usual mode",
            def.name
        )));
        None
    };
    let mode: PermissionMode = match named.parse() {
        Ok(m) => m,
        Err(_) => return refuse("is not a permission mode"),
    };
    match &def.source {
        AgentSource::Plugin(_) => None,
        AgentSource::Project(_) if !trusted => refuse("is not applied in an untrusted project"),
        _ if mode == PermissionMode::BypassPermissions && !allow_bypass => {
            refuse("needs --allow-dangerously-skip-permissions")
        }
        _ => Some(mode),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn def(name: &str, source: AgentSource) -> AgentDefinition {
        AgentDefinition {
            name: name.into(),
            description: "d".into(),
            prompt: "You review.".into(),
            tools: AgentTools::Only(vec!["Read".into(), "Grep".into()]),
            disallowed_tools: vec!["Bash".into()],
            model: AgentModel::Named("opus".into()),
            color: None,
            source,
            read_only: false,
            worktree: false,
            permission_mode: Some("plan".into()),
        }
    }

    fn warnings(rx: &mut tokio::sync::mpsc::UnboundedReceiver<crate::RuntimeEvent>) -> Vec<String> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .filter_map(|e| match e {
                crate::RuntimeEvent::Notice(n) => Some(n.text),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_plugins_agent_by_its_bare_name_unless_two_plugins_have_it() {
        let mut catalog = Catalog::default();
        let plugin = || AgentSource::Plugin(PathBuf::from("/p"));
        catalog.add(def("one:reviewer", plugin()));
        catalog.add(def("one:tester", plugin()));
        catalog.add(def("two:tester", plugin()));
        assert_eq!(find(&catalog, "reviewer").unwrap().name, "one:reviewer");
        assert!(find(&catalog, "tester").is_none());
        assert_eq!(find(&catalog, "two:tester").unwrap().name, "two:tester");
    }

    #[test]
    fn an_unknown_flag_is_an_error_an_unknown_setting_a_warning() {
        let (emit, mut rx) = Emitter::for_tests();
        let mut catalog = Catalog::default();
        catalog.add(def("reviewer", AgentSource::Flag));
        let err = main_agent(&catalog, Some("nope"), None, &emit).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--agent: no agent named `nope`; the agents are: reviewer"
        );
        assert_eq!(
            main_agent(&catalog, None, Some(Named::Setting("nope")), &emit).unwrap(),
            None
        );
        assert_eq!(
            warnings(&mut rx),
            [
                "warning: the `agent` setting names `nope`, which is none of the agents (reviewer); the session runs without one"
            ]
        );
        // The flag wins over the setting.
        let got = main_agent(
            &catalog,
            Some("reviewer"),
            Some(Named::Setting("nope")),
            &emit,
        )
        .unwrap();
        assert_eq!(got.unwrap().name, "reviewer");
    }

    #[test]
    fn the_flags_choices_beat_the_agents() {
        let (emit, _rx) = Emitter::for_tests();
        let mut options = SessionOptions::default();
        options.request.model = Some("sonnet".into());
        options.permissions.mode = Some(PermissionMode::AcceptEdits);
        options.permissions.disallowed_tools = vec!["Write".into()];
        run_as(
            &def("reviewer", AgentSource::Flag),
            &mut options,
            true,
            &emit,
        );
        assert_eq!(options.extensions.agent.as_deref(), Some("reviewer"));
        assert_eq!(
            options.request.system_prompt.as_deref(),
            Some("You review.")
        );
        assert_eq!(options.request.model.as_deref(), Some("sonnet"));
        assert_eq!(options.permissions.mode, Some(PermissionMode::AcceptEdits));
        assert_eq!(
            options.permissions.disallowed_tools,
            ["Write", "Bash", "mcp__*"]
        );
    }

    #[test]
    fn the_agents_mode_only_where_it_may_apply() {
        let (emit, mut rx) = Emitter::for_tests();
        let project = AgentSource::Project(PathBuf::from("/p/.claude/agents/r.md"));
        let mut d = def("r", project.clone());
        assert_eq!(
            agent_mode(&d, true, false, &emit),
            Some(PermissionMode::Plan)
        );
        assert_eq!(agent_mode(&d, false, false, &emit), None);
        d.permission_mode = Some("bypassPermissions".into());
        assert_eq!(agent_mode(&d, true, false, &emit), None);
        assert_eq!(
            agent_mode(&d, true, true, &emit),
            Some(PermissionMode::BypassPermissions)
        );
        d.permission_mode = Some("yolo".into());
        assert_eq!(agent_mode(&d, true, true, &emit), None);
        let plugin = def("p:r", AgentSource::Plugin(PathBuf::from("/p")));
        assert_eq!(agent_mode(&plugin, true, true, &emit), None);
        assert_eq!(
            warnings(&mut rx),
            [
                "warning: agent `r`: permissionMode `plan` is not applied in an untrusted project; starting in the usual mode",
                "warning: agent `r`: permissionMode `bypassPermissions` needs --allow-dangerously-skip-permissions; starting in the usual mode",
                "warning: agent `r`: permissionMode `yolo` is not a permission mode; starting in the usual mode",
            ]
        );
    }
}
