//! The MCP servers a client passes to `session/new` (ACP's `McpServer[]`:
//! stdio, `http`, `sse`, with `env` and `headers` as name/value lists) as
//! the `--mcp-config` object tack reads (`{"mcpServers": {name: …}}`).

use serde_json::{Map, Value, json};

/// `None` when the client passes none.
pub fn mcp_config(servers: &Value) -> Option<String> {
    let servers = servers.as_array().filter(|s| !s.is_empty())?;
    let mut config = Map::new();
    for server in servers {
        let Some(name) = server.get("name").and_then(Value::as_str) else {
            continue;
        };
        let entry = match server.get("type").and_then(Value::as_str) {
            Some(kind @ ("http" | "sse")) => json!({
                "type": kind,
                "url": server.get("url").cloned().unwrap_or(Value::Null),
                "headers": pairs(server.get("headers")),
            }),
            _ => json!({
                "command": server.get("command").cloned().unwrap_or(Value::Null),
                "args": server.get("args").cloned().unwrap_or_else(|| json!([])),
                "env": pairs(server.get("env")),
            }),
        };
        config.insert(name.to_owned(), entry);
    }
    Some(json!({"mcpServers": config}).to_string())
}

/// `[{"name": "A", "value": "1"}]` → `{"A": "1"}`.
fn pairs(list: Option<&Value>) -> Value {
    let list = list.and_then(Value::as_array).into_iter().flatten();
    list.filter_map(|pair| {
        let name = pair.get("name")?.as_str()?;
        Some((name.to_owned(), pair.get("value")?.clone()))
    })
    .collect::<Map<_, _>>()
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn stdio_and_http_servers_become_tacks_config() {
        let servers = json!([
            {"name": "fs", "command": "/bin/mcp-fs", "args": ["--root", "/r"],
             "env": [{"name": "TOKEN", "value": "t"}]},
            {"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp",
             "headers": [{"name": "Authorization", "value": "Bearer x"}]},
        ]);
        let config: Value = serde_json::from_str(&mcp_config(&servers).unwrap()).unwrap();
        assert_eq!(
            config,
            json!({"mcpServers": {
                "fs": {"command": "/bin/mcp-fs", "args": ["--root", "/r"], "env": {"TOKEN": "t"}},
                "web": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                        "headers": {"Authorization": "Bearer x"}},
            }})
        );
        assert_eq!(mcp_config(&json!([])), None);
    }
}
