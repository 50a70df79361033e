//! `enabled_plugins`: what a session loads from the settings layers and
//! the files Claude Code writes (written here as Claude Code writes them).

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use tack_plugins::{
    EnabledInputs, LayerLevel, MarketplaceSource, Plugin, PluginSource, SettingsLayer,
    enabled_plugins, parse_marketplace_arg, read_layers,
};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn layer(level: LayerLevel, value: Value) -> SettingsLayer {
    let Value::Object(map) = value else { panic!() };
    SettingsLayer {
        level,
        path: Some(PathBuf::from(format!("/{level:?}.json"))),
        value: map,
    }
}

/// A config dir with `kit@m` (user scope, a manifest), `loose@m` (user
/// scope, no manifest: the non-strict marketplace entry names its command),
/// `mine@m` (local scope of /project) and `gone@m` (its folder deleted).
fn config_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path();
    let cache = c.join("plugins/cache/m");
    write(
        &cache.join("kit/1.0.0/.claude-plugin/plugin.json"),
        r#"{"name":"kit","version":"1.0.0"}"#,
    );
    write(&cache.join("kit/1.0.0/commands/a.md"), "A");
    write(&cache.join("loose/abc123def456/extra/b.md"), "B");
    write(&cache.join("mine/2.0.0/commands/c.md"), "C");
    let install = |scope: &str, path: PathBuf, project: Option<&str>| {
        let mut v = json!({"scope": scope, "installPath": path, "version": "x",
            "installedAt": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z"});
        if let Some(p) = project {
            v["projectPath"] = json!(p);
        }
        v
    };
    let installed = json!({"version": 2, "plugins": {
        "kit@m": [install("user", cache.join("kit/1.0.0"), None)],
        "loose@m": [install("user", cache.join("loose/abc123def456"), None)],
        "mine@m": [install("local", cache.join("mine/2.0.0"), Some("/project"))],
        "gone@m": [install("user", cache.join("gone/1.0.0"), None)]
    }});
    write(
        &c.join("plugins/installed_plugins.json"),
        &installed.to_string(),
    );
    let market = c.join("plugins/marketplaces/m");
    write(
        &market.join(".claude-plugin/marketplace.json"),
        &json!({"name": "m", "owner": {"name": "o"}, "plugins": [
            {"name": "kit", "source": "./kit"},
            {"name": "loose", "source": "./loose", "strict": false, "commands": ["./extra/b.md"]}
        ]})
        .to_string(),
    );
    let known = json!({"m": {"source": {"source": "git", "url": "file:///x"},
        "installLocation": market, "lastUpdated": "2026-01-01T00:00:00.000Z"}});
    write(
        &c.join("plugins/known_marketplaces.json"),
        &known.to_string(),
    );
    dir
}

fn names(plugins: &[Plugin]) -> Vec<String> {
    plugins.iter().map(Plugin::id).collect()
}

#[test]
fn enabled_and_installed_plugins_load_and_the_rest_are_warnings() {
    let dir = config_dir();
    let layers = [
        layer(
            LayerLevel::User,
            json!({"enabledPlugins": {"kit@m": true, "loose@m": true, "gone@m": true, "absent@m": true}}),
        ),
        layer(
            LayerLevel::Local,
            json!({"enabledPlugins": {"mine@m": true, "loose@m": false}}),
        ),
    ];
    let inputs = EnabledInputs {
        layers: &layers,
        project_trusted: true,
        claude_dir: dir.path(),
        project_dir: Path::new("/project"),
    };
    let (plugins, warnings) = enabled_plugins(&inputs);
    assert_eq!(names(&plugins), ["kit@m", "mine@m"]);
    let cache = dir.path().join("plugins/cache/m");
    assert_eq!(
        warnings,
        [
            "plugin absent@m is enabled but not installed (`tack plugin install absent@m`)"
                .to_owned(),
            format!(
                "plugin gone@m: its files are missing from {} \
                 (reinstall: `tack plugin install gone@m`)",
                cache.join("gone/1.0.0").display()
            ),
        ]
    );
    assert_eq!(
        plugins[0].source,
        PluginSource::Installed {
            marketplace: "m".to_owned()
        }
    );
    assert_eq!(
        plugins[1].command_paths().unwrap(),
        [cache.join("mine/2.0.0/commands")]
    );
}

#[test]
fn a_non_strict_entry_names_the_plugin_and_its_components() {
    let dir = config_dir();
    let layers = [layer(
        LayerLevel::User,
        json!({"enabledPlugins": {"loose@m": true}}),
    )];
    let inputs = EnabledInputs {
        layers: &layers,
        project_trusted: false,
        claude_dir: dir.path(),
        project_dir: Path::new("/elsewhere"),
    };
    let (plugins, warnings) = enabled_plugins(&inputs);
    assert_eq!(
        (names(&plugins), warnings),
        (vec!["loose@m".to_owned()], vec![])
    );
    let root = dir.path().join("plugins/cache/m/loose/abc123def456");
    assert_eq!(
        plugins[0].command_paths().unwrap(),
        [root.join("extra/b.md")]
    );
}

#[test]
fn an_untrusted_project_may_turn_plugins_off_but_not_on() {
    let dir = config_dir();
    let layers = [
        layer(LayerLevel::User, json!({"enabledPlugins": {"kit@m": true}})),
        layer(
            LayerLevel::Project,
            json!({"enabledPlugins": {"kit@m": false, "mine@m": true}}),
        ),
    ];
    let mut inputs = EnabledInputs {
        layers: &layers,
        project_trusted: false,
        claude_dir: dir.path(),
        project_dir: Path::new("/project"),
    };
    let (plugins, warnings) = enabled_plugins(&inputs);
    assert_eq!(names(&plugins), Vec::<String>::new());
    assert_eq!(
        warnings,
        [
            "plugin mine@m is enabled by /Project.json but this folder is not trusted: not loaded \
          (trust it with `tack trust`)"
        ]
    );
    inputs.project_trusted = true;
    assert_eq!(names(&enabled_plugins(&inputs).0), ["mine@m"]);
}

#[test]
fn read_layers_skips_missing_files_and_warns_about_broken_ones() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    let bad = dir.path().join("bad.json");
    write(&good, r#"{"enabledPlugins": {"a@b": true}}"#);
    write(&bad, "{");
    let (layers, warnings) = read_layers(&[
        (LayerLevel::User, dir.path().join("missing.json")),
        (LayerLevel::User, good.clone()),
        (LayerLevel::Project, bad.clone()),
    ]);
    let mut value = Map::new();
    value.insert("enabledPlugins".to_owned(), json!({"a@b": true}));
    assert_eq!(
        layers,
        [SettingsLayer {
            level: LayerLevel::User,
            path: Some(good),
            value
        }]
    );
    assert_eq!(
        warnings,
        [format!(
            "{}: not valid JSON: EOF while parsing an object at line 1 column 1",
            bad.display()
        )]
    );
}

#[test]
fn marketplace_arguments_parse_as_claude_code_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    write(&cwd.join("m/.claude-plugin/marketplace.json"), "{}");
    let parse = |arg: &str| parse_marketplace_arg(arg, &cwd).unwrap();
    let git = |url: &str, r: Option<&str>| MarketplaceSource::Git {
        url: url.to_owned(),
        git_ref: r.map(str::to_owned),
        path: None,
    };
    assert_eq!(
        parse("acme/plugins@v2"),
        MarketplaceSource::Github {
            repo: "acme/plugins".to_owned(),
            git_ref: Some("v2".to_owned()),
            path: None
        }
    );
    assert_eq!(
        parse("https://example.com/repo.git#main"),
        git("https://example.com/repo.git", Some("main"))
    );
    assert_eq!(
        parse("git@example.com:acme/p.git"),
        git("git@example.com:acme/p.git", None)
    );
    assert_eq!(parse("file:///srv/m"), git("file:///srv/m", None));
    assert_eq!(
        parse("https://example.com/x/marketplace.json"),
        MarketplaceSource::Url {
            url: "https://example.com/x/marketplace.json".to_owned()
        }
    );
    assert_eq!(
        parse("./m"),
        MarketplaceSource::Directory {
            path: cwd.join("m").to_string_lossy().into_owned()
        }
    );
    assert_eq!(
        parse("m/.claude-plugin/marketplace.json"),
        MarketplaceSource::File {
            path: cwd
                .join("m/.claude-plugin/marketplace.json")
                .to_string_lossy()
                .into_owned()
        }
    );
    assert!(parse_marketplace_arg("not a source", &cwd).is_err());
}
