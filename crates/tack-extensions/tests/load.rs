//! Each kind of extension loaded from real folders, as a session finds them,
//! without a session: whole values and whole warning lists.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_extensions::agents::{
    AgentDefinition, AgentDirs, AgentModel, AgentSource, AgentTools, load_catalog,
};
use tack_extensions::custom_commands::{
    CommandDirs, CommandScope, CustomCommand, CustomCommands, load_commands,
};
use tack_extensions::output_styles::{
    OutputStyle, StyleDirs, StyleSource, Styles, load_output_styles,
};
use tack_extensions::plugins::{
    PluginDir, PluginHooks, PluginPaths, installed_plugins, session_plugins,
};
use tack_extensions::skills::{Skill, SkillDirs, SkillSource, load_skills};
use tack_mcp::{ConfigScope, ServerConfig, ServerEntry, StdioConfig};
use tack_plugins::{Plugin, PluginSource};
use tack_protocol::extensions::PluginFailure;

fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn command(name: &str, scope: CommandScope, path: PathBuf, body: &str) -> CustomCommand {
    CustomCommand {
        name: name.into(),
        scope,
        description: None,
        argument_hint: None,
        allowed_tools: vec![],
        model: None,
        body: body.into(),
        path,
        runs_shell: true,
    }
}

#[test]
fn commands_load_with_their_frontmatter_by_precedence() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let plugin = tempfile::tempdir().unwrap();
    let review = write(
        project.path(),
        ".claude/commands/review.md",
        "---\ndescription: Review a PR\nargument-hint: <pr>\nallowed-tools: Bash(gh pr view:*), Read\nmodel: haiku\n---\nReview PR $1.\n",
    );
    write(home.path(), ".claude/commands/review.md", "hidden\n");
    let standup = write(
        home.path(),
        ".claude/commands/standup.md",
        "Summarise my day\n",
    );
    let log = write(config.path(), "commands/git/log.md", "Show the log\n");
    let hello = write(plugin.path(), "commands/hello.md", "Say hello\n");
    let dirs = CommandDirs {
        project: Some(project.path().to_path_buf()),
        home: Some(home.path().to_path_buf()),
        config_dir: config.path().to_path_buf(),
        trusted: true,
        plugins: vec![PluginPaths {
            plugin: "kit".into(),
            paths: vec![plugin.path().join("commands")],
        }],
    };
    let reviewed = CustomCommand {
        description: Some("Review a PR".into()),
        argument_hint: Some("<pr>".into()),
        allowed_tools: vec!["Bash(gh pr view:*)".into(), "Read".into()],
        model: Some("haiku".into()),
        ..command(
            "review",
            CommandScope::Project,
            review.clone(),
            "Review PR $1.\n",
        )
    };
    let others = [
        command("git:log", CommandScope::User, log, "Show the log\n"),
        command("kit:hello", CommandScope::Plugin, hello, "Say hello\n"),
    ];
    let standup = command("standup", CommandScope::User, standup, "Summarise my day\n");
    let expected = |review: CustomCommand| {
        let mut all = others.to_vec();
        all.extend([review, standup.clone()]);
        CustomCommands(all)
    };
    assert_eq!(
        load_commands(&dirs),
        (expected(reviewed.clone()), Vec::new())
    );

    // An untrusted project's command loads without its tools or its shell.
    let untrusted = CustomCommand {
        allowed_tools: vec![],
        runs_shell: false,
        ..reviewed
    };
    assert_eq!(
        load_commands(&CommandDirs {
            trusted: false,
            ..dirs
        }),
        (
            expected(untrusted),
            vec![format!(
                "warning: {}: allowed-tools ignored until the project is trusted (tack trust)",
                review.display()
            )]
        )
    );
}

#[test]
fn a_skill_folder_loads_whole_and_a_bad_one_is_a_warning() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write(
        user.path(),
        "deploy/SKILL.md",
        "---\nname: ship\ndescription: Ships the app\nargument-hint: <env>\nallowed-tools: [Bash(make deploy:*)]\n\
         model: sonnet\ncontext: fork\nagent: Explore\nuser-invocable: false\ndisable-model-invocation: true\n---\n\
         Run ${CLAUDE_SKILL_DIR}/deploy.sh $ARGUMENTS\n",
    );
    let bad = write(
        user.path(),
        "bad/SKILL.md",
        "---\nname: not a name\n---\nx\n",
    );
    let (skills, warnings) = load_skills(&SkillDirs {
        project: project.path().to_path_buf(),
        cwd: project.path().to_path_buf(),
        user: vec![user.path().to_path_buf()],
        project_source: true,
        trusted: true,
        plugins: vec![],
    });
    assert_eq!(
        skills.0,
        vec![Skill {
            name: "ship".into(),
            source: SkillSource::User,
            description: "Ships the app".into(),
            argument_hint: Some("<env>".into()),
            allowed_tools: vec!["Bash(make deploy:*)".into()],
            model: Some("sonnet".into()),
            fork: true,
            agent: Some("Explore".into()),
            user_invocable: false,
            model_invocable: false,
            body: "Run ${CLAUDE_SKILL_DIR}/deploy.sh $ARGUMENTS\n".into(),
            dir: user.path().join("deploy"),
        }]
    );
    assert_eq!(
        warnings,
        vec![format!(
            "warning: {}: `not a name` is not a skill name (letters, digits, `-`, `_`); skill skipped",
            bad.display()
        )]
    );
}

