use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use tack_plugins::{HooksField, McpField, Plugin, PluginSource};

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn without_a_manifest_the_folder_names_the_plugin_and_default_folders_are_its_components() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my-plugin");
    write(&root, "commands/hi.md", "Hi");
    write(&root, "agents/a.md", "---\nname: a\n---\n");
    write(&root, "skills/s/SKILL.md", "---\nname: s\n---\n");
    write(&root, "hooks/hooks.json", "{}");
    write(&root, ".mcp.json", "{}");
    let plugin = Plugin::load(&root, PluginSource::Dir).unwrap();
    assert_eq!(
        (
            plugin.name.as_str(),
            plugin.id(),
            plugin.data_dir(Path::new("/c"))
        ),
        (
            "my-plugin",
            "my-plugin@inline".to_owned(),
            PathBuf::from("/c/plugins/data/my-plugin-inline")
        )
    );
    assert_eq!(plugin.command_paths().unwrap(), [root.join("commands")]);
    assert_eq!(plugin.agent_paths().unwrap(), [root.join("agents")]);
    assert_eq!(plugin.skill_paths().unwrap(), [root.join("skills")]);
    assert_eq!(plugin.output_style_paths().unwrap(), Vec::<PathBuf>::new());
    assert_eq!(
        plugin.hooks().unwrap(),
        [HooksField::Path("./hooks/hooks.json".into())]
    );
    assert_eq!(
        plugin.mcp_servers().unwrap(),
        [McpField::Path("./.mcp.json".into())]
    );
}

#[test]
fn manifest_paths_add_to_the_defaults_and_stay_inside_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    write(&root, "commands/a.md", "A");
    write(&root, "extra/b.md", "B");
    write(
        &root,
        ".claude-plugin/plugin.json",
        r#"{"name": "tools", "commands": ["./extra/b.md", "./commands"]}"#,
    );
    let plugin = Plugin::load(
        &root,
        PluginSource::Installed {
            marketplace: "m".into(),
        },
    )
    .unwrap();
    assert_eq!(
        (plugin.name.as_str(), plugin.id()),
        ("tools", "tools@m".to_owned())
    );
    assert_eq!(
        plugin.command_paths().unwrap(),
        [root.join("commands"), root.join("extra/b.md")]
    );
    let manifest = root
        .join(".claude-plugin/plugin.json")
        .display()
        .to_string();
    for (paths, message) in [
        (
            r#"["../outside"]"#,
            "`../outside`: component paths start with `./`",
        ),
        (
            r#"["./a/../../x"]"#,
            "`./a/../../x` leaves the plugin's folder",
        ),
        (r#"["/etc"]"#, "`/etc`: component paths start with `./`"),
        (r#"["./missing"]"#, "`./missing` does not exist"),
    ] {
        write(
            &root,
            ".claude-plugin/plugin.json",
            &format!(r#"{{"name": "tools", "agents": {paths}}}"#),
        );
        let plugin = Plugin::load(&root, PluginSource::Dir).unwrap();
        assert_eq!(
            plugin.agent_paths().unwrap_err().to_string(),
            format!("{manifest}: {message}")
        );
    }
}

#[test]
fn a_broken_or_hostile_manifest_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    let manifest = root.join(".claude-plugin/plugin.json");
    write(&root, ".claude-plugin/plugin.json", "{\"name\": \"../x\"}");
    assert_eq!(
        Plugin::load(&root, PluginSource::Dir)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: plugin name `../x`: use letters, digits, `-`, `_` and `.`, not starting with `.`",
            manifest.display()
        )
    );
    write(&root, ".claude-plugin/plugin.json", "{\"name\":");
    assert_eq!(
        Plugin::load(&root, PluginSource::Dir)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: not valid JSON: EOF while parsing a value at line 1 column 8",
            manifest.display()
        )
    );
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
    let error = Plugin::load(&root, PluginSource::Dir)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!("cannot read {}: ", manifest.display())),
        "{error}"
    );
}
