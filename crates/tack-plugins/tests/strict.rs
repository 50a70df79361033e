//! A marketplace entry's component lists against the plugin's own: with
//! `strict: true` (the default) the plugin's `plugin.json` and default
//! folders stand and the entry's lists add to them; with `strict: false` the
//! entry is the whole definition: a kind it lists is exactly those paths
//! (the default folder not read), the manifest's lists are dropped, and a
//! kind it does not list still comes from its default place.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;
use tack_plugins::{DefaultPlace, HooksField, Plugin, PluginSource, parse_marketplace};

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A plugin with three skills under `skills/`, an extra skill folder its
/// manifest names, a command folder and a hooks file.
fn plugin(root: &Path) -> Plugin {
    for s in ["a", "b", "c"] {
        write(root, &format!("skills/{s}/SKILL.md"), "---\nname: x\n---\n");
    }
    write(root, "more/d/SKILL.md", "---\nname: d\n---\n");
    write(root, "commands/hi.md", "Hi");
    write(root, "hooks/hooks.json", "{}");
    write(
        root,
        ".claude-plugin/plugin.json",
        r#"{"name": "p", "skills": ["./more"]}"#,
    );
    Plugin::load(root, PluginSource::Dir).unwrap()
}

fn entry(strict: bool) -> tack_plugins::MarketplaceEntry {
    let market = json!({"name": "m", "plugins": [
        {"name": "p", "source": "./p", "strict": strict,
         "skills": ["./skills/a", "./skills/b"]}
    ]});
    let parsed = parse_marketplace(&market, Path::new("/m.json"), Path::new("/")).unwrap();
    parsed.plugins[0].clone()
}

#[test]
fn strict_entries_add_to_the_manifest_and_non_strict_ones_replace_what_they_list() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    let paths = |p: &Plugin| {
        (
            p.skill_paths().unwrap(),
            p.command_paths().unwrap(),
            p.hooks().unwrap(),
        )
    };
    let hooks = vec![HooksField::Path("./hooks/hooks.json".into())];

    let mut strict = plugin(&root);
    entry(true).apply_to(&mut strict).unwrap();
    assert_eq!(
        paths(&strict),
        (
            vec![
                root.join("skills"),
                root.join("more"),
                root.join("skills/a"),
                root.join("skills/b"),
            ],
            vec![root.join("commands")],
            hooks.clone(),
        )
    );

    let mut loose = plugin(&root);
    entry(false).apply_to(&mut loose).unwrap();
    assert_eq!(loose.replaced_defaults, [DefaultPlace::Skills]);
    assert_eq!(
        paths(&loose),
        (
            vec![root.join("skills/a"), root.join("skills/b")],
            vec![root.join("commands")],
            hooks,
        )
    );
}

#[test]
fn an_entrys_lsp_servers_join_the_manifests_or_replace_them_when_not_strict() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    write(
        &root,
        ".claude-plugin/plugin.json",
        r#"{"name": "p", "lspServers": "./own.json"}"#,
    );
    let entry = |strict: bool| {
        let market = json!({"name": "m", "plugins": [
            {"name": "p", "source": "./p", "strict": strict,
             "lspServers": [{"py": {"command": "pylsp", "extensionToLanguage": {".py": "python"}}}]}
        ]});
        let parsed = parse_marketplace(&market, Path::new("/m.json"), Path::new("/")).unwrap();
        parsed.plugins[0].clone()
    };
    let inline = json!({"py": {"command": "pylsp", "extensionToLanguage": {".py": "python"}}});
    let mut strict = Plugin::load(&root, PluginSource::Dir).unwrap();
    entry(true).apply_to(&mut strict).unwrap();
    let mut loose = Plugin::load(&root, PluginSource::Dir).unwrap();
    entry(false).apply_to(&mut loose).unwrap();
    assert_eq!(
        (strict.manifest.lsp_servers, loose.manifest.lsp_servers),
        (
            Some(json!(["./own.json", inline.clone()])),
            Some(json!([inline]))
        )
    );
}