#[test]
fn an_output_style_file_loads_and_output_style_picks_it() {
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let terse = write(
        user.path(),
        "terse.md",
        "---\nname: Terse\ndescription: Says little\nkeep-coding-instructions: true\n---\n\nAnswer in one line.\n",
    );
    write(project.path(), "mine.md", "A project's style\n");
    let dirs = StyleDirs {
        user: vec![user.path().to_path_buf()],
        project: project.path().to_path_buf(),
        trusted: false,
        plugins: vec![],
    };
    let (all, warnings) = load_output_styles(&dirs);
    let style = OutputStyle {
        name: "Terse".into(),
        description: "Says little".into(),
        prompt: "Answer in one line.".into(),
        keep_coding_instructions: true,
        source: StyleSource::User,
        path: Some(terse),
    };
    assert_eq!(all.0.last(), Some(&style));
    assert_eq!(
        warnings,
        vec![format!(
            "warning: {}: project output styles not loaded until the project is trusted (tack trust)",
            project.path().display()
        )]
    );
    assert_eq!(
        all.clone().choose(Some("terse")),
        (
            Styles {
                all: all.clone(),
                active: style,
                named: "Terse".into()
            },
            None
        )
    );
    assert_eq!(
        all.clone().choose(Some("Pirate")),
        (
            Styles {
                all,
                active: OutputStyle::default_style(),
                named: "Pirate".into()
            },
            Some("warning: outputStyle `Pirate`: no such output style; using the default".into())
        )
    );
}

#[test]
fn a_plugin_folder_gives_its_commands_skills_agents_hooks_and_servers() {
    let cwd = tempfile::tempdir().unwrap();
    let claude = tempfile::tempdir().unwrap();
    let root = cwd.path().join("kit");
    write(
        &root,
        ".claude-plugin/plugin.json",
        r#"{"name": "kit", "version": "1.2.0"}"#,
    );
    let hello = write(
        &root,
        "commands/hello.md",
        "---\ndescription: Greets\n---\nSay hello\n",
    );
    write(
        &root,
        "skills/greet/SKILL.md",
        "---\ndescription: Greets well\n---\nGreet.\n",
    );
    let helper = write(
        &root,
        "agents/helper.md",
        "---\nname: helper\ndescription: Helps\ntools: Read\n---\nYou help.\n",
    );
    write(
        &root,
        "hooks/hooks.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/start.sh"}]}]}}"#,
    );
    write(
        &root,
        ".mcp.json",
        r#"{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_DATA}/db", "args": ["--ro"]}}}"#,
    );
    let dirs = [PluginDir::new("kit"), PluginDir::new("missing")];
    let plugins = session_plugins(&dirs, vec![], cwd.path(), Some(claude.path()));
    let (root_s, data) = (
        root.display().to_string(),
        claude
            .path()
            .join("plugins/data/kit-inline")
            .display()
            .to_string(),
    );
    let paths = |kind: &str| {
        vec![PluginPaths {
            plugin: "kit".into(),
            paths: vec![root.join(kind)],
        }]
    };
    assert_eq!(
        plugins,
        tack_extensions::plugins::SessionPlugins {
            plugins: vec![Plugin::load(&root, PluginSource::Dir).unwrap()],
            failures: vec![PluginFailure {
                plugin: "inline[1]".into(),
                kind: "path-not-found".into(),
                message: format!("{} is not a folder", cwd.path().join("missing").display()),
                path: Some(cwd.path().join("missing")),
            }],
            commands: paths("commands"),
            agents: paths("agents"),
            skills: paths("skills"),
            hooks: vec![PluginHooks {
                source: "plugin kit@inline (hooks/hooks.json)".into(),
                hooks: json!({"SessionStart": [{"hooks": [{"type": "command", "command": format!("{root_s}/start.sh")}]}]}),
                env: vec![
                    ("CLAUDE_PLUGIN_ROOT".into(), root_s.clone()),
                    ("CLAUDE_PLUGIN_DATA".into(), data.clone()),
                ],
            }],
            mcp_servers: vec![ServerEntry {
                name: "plugin:kit:db".into(),
                scope: ConfigScope::Plugin,
                origin: root.join(".mcp.json").display().to_string(),
                config: ServerConfig::Stdio(StdioConfig {
                    command: format!("{data}/db"),
                    args: vec!["--ro".into()],
                    env: Default::default(),
                }),
                tool_timeout: None,
            }],
            mcp_issues: vec![],
        }
    );
    assert_eq!(
        plugins.summaries(),
        vec![tack_protocol::extensions::PluginSummary {
            name: "kit".into(),
            path: root.clone(),
            source: "kit@inline".into(),
            version: Some("1.2.0".into()),
        }]
    );

    // What the loaders make of its components.
    let nowhere = cwd.path().join("nowhere");
    let (commands, warnings) = load_commands(&CommandDirs {
        project: None,
        home: None,
        config_dir: nowhere.clone(),
        trusted: true,
        plugins: plugins.commands.clone(),
    });
    assert_eq!(
        (commands, warnings),
        (
            CustomCommands(vec![CustomCommand {
                description: Some("Greets".into()),
                ..command("kit:hello", CommandScope::Plugin, hello, "Say hello\n")
            }]),
            vec![]
        )
    );
    let (skills, warnings) = load_skills(&SkillDirs {
        project: nowhere.clone(),
        cwd: nowhere.clone(),
        user: vec![],
        project_source: false,
        trusted: true,
        plugins: plugins.skills.clone(),
    });
    assert_eq!(
        (skills.names(), warnings),
        (vec!["kit:greet".into()], vec![])
    );
    let (catalog, warnings) = load_catalog(
        &AgentDirs {
            home: None,
            project: nowhere,
            plugins: plugins.agents.clone(),
        },
        None,
    );
    assert_eq!(
        (catalog.get("kit:helper").cloned(), warnings),
        (
            Some(AgentDefinition {
                name: "kit:helper".into(),
                description: "Helps".into(),
                prompt: "You help.".into(),
                tools: AgentTools::Only(vec!["Read".into()]),
                disallowed_tools: vec![],
                model: AgentModel::Inherit,
                color: None,
                source: AgentSource::Plugin(helper),
                read_only: false,
                worktree: false,
                permission_mode: None,
            }),
            vec![]
        )
    );
}

