//! One server entry of an `mcpServers` object, in Claude Code's format:
//!
//! ```json
//! {"type": "stdio", "command": "mcp-fs", "args": ["--root", "."], "env": {"LOG": "warn"}}
//! {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
//! {"type": "sse", "url": "https://old.example.com/sse"}
//! {"type": "sdk", "name": "calc"}
//! ```
//!
//! `sdk` is a server the Agent SDK runs in its own process
//! (`create_sdk_mcp_server` / `createSdkMcpServer`), reached over the control
//! protocol (`crate::transport::sdk`); only an SDK session can serve it.
//!
//! `type` is optional for stdio; an entry with a `url` but no `type` is invalid
//! (Claude Code's `url_missing_type`). `timeout` (ms, any type) is the
//! server's tool-call timeout ([`tool_timeout`]); other keys (`oauth`, ...)
//! are ignored.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tack_protocol::json_kind::kind_of;

use super::expand::{MissingVar, expand};

/// Per-server tool-call timeouts under this many milliseconds are ignored.
const MIN_TOOL_TIMEOUT_MS: f64 = 1_000.0;

/// An entry's `timeout`: its tool calls fail after that many milliseconds
/// instead of `MCP_TOOL_TIMEOUT`. As Claude Code reads it: a number under
/// 1,000 (or not a number) is ignored.
pub fn tool_timeout(entry: &Value) -> Option<Duration> {
    let ms = entry.get("timeout")?.as_f64()?;
    (ms.is_finite() && ms >= MIN_TOOL_TIMEOUT_MS)
        .then(|| Duration::from_secs_f64(ms.min(1e12) / 1e3))
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerConfig {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio(StdioConfig),
    /// Streamable HTTP (one endpoint, POST + optional SSE responses).
    Http(RemoteConfig),
    /// The legacy HTTP+SSE transport (GET an event stream, POST to the endpoint it names).
    Sse(RemoteConfig),
    /// A server in the Agent SDK's process, reached through the session's
    /// [`crate::SdkBridge`]. `name` is the SDK's own name for it (messages are
    /// routed by the entry's key, as both SDKs do).
    Sdk { name: Option<String> },
}

/// A stdio server's command line and extra environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioConfig {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// A remote server's URL and extra request headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteConfig {
    pub url: String,
    pub headers: BTreeMap<String, String>,
}

/// Why an entry cannot be used, with Claude Code's `mcp_server_errors` type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueKind {
    /// `type` names a transport tack does not speak.
    UnknownType,
    /// A `url` without `type`.
    UrlMissingType,
    /// Anything else: missing `command`/`url`, wrong JSON types.
    InvalidConfig,
}

impl IssueKind {
    /// The `type` of an `mcp_server_errors` entry of the init record.
    pub fn as_str(self) -> &'static str {
        match self {
            IssueKind::UnknownType => "unknown_type",
            IssueKind::UrlMissingType => "url_missing_type",
            IssueKind::InvalidConfig => "invalid_config",
        }
    }
}

/// What is wrong with one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryProblem {
    pub kind: IssueKind,
    pub message: String,
}

impl EntryProblem {
    fn invalid(message: impl Into<String>) -> EntryProblem {
        EntryProblem {
            kind: IssueKind::InvalidConfig,
            message: message.into(),
        }
    }
}

