//! Permission rules naming MCP servers and tools, through tack-permissions'
//! engine on real tool names, and `--permission-prompt-tool`.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tack_mcp::{McpManager, PermissionPromptError, PermissionPromptTool, PromptDecision};
use tack_permissions::{
    Decision, PermissionContext, PermissionMode, RuleBehavior, RuleSet, RuleSource,
};
use tack_tool::Tool;
use tokio_util::sync::CancellationToken;

fn rules(list: &[(RuleBehavior, &str)]) -> RuleSet {
    let mut set = RuleSet::new();
    let source = RuleSource::named("cliArg");
    for (behavior, text) in list {
        set.add(&source, *behavior, text).unwrap();
    }
    set
}

fn decide(ctx: &PermissionContext, tool: &Arc<dyn Tool>) -> &'static str {
    let input = json!({});
    match ctx.decide(
        tool.name(),
        tool.aliases(),
        &input,
        tool.is_read_only(&input),
        &[],
    ) {
        Decision::Allow { .. } => "allow",
        Decision::Deny { .. } => "deny",
        Decision::Ask { .. } => "ask",
        Decision::Classify { .. } => "classify",
    }
}

#[tokio::test]
async fn server_and_tool_rules_apply_to_mcp_tools() {
    let s = Scratch::new();
    let m = McpManager::connect(
        &config(vec![stdio("fx", &[]), stdio("other", &[])]),
        s.options(),
        &no_env,
    )
    .await;
    let set = rules(&[
        (RuleBehavior::Allow, "mcp__fx"),
        (RuleBehavior::Deny, "mcp__fx__crash"),
        (RuleBehavior::Ask, "mcp__fx__fail"),
        (RuleBehavior::Allow, "mcp__other__echo"),
        (RuleBehavior::Allow, "mcp__other__get_*"),
        (RuleBehavior::Deny, "mcp__other__spawn*"),
    ]);
    let cwd = s.path();
    let ctx = PermissionContext::new(
        PermissionMode::Default,
        set,
        cwd,
        Path::new("/nonexistent-home"),
        &[],
    );
    let got: Vec<(&str, &str)> = [
        "mcp__fx__echo",
        "mcp__fx__sleep",
        "mcp__fx__crash",
        "mcp__fx__fail",
        "mcp__other__echo",
        "mcp__other__add",
        "mcp__other__spawn_grandchild",
    ]
    .iter()
    .map(|n| (*n, decide(&ctx, &tool(&m, n))))
    .collect();
    assert_eq!(
        got,
        vec![
            ("mcp__fx__echo", "allow"),
            ("mcp__fx__sleep", "allow"),
            ("mcp__fx__crash", "deny"),
            ("mcp__fx__fail", "ask"),
            ("mcp__other__echo", "allow"),
            ("mcp__other__add", "ask"),
            ("mcp__other__spawn_grandchild", "deny"),
        ]
    );
    // A server-wide rule does not leak to a server whose name it prefixes.
    let prefix = PermissionContext::new(
        PermissionMode::Default,
        rules(&[(RuleBehavior::Deny, "mcp__ot")]),
        cwd,
        Path::new("/nonexistent-home"),
        &[],
    );
    assert_eq!(decide(&prefix, &tool(&m, "mcp__other__echo")), "ask");
    // Plan mode: readOnlyHint tools may run (if allowed), others are denied.
    let plan = PermissionContext::new(
        PermissionMode::Plan,
        rules(&[(RuleBehavior::Allow, "mcp__other")]),
        cwd,
        Path::new("/nonexistent-home"),
        &[],
    );
    assert_eq!(
        (
            decide(&plan, &tool(&m, "mcp__other__echo")),
            decide(&plan, &tool(&m, "mcp__other__sleep"))
        ),
        ("allow", "deny")
    );
    // Allow globs are only accepted after `mcp__<server>__`.
    let mut set = RuleSet::new();
    let err = set
        .add(&RuleSource::named("cliArg"), RuleBehavior::Allow, "mcp__*")
        .unwrap_err();
    assert_eq!(
        err.message,
        "allow rules accept a tool-name wildcard only after `mcp__<server>__`"
    );
}

#[tokio::test]
async fn an_mcp_tool_answers_permission_prompts() {
    let s = Scratch::new();
    let m = McpManager::connect(
        &config(vec![stdio("perm", &["--name", "judge"])]),
        s.options(),
        &no_env,
    )
    .await;
    let prompt = PermissionPromptTool::new(&m, "mcp__perm__permission").unwrap();
    let never = CancellationToken::new();
    let input = json!({"file_path": "/tmp/x", "content": "hi"});
    assert_eq!(
        prompt.ask("Write", &input, "toolu_1", &never).await,
        Ok(PromptDecision::Allow {
            updated_input: json!({"file_path": "/tmp/x", "content": "hi", "approved_by": "judge", "tool_use_id": "toolu_1"}),
            updated_permissions: vec![],
        })
    );
    assert_eq!(
        prompt
            .ask("Bash", &json!({"command": "rm -rf /"}), "toolu_2", &never)
            .await,
        Ok(PromptDecision::Deny {
            message: "no shell today".into(),
            interrupt: false,
        })
    );
    assert_eq!(
        prompt.ask("Garbage", &Value::Null, "toolu_3", &never).await,
        Err(PermissionPromptError::Malformed {
            tool: "mcp__perm__permission".into(),
            problem: "not JSON (expected value at line 1 column 1)".into(),
            answer: "certainly!".into(),
        })
    );
    assert_eq!(
        PermissionPromptError::Malformed {
            tool: "t".into(),
            problem: "p".into(),
            answer: "a".into()
        }
        .to_string(),
        "permission prompt tool t gave an invalid answer: p. Expected {\"behavior\":\"allow\",\"updatedInput\":{...}} or {\"behavior\":\"deny\",\"message\":\"...\"}; got: a"
    );
    assert_eq!(
        PermissionPromptTool::new(&m, "Bash").unwrap_err(),
        PermissionPromptError::NotAnMcpTool("Bash".into())
    );
    let missing = PermissionPromptTool::new(&m, "mcp__perm__nope").unwrap();
    assert_eq!(
        missing.ask("Write", &input, "toolu_4", &never).await,
        Err(PermissionPromptError::NotFound {
            tool: "mcp__perm__nope".into()
        })
    );
}