#[test]
fn agent_definition_files_load_by_precedence_and_a_broken_one_names_its_line() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: The user's\n---\nUser prompt\n",
    );
    let reviewer = write(
        project.path(),
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews diffs\ntools: [Read, Grep]\ndisallowedTools: Bash\n\
         model: opus\ncolor: blue\nisolation: worktree\n---\nYou review.\n",
    );
    let broken = write(
        project.path(),
        ".tack/agents/broken.md",
        "---\nname: broken\ndescription: d\nisolation: container\n---\nP\n",
    );
    let dirs = AgentDirs {
        home: Some(home.path().to_path_buf()),
        project: project.path().to_path_buf(),
        plugins: vec![],
    };
    let (catalog, warnings) = load_catalog(&dirs, None);
    assert_eq!(
        catalog.names(),
        ["Explore", "Plan", "general-purpose", "reviewer"].map(String::from)
    );
    assert_eq!(
        catalog.get("reviewer"),
        Some(&AgentDefinition {
            name: "reviewer".into(),
            description: "Reviews diffs".into(),
            prompt: "You review.".into(),
            tools: AgentTools::Only(vec!["Read".into(), "Grep".into()]),
            disallowed_tools: vec!["Bash".into()],
            model: AgentModel::Named("opus".into()),
            color: Some("blue".into()),
            source: AgentSource::Project(reviewer),
            read_only: false,
            worktree: true,
            permission_mode: None,
        })
    );
    assert_eq!(
        warnings,
        vec![format!(
            "warning: {}:4: `isolation` must be `worktree`, not `container`; agent skipped",
            broken.display()
        )]
    );

    // `--agents` outranks every file.
    let flag = r#"{"reviewer": {"description": "From the flag", "prompt": "Flag prompt"}}"#;
    let (catalog, _) = load_catalog(&dirs, Some(flag));
    assert_eq!(
        catalog.get("reviewer").map(|d| (&d.description, &d.source)),
        Some((&"From the flag".to_owned(), &AgentSource::Flag))
    );
}

#[test]
fn installed_plugins_are_read_only_when_settings_enable_some() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let home_dir = home.path().display().to_string();
    let locations = tack_config::Locations::discover(project.path(), |key| {
        (key == "HOME").then(|| home_dir.clone())
    });
    let settings = |json: &str| {
        write(home.path(), ".claude/settings.json", json);
        tack_config::Settings::load(&locations, None).unwrap()
    };
    assert_eq!(
        installed_plugins(&locations, &settings(r#"{"model": "opus"}"#)),
        (vec![], vec![])
    );
    assert_eq!(
        installed_plugins(
            &locations,
            &settings(r#"{"enabledPlugins": {"kit@market": true}}"#)
        ),
        (
            vec![],
            vec![
                "warning: plugin kit@market is enabled but not installed (`tack plugin install kit@market`)"
                    .to_owned()
            ]
        )
    );
}