impl fmt::Display for EntryProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl ServerConfig {
    /// `stdio`, `http`, `sse` or `sdk`.
    pub fn transport(&self) -> &'static str {
        match self {
            ServerConfig::Stdio(_) => "stdio",
            ServerConfig::Http(_) => "http",
            ServerConfig::Sse(_) => "sse",
            ServerConfig::Sdk { .. } => "sdk",
        }
    }

    /// Reads one entry.
    pub fn from_json(value: &Value) -> Result<ServerConfig, EntryProblem> {
        let Some(obj) = value.as_object() else {
            return Err(EntryProblem::invalid(format!(
                "expected an object, found {}",
                kind_of(value)
            )));
        };
        let kind = match obj.get("type") {
            None => None,
            Some(Value::String(t)) => Some(t.as_str()),
            Some(other) => {
                return Err(EntryProblem::invalid(format!(
                    "`type` must be a string, found {}",
                    kind_of(other)
                )));
            }
        };
        match kind {
            None if obj.contains_key("url") => Err(EntryProblem {
                kind: IssueKind::UrlMissingType,
                message: "has a `url` but no `type`: add \"type\": \"http\" (or \"sse\")".into(),
            }),
            None | Some("stdio") => Ok(ServerConfig::Stdio(StdioConfig {
                command: required_string(obj, "command")?,
                args: string_list(obj, "args")?,
                env: string_map(obj, "env")?,
            })),
            Some("http") => Ok(ServerConfig::Http(remote(obj)?)),
            Some("sse") => Ok(ServerConfig::Sse(remote(obj)?)),
            Some("sdk") => Ok(ServerConfig::Sdk {
                name: match obj.get("name") {
                    None => None,
                    Some(_) => Some(required_string(obj, "name")?),
                },
            }),
            Some(other) => Err(EntryProblem {
                kind: IssueKind::UnknownType,
                message: format!(
                    "unknown transport type `{other}`: tack supports \"stdio\", \"http\", \"sse\" and \"sdk\""
                ),
            }),
        }
    }

    /// The entry as Claude Code writes it (`type` always present; empty `args`,
    /// `env` and `headers` kept, as `claude mcp add` does).
    pub fn to_json(&self) -> Value {
        match self {
            ServerConfig::Stdio(s) => json!({
                "type": "stdio",
                "command": s.command,
                "args": s.args,
                "env": s.env,
            }),
            ServerConfig::Http(r) => json!({"type": "http", "url": r.url, "headers": r.headers}),
            ServerConfig::Sse(r) => json!({"type": "sse", "url": r.url, "headers": r.headers}),
            ServerConfig::Sdk { name: Some(name) } => json!({"type": "sdk", "name": name}),
            ServerConfig::Sdk { name: None } => json!({"type": "sdk"}),
        }
    }

    /// The entry with `${VAR}` / `${VAR:-default}` expanded in `command`, `args`,
    /// `env`, `url` and `headers`. Every unset variable without a default is
    /// returned, not just the first.
    pub fn expand(
        &self,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ServerConfig, Vec<MissingVar>> {
        let mut missing = Vec::new();
        let expanded = match self {
            ServerConfig::Stdio(s) => ServerConfig::Stdio(StdioConfig {
                command: expand(&s.command, "command", lookup, &mut missing),
                args: s
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| expand(a, &format!("args[{i}]"), lookup, &mut missing))
                    .collect(),
                env: s
                    .env
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            expand(v, &format!("env.{k}"), lookup, &mut missing),
                        )
                    })
                    .collect(),
            }),
            ServerConfig::Http(r) => ServerConfig::Http(expand_remote(r, lookup, &mut missing)),
            ServerConfig::Sse(r) => ServerConfig::Sse(expand_remote(r, lookup, &mut missing)),
            ServerConfig::Sdk { .. } => self.clone(),
        };
        if missing.is_empty() {
            Ok(expanded)
        } else {
            Err(missing)
        }
    }

    /// One line for `tack mcp list`: the command line, or the URL and transport.
    pub fn summary(&self) -> String {
        match self {
            ServerConfig::Stdio(s) if s.args.is_empty() => s.command.clone(),
            ServerConfig::Stdio(s) => format!("{} {}", s.command, s.args.join(" ")),
            ServerConfig::Http(r) => format!("{} (HTTP)", r.url),
            ServerConfig::Sse(r) => format!("{} (SSE)", r.url),
            ServerConfig::Sdk { .. } => "in the Agent SDK's process (SDK)".to_owned(),
        }
    }
}

fn expand_remote(
    r: &RemoteConfig,
    lookup: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<MissingVar>,
) -> RemoteConfig {
    RemoteConfig {
        url: expand(&r.url, "url", lookup, missing),
        headers: r
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    expand(v, &format!("headers.{k}"), lookup, missing),
                )
            })
            .collect(),
    }
}

fn remote(obj: &Map<String, Value>) -> Result<RemoteConfig, EntryProblem> {
    Ok(RemoteConfig {
        url: required_string(obj, "url")?,
        headers: string_map(obj, "headers")?,
    })
}

fn required_string(obj: &Map<String, Value>, key: &str) -> Result<String, EntryProblem> {
    match obj.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(EntryProblem::invalid(format!("`{key}` is empty"))),
        Some(other) => Err(EntryProblem::invalid(format!(
            "`{key}` must be a string, found {}",
            kind_of(other)
        ))),
        None => Err(EntryProblem::invalid(format!("missing `{key}`"))),
    }
}

