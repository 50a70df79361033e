//! The built-in agent types, as Claude Code 2.1.328 offers them
//! (`general-purpose`, `Explore`, `Plan`), and a project's own agent of the
//! same name replacing one.

use std::path::Path;

use pretty_assertions::assert_eq;
use tack_extensions::agents::{
    AgentDefinition, AgentDirs, AgentModel, AgentSource, AgentTools, built_in, load_catalog,
};

fn dirs(project: &Path) -> AgentDirs {
    AgentDirs {
        home: None,
        project: project.to_path_buf(),
        plugins: vec![],
    }
}

/// What sets an agent apart, without its prose.
fn shape(def: &AgentDefinition) -> (String, AgentTools, AgentModel, bool, AgentSource) {
    (
        def.name.clone(),
        def.tools.clone(),
        def.model.clone(),
        def.read_only,
        def.source.clone(),
    )
}

#[test]
fn explore_and_plan_are_read_only_beside_general_purpose() {
    let read_only = AgentTools::Only(
        [
            "Read",
            "Glob",
            "Grep",
            "LS",
            "Bash",
            "WebFetch",
            "WebSearch",
        ]
        .map(String::from)
        .to_vec(),
    );
    assert_eq!(
        built_in().iter().map(shape).collect::<Vec<_>>(),
        vec![
            (
                "general-purpose".into(),
                AgentTools::All,
                AgentModel::Inherit,
                false,
                AgentSource::BuiltIn
            ),
            (
                "Explore".into(),
                read_only.clone(),
                AgentModel::SmallFast,
                true,
                AgentSource::BuiltIn
            ),
            (
                "Plan".into(),
                read_only,
                AgentModel::Inherit,
                true,
                AgentSource::BuiltIn
            ),
        ]
    );
    for def in built_in() {
        for tool in ["Edit", "Write", "MultiEdit", "NotebookEdit", "Agent"] {
            let AgentTools::Only(tools) = &def.tools else {
                continue;
            };
            assert!(!tools.iter().any(|t| t == tool), "{} has {tool}", def.name);
        }
    }
    let project = tempfile::tempdir().unwrap();
    let (catalog, warnings) = load_catalog(&dirs(project.path()), None);
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(catalog.names(), ["Explore", "Plan", "general-purpose"]);
}

#[test]
fn a_project_agent_named_plan_replaces_the_built_in() {
    let project = tempfile::tempdir().unwrap();
    let file = project.path().join(".claude/agents/plan.md");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "---\nname: Plan\ndescription: Our planner\ntools: Read\nmodel: opus\n---\nPlan our way.\n",
    )
    .unwrap();
    let (catalog, _) = load_catalog(&dirs(project.path()), None);
    assert_eq!(
        catalog.get("Plan"),
        Some(&AgentDefinition {
            name: "Plan".into(),
            description: "Our planner".into(),
            prompt: "Plan our way.".into(),
            tools: AgentTools::Only(vec!["Read".into()]),
            disallowed_tools: vec![],
            model: AgentModel::Named("opus".into()),
            color: None,
            source: AgentSource::Project(file),
            read_only: false,
            worktree: false,
            permission_mode: None,
        })
    );
}
