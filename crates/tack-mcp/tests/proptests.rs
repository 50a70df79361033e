//! Properties of the MCP configuration parser (`.mcp.json`, `--mcp-config`),
//! which reads what a repository wrote: any JSON is servers, issues or an
//! error naming its origin, never a panic.

use proptest::prelude::*;
use serde_json::{Value, json};
use tack_mcp::{LoadOptions, McpPaths, ProjectApprovals, load_config};

fn junk() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-z${}:/ .-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("command".to_owned()),
                    Just("args".to_owned()),
                    Just("env".to_owned()),
                    Just("type".to_owned()),
                    Just("url".to_owned()),
                    Just("headers".to_owned()),
                    "[a-z_]{1,8}",
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn load(text: &str) -> Result<usize, String> {
    let dir = std::path::PathBuf::from("/nonexistent-project");
    let paths = McpPaths {
        cwd: dir.clone(),
        project_dir: dir,
        tack_file: None,
        claude_file: None,
    };
    let config = [text.to_owned()];
    load_config(
        &paths,
        LoadOptions {
            mcp_config: &config,
            strict: true,
            approvals: &ProjectApprovals::default(),
        },
    )
    .map(|c| c.servers.len() + c.issues.len())
    .map_err(|e| e.to_string())
}

proptest! {
    #[test]
    fn prop_any_mcp_document_loads_or_names_its_origin(
        servers in proptest::collection::btree_map("[a-z_ -]{0,8}", junk(), 0..4),
        wrap in any::<bool>(),
    ) {
        let servers = Value::Object(servers.into_iter().collect());
        let doc = if wrap { json!({"mcpServers": servers}) } else { servers };
        if let Err(e) = load(&doc.to_string()) {
            prop_assert!(e.contains("--mcp-config argument"), "{}", e);
        }
    }

    #[test]
    fn prop_any_text_starting_with_a_brace_loads_or_errs(text in "\\{.{0,200}") {
        let _ = load(&text);
    }
}