fn string_list(obj: &Map<String, Value>, key: &str) -> Result<Vec<String>, EntryProblem> {
    let Some(value) = obj.get(key) else {
        return Ok(Vec::new());
    };
    let Some(items) = value.as_array() else {
        return Err(EntryProblem::invalid(format!(
            "`{key}` must be an array of strings, found {}",
            kind_of(value)
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(EntryProblem::invalid(format!(
                "`{key}[{i}]` must be a string, found {}",
                kind_of(other)
            ))),
        })
        .collect()
}

fn string_map(
    obj: &Map<String, Value>,
    key: &str,
) -> Result<BTreeMap<String, String>, EntryProblem> {
    let Some(value) = obj.get(key) else {
        return Ok(BTreeMap::new());
    };
    let Some(map) = value.as_object() else {
        return Err(EntryProblem::invalid(format!(
            "`{key}` must be an object of strings, found {}",
            kind_of(value)
        )));
    };
    map.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            other => Err(EntryProblem::invalid(format!(
                "`{key}.{k}` must be a string, found {}",
                kind_of(other)
            ))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn parse(v: Value) -> Result<ServerConfig, EntryProblem> {
        ServerConfig::from_json(&v)
    }

    #[test]
    fn reads_the_three_transports() {
        assert_eq!(
            parse(json!({"command": "mcp-fs", "args": ["--root", "."], "env": {"LOG": "warn"}})),
            Ok(ServerConfig::Stdio(StdioConfig {
                command: "mcp-fs".into(),
                args: vec!["--root".into(), ".".into()],
                env: BTreeMap::from([("LOG".into(), "warn".into())]),
            }))
        );
        assert_eq!(
            parse(json!({"type": "http", "url": "https://x/mcp", "headers": {"A": "b"}})),
            Ok(ServerConfig::Http(RemoteConfig {
                url: "https://x/mcp".into(),
                headers: BTreeMap::from([("A".into(), "b".into())]),
            }))
        );
        assert_eq!(
            parse(json!({"type": "sse", "url": "https://x/sse", "timeout": 5})),
            Ok(ServerConfig::Sse(RemoteConfig {
                url: "https://x/sse".into(),
                headers: BTreeMap::new(),
            }))
        );
    }

    #[test]
    fn explains_bad_entries() {
        let problem = |v: Value| parse(v).unwrap_err();
        assert_eq!(
            problem(json!({"url": "https://x"})),
            EntryProblem {
                kind: IssueKind::UrlMissingType,
                message: "has a `url` but no `type`: add \"type\": \"http\" (or \"sse\")".into()
            }
        );
        assert_eq!(
            problem(json!({"type": "ws", "url": "wss://x"})).kind,
            IssueKind::UnknownType
        );
        assert_eq!(problem(json!({"args": []})).message, "missing `command`");
        assert_eq!(
            problem(json!({"command": "x", "args": "a b"})).message,
            "`args` must be an array of strings, found a string"
        );
        assert_eq!(
            problem(json!({"command": "x", "env": {"A": 1}})).message,
            "`env.A` must be a string, found a number"
        );
        assert_eq!(problem(json!({"type": "http"})).message, "missing `url`");
        assert_eq!(
            problem(json!("npx")).message,
            "expected an object, found a string"
        );
    }

    #[test]
    fn round_trips_through_json() {
        for v in [
            json!({"type": "stdio", "command": "c", "args": ["a"], "env": {"K": "v"}}),
            json!({"type": "http", "url": "u", "headers": {"H": "v"}}),
            json!({"type": "sse", "url": "u", "headers": {}}),
            json!({"type": "sdk", "name": "calc"}),
        ] {
            assert_eq!(parse(v.clone()).unwrap().to_json(), v);
        }
    }

    #[test]
    fn expands_every_field() {
        let lookup = |k: &str| (k == "T").then(|| "tok".to_string());
        let stdio =
            parse(json!({"command": "${T}", "args": ["${T}", "${X:-d}"], "env": {"E": "${T}"}}))
                .unwrap();
        assert_eq!(
            stdio.expand(&lookup).unwrap().to_json(),
            json!({"type": "stdio", "command": "tok", "args": ["tok", "d"], "env": {"E": "tok"}})
        );
        let http =
            parse(json!({"type": "http", "url": "https://${T}/", "headers": {"A": "Bearer ${T}"}}))
                .unwrap();
        assert_eq!(
            http.expand(&lookup).unwrap().to_json(),
            json!({"type": "http", "url": "https://tok/", "headers": {"A": "Bearer tok"}})
        );
        let bad = parse(json!({"type": "sse", "url": "${U}", "headers": {"A": "${V}"}})).unwrap();
        assert_eq!(
            bad.expand(&lookup).unwrap_err(),
            vec![
                MissingVar {
                    field: "url".into(),
                    var: "U".into()
                },
                MissingVar {
                    field: "headers.A".into(),
                    var: "V".into()
                },
            ]
        );
    }

    #[test]
    fn a_timeout_counts_from_one_second() {
        let got: Vec<Option<Duration>> = [
            json!({"timeout": 1500}),
            json!({"timeout": 1000}),
            json!({"timeout": 999}),
            json!({"timeout": "5000"}),
            json!({}),
        ]
        .iter()
        .map(tool_timeout)
        .collect();
        assert_eq!(
            got,
            [
                Some(Duration::from_millis(1500)),
                Some(Duration::from_secs(1)),
                None,
                None,
                None
            ]
        );
    }
}
