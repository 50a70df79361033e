//! Tool search: the deferral rule, the tokens it saves, and the ToolSearch tool.

use crate::common;

use std::sync::Arc;

use common::*;
use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_mcp::{DeferredTools, McpManager, ToolSearchMode, decide_deferral, estimate_tool_tokens};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

/// A tool shaped like a typical MCP tool (a GitHub or Jira server's): a
/// three-sentence description and six described parameters, about 270 tokens.
struct Synthetic {
    name: String,
    topic: &'static str,
}

const TOPICS: [&str; 5] = [
    "issue",
    "pull request",
    "calendar event",
    "database table",
    "browser tab",
];

fn synthetic(n: usize) -> Vec<Arc<dyn Tool>> {
    (0..n)
        .map(|i| {
            Arc::new(Synthetic {
                name: format!("mcp__big__tool_{i:03}"),
                topic: TOPICS[i % TOPICS.len()],
            }) as Arc<dyn Tool>
        })
        .collect()
}

impl Tool for Synthetic {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> String {
        format!(
            "Operates on one {} of the connected service and returns its details as JSON. \
             Use it when the user asks about a specific {} by id; it does not search. \
             Results include the owner, the state, timestamps and links to related items.",
            self.topic, self.topic
        )
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": format!("The id of the {}", self.topic)},
                "fields": {"type": "array", "items": {"type": "string"}, "description": "Fields to return; all when empty"},
                "include_history": {"type": "boolean", "description": "Also return the change history"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "At most this many history entries"},
                "format": {"type": "string", "enum": ["json", "markdown", "plain"], "description": "How to render text fields in the result"},
                "workspace": {"type": "string", "description": "The workspace or organisation; the default one when omitted"}
            },
            "required": ["id"]
        })
    }
    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }
    fn validate(&self, _input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        Ok(())
    }
    fn call<'a>(&'a self, _input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async { Ok(ToolOutput::text("ok")) })
    }
}

#[test]
fn enable_tool_search_values() {
    let auto = |percent| ToolSearchMode::Auto { percent };
    assert_eq!(ToolSearchMode::from_env_value(None), auto(10));
    assert_eq!(ToolSearchMode::from_env_value(Some("auto")), auto(10));
    assert_eq!(ToolSearchMode::from_env_value(Some("auto:5")), auto(5));
    assert_eq!(ToolSearchMode::from_env_value(Some("auto:250")), auto(100));
    assert_eq!(ToolSearchMode::from_env_value(Some("auto:x")), auto(10));
    assert_eq!(
        ToolSearchMode::from_env_value(Some("true")),
        ToolSearchMode::Always
    );
    assert_eq!(
        ToolSearchMode::from_env_value(Some("0")),
        ToolSearchMode::Never
    );
}

#[test]
fn a_hundred_tools_are_deferred_and_the_saving_is_measured() {
    let tools = synthetic(100);
    let decision = decide_deferral(ToolSearchMode::Auto { percent: 10 }, &tools, 200_000);
    println!(
        "100 synthetic MCP tools: {} tokens of definitions; ToolSearch instead: {} tokens; saved per request: {} ({:.1}%); deferral threshold {} tokens (10% of a 200k window)",
        decision.mcp_tokens,
        decision.tool_search_tokens,
        decision.tokens_saved(),
        100.0 * decision.tokens_saved() as f64 / decision.mcp_tokens as f64,
        decision.threshold_tokens.unwrap_or_default(),
    );
    assert!(decision.defer, "{decision:?}");
    assert_eq!(decision.threshold_tokens, Some(20_000));
    assert!(decision.mcp_tokens > 20_000, "{decision:?}");
    // ToolSearch lists the deferred names, so it is not free, but far smaller.
    assert!(
        decision.tokens_saved() * 100 / decision.mcp_tokens >= 80,
        "{decision:?}"
    );
    // The same tools under a 1M window stay loaded; `true` and `false` force it.
    assert!(!decide_deferral(ToolSearchMode::Auto { percent: 10 }, &tools, 1_000_000).defer);
    assert!(decide_deferral(ToolSearchMode::Always, &tools[..1], 1_000_000).defer);
    assert_eq!(
        decide_deferral(ToolSearchMode::Never, &tools, 200_000).tokens_saved(),
        0
    );
    assert!(!decide_deferral(ToolSearchMode::Never, &tools, 200_000).defer);
    assert!(!decide_deferral(ToolSearchMode::Always, &[], 200_000).defer);
    assert_eq!(decision.mcp_tokens, estimate_tool_tokens(&tools));
}

