use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;
use tack_plugins::{Author, HooksField, McpField, PluginManifest, parse_manifest};

#[test]
fn every_documented_field_parses() {
    let text = json!({
        "name": "deploy-tools",
        "version": "1.2.0",
        "description": "Deployment automation",
        "author": {"name": "Dev Team", "email": "dev@example.com"},
        "homepage": "https://example.com/docs",
        "repository": "https://example.com/repo",
        "license": "MIT",
        "keywords": ["deploy"],
        "commands": ["./extra/special.md", "./more"],
        "agents": "./custom/agents/",
        "skills": "./custom/skills/",
        "outputStyles": "./styles/",
        "hooks": ["./config/hooks.json", {"hooks": {"Stop": []}}],
        "mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db"}},
        "lspServers": "./.lsp.json",
        "somethingNewer": true
    })
    .to_string();
    assert_eq!(
        parse_manifest(&text),
        Ok(PluginManifest {
            name: "deploy-tools".into(),
            version: Some("1.2.0".into()),
            description: Some("Deployment automation".into()),
            author: Some(Author::Details {
                name: "Dev Team".into(),
                email: Some("dev@example.com".into()),
                url: None,
            }),
            homepage: Some("https://example.com/docs".into()),
            repository: Some(json!("https://example.com/repo")),
            license: Some("MIT".into()),
            keywords: vec!["deploy".into()],
            commands: vec!["./extra/special.md".into(), "./more".into()],
            agents: vec!["./custom/agents/".into()],
            skills: vec!["./custom/skills/".into()],
            output_styles: vec!["./styles/".into()],
            hooks: vec![
                HooksField::Path("./config/hooks.json".into()),
                HooksField::Inline(json!({"hooks": {"Stop": []}})),
            ],
            mcp_servers: vec![McpField::Inline(
                json!({"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db"}})
            )],
            lsp_servers: Some(json!("./.lsp.json")),
        })
    );
}

#[test]
fn a_bad_manifest_says_what_is_wrong() {
    let cases = [
        (
            "{",
            "not valid JSON: EOF while parsing an object at line 1 column 1",
        ),
        ("[]", "the manifest must be a JSON object"),
        ("{\"version\": \"1\"}", "`name` is required"),
        (
            "{\"name\": \"x\", \"commands\": 3}",
            "invalid manifest: data did not match any variant of untagged enum OneOrMany",
        ),
        (
            "{\"name\": 7}",
            "invalid manifest: invalid type: integer `7`, expected a string",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(parse_manifest(text), Err(message.to_owned()), "{text}");
    }
}

proptest! {
    /// Any text: a manifest or an error, never a panic.
    #[test]
    fn prop_any_text_parses_or_errs(text in ".{0,400}") {
        let _ = parse_manifest(&text);
    }

    /// Any JSON value under the documented keys: a manifest or an error.
    #[test]
    fn prop_any_json_under_known_keys(
        key in prop::sample::select(vec!["name", "commands", "agents", "skills", "hooks",
                                         "mcpServers", "outputStyles", "author", "keywords"]),
        value in any_json(),
    ) {
        let mut object = serde_json::Map::new();
        object.insert("name".into(), "p".into());
        object.insert(key.to_owned(), value);
        let _ = parse_manifest(&serde_json::Value::Object(object).to_string());
    }
}

fn any_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        ".{0,20}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map(".{0,8}", inner, 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    /// A marketplace's `marketplace.json` (a repository writes it): any JSON
    /// under its keys is a marketplace or an error, never a panic.
    #[test]
    fn prop_any_marketplace_json_parses_or_errs(
        key in prop::sample::select(vec!["name", "owner", "plugins", "metadata"]),
        value in any_json(),
        plugin in any_json(),
    ) {
        let mut object = serde_json::Map::new();
        object.insert("name".into(), "m".into());
        object.insert("owner".into(), serde_json::json!({"name": "o"}));
        object.insert("plugins".into(), serde_json::json!([plugin]));
        object.insert(key.to_owned(), value);
        let root = std::path::Path::new("/market");
        let path = root.join(".claude-plugin/marketplace.json");
        let _ = tack_plugins::parse_marketplace(&serde_json::Value::Object(object), &path, root);
    }

    /// `installed_plugins.json` and `known_marketplaces.json` as any text
    /// (another tool, or a torn write, may leave anything): read or an error.
    #[test]
    fn prop_plugin_state_files_read_or_err(installed in ".{0,300}", known in any_json()) {
        let dir = tempfile::tempdir().unwrap();
        let plugins = tack_plugins::PluginsDir::new(dir.path());
        std::fs::create_dir_all(dir.path().join("plugins")).unwrap();
        std::fs::write(plugins.installed_plugins(), installed).unwrap();
        std::fs::write(dir.path().join("plugins/known_marketplaces.json"), known.to_string()).unwrap();
        let _ = tack_plugins::InstalledPlugins::read(&plugins);
        let _ = tack_plugins::KnownMarketplaces::read(&plugins);
    }

    /// `tack plugin marketplace add <arg>`: any argument is a source or an error.
    #[test]
    fn prop_any_marketplace_argument_parses_or_errs(arg in ".{0,120}") {
        let _ = tack_plugins::parse_marketplace_arg(&arg, std::path::Path::new("/cwd"));
    }
}
