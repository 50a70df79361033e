//! `initialize.sdkMcpServerConfigs` (the TypeScript SDK): what the host
//! declares of each in-process server, keyed by server name:
//!
//! ```json
//! {"calc": {"timeout": 5000,
//!           "tools": [{"name": "wipe", "permission_policy": "always_deny"},
//!                     {"name": "add", "permission_policy": "always_ask"}]}}
//! ```
//!
//! As Claude Code reads it: only servers named in `sdkMcpServers` count; a
//! `timeout` (ms) under 1,000 is ignored; `always_ask` asks the host before
//! each call even where a rule or the mode would allow it, `always_deny`
//! denies; `always_allow` takes no effect on sdk servers (allow with
//! `allowedTools` or `canUseTool`); a policy that is none of the three asks;
//! an entry without a string `name` is dropped; `tools` that is not a list
//! states no policy. Values of the wrong shape are ignored, never refused.

use serde_json::Value;
use tack_mcp::names::tool_name;
use tack_runtime::{SdkBridge, SdkToolPolicy};

/// Applies `configs` for the `servers` the SDK registered: timeouts go to the
/// bridge, tool policies to `policy`.
pub fn apply(
    configs: &Value,
    servers: &[String],
    bridge: Option<&SdkBridge>,
    policy: &mut SdkToolPolicy,
) {
    let Some(configs) = configs.as_object() else {
        return;
    };
    for (server, config) in configs {
        if !servers.contains(server) {
            continue;
        }
        if let (Some(bridge), Some(timeout)) = (bridge, tack_mcp::tool_timeout(config)) {
            bridge.set_tool_timeout(server, timeout);
        }
        let Some(tools) = config.get("tools").and_then(Value::as_array) else {
            continue;
        };
        for entry in tools {
            let Some(tool) = entry.get("name").and_then(Value::as_str) else {
                continue;
            };
            let name = tool_name(server, tool);
            match entry.get("permission_policy") {
                None | Some(Value::Null) => {}
                Some(p) if p == "always_allow" => {}
                Some(p) if p == "always_deny" => policy.always_deny.push(name),
                Some(_) => policy.always_ask.push(name),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn policies_become_tool_names_and_odd_entries_are_read_as_claude_code_reads_them() {
        let mut policy = SdkToolPolicy::default();
        let configs = json!({
            "calc": {"tools": [
                {"name": "wipe", "permission_policy": "always_deny"},
                {"name": "add", "permission_policy": "always_ask"},
                {"name": "mul", "permission_policy": "always_allow"},
                {"name": "div", "permission_policy": "sometimes"},
                {"name": "sub"},
                {"permission_policy": "always_deny"},
                {"name": 7, "permission_policy": "always_deny"},
            ]},
            "notes": {"tools": {"name": "read", "permission_policy": "always_deny"}},
            "unregistered": {"tools": [{"name": "x", "permission_policy": "always_deny"}]},
            "my.server": {"tools": [{"name": "a b", "permission_policy": "always_deny"}]},
        });
        let servers = ["calc", "notes", "my.server"].map(String::from);
        apply(&configs, &servers, None, &mut policy);
        assert_eq!(
            policy,
            SdkToolPolicy {
                always_ask: vec!["mcp__calc__add".into(), "mcp__calc__div".into()],
                always_deny: vec!["mcp__calc__wipe".into(), "mcp__my_server__a_b".into()],
            }
        );
    }
}