#[tokio::test]
async fn tool_search_loads_tools_by_name_and_by_keyword() {
    let s = Scratch::new();
    let deferred = DeferredTools::new();
    deferred.set_catalog(synthetic(12));
    let search = deferred.tool();
    assert_eq!(search.name(), "ToolSearch");
    assert!(
        search
            .description()
            .contains("Deferred tools:\nmcp__big__tool_000\nmcp__big__tool_001\n")
    );
    let start = deferred.generation();
    let ctx = s.ctx("toolu_s");

    let out = search
        .call(
            json!({"query": "select:mcp__big__tool_003,tool_004,nope"}),
            &ctx,
        )
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput::text(
            "Loaded 2 tools; call them directly from your next response:\n\
             - mcp__big__tool_003: Operates on one database table of the connected service and returns its details as JSON. Use it when the user asks about a specific database table by id; it does not search. Results include the owner, the state, timestamps and links to related items.\n\
             - mcp__big__tool_004: Operates on one browser tab of the connected service and returns its details as JSON. Use it when the user asks about a specific browser tab by id; it does not search. Results include the owner, the state, timestamps and links to related items."
        )
        .with_structured(json!({"loaded": ["mcp__big__tool_003", "mcp__big__tool_004"]}))
    );
    assert!(deferred.generation() > start);
    let loaded: Vec<String> = deferred
        .loaded()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(loaded, ["mcp__big__tool_003", "mcp__big__tool_004"]);
    assert_eq!(deferred.deferred_names().len(), 10);
    // The description names the whole catalog: loading leaves it as it was.
    assert!(search.description().contains("tool_003"));

    // Keywords rank by the description; max_results caps them.
    let out = search
        .call(json!({"query": "calendar event", "max_results": 2}), &ctx)
        .await
        .unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"loaded": ["mcp__big__tool_002", "mcp__big__tool_007"]}))
    );
    // `+word` must be in the name.
    let out = search
        .call(json!({"query": "+tool_01 issue"}), &ctx)
        .await
        .unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"loaded": ["mcp__big__tool_010", "mcp__big__tool_011"]}))
    );
    let none = search
        .call(json!({"query": "spaceship"}), &ctx)
        .await
        .unwrap();
    assert_eq!(
        none.content.to_text(),
        "No deferred tools match \"spaceship\". Try other keywords, or \"select:<name>\" with a name from the ToolSearch description."
    );
    assert!(search.validate(&json!({}), &ctx).is_err());
    // A new catalog keeps what was loaded and still exists.
    deferred.set_catalog(synthetic(4));
    let loaded: Vec<String> = deferred
        .loaded()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    // In the order loaded: each was sent after the ones before it.
    assert_eq!(loaded, ["mcp__big__tool_003", "mcp__big__tool_002"]);
}

/// The prompt cache holds the tools already sent: a tool loaded later goes
/// after them, whatever its place in the catalog, and ToolSearch's own
/// definition does not change.
#[tokio::test]
async fn a_tool_loaded_later_goes_after_the_ones_loaded_before() {
    let s = Scratch::new();
    let deferred = DeferredTools::new();
    deferred.set_catalog(synthetic(8));
    let search = deferred.tool();
    let before = search.description();
    let ctx = s.ctx("toolu_s");
    for name in [
        "mcp__big__tool_006",
        "mcp__big__tool_001",
        "mcp__big__tool_006",
    ] {
        search
            .call(json!({"query": format!("select:{name}")}), &ctx)
            .await
            .unwrap();
    }
    let loaded: Vec<String> = (deferred.loaded().iter())
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(loaded, ["mcp__big__tool_006", "mcp__big__tool_001"]);
    assert_eq!(search.description(), before);
}

#[tokio::test]
async fn real_server_tools_stay_loaded_under_the_threshold() {
    let s = Scratch::new();
    let m = McpManager::connect(&config(vec![stdio("fx", &[])]), s.options(), &no_env).await;
    let decision = decide_deferral(ToolSearchMode::Auto { percent: 10 }, &m.tools(), 200_000);
    assert!(!decision.defer && decision.mcp_tokens > 0, "{decision:?}");
}
