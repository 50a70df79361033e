//! The test MCP server (rmcp), shared by the stdio fixture binary and the
//! HTTP tests (which include this file with `#[path]`).
//!
//! Tools: `echo`, `add` (structured content), `image`, `fail` (isError),
//! `sleep`, `wait_for_cancel` / `cancellations` (notifications/cancelled),
//! `progress`, `crash` (the process exits mid-call), `add_tool`
//! (tools/list_changed), `pid`, `spawn_grandchild`, `mixed` (audio, links,
//! embedded resources, an SVG), `env`, `argv`, `big`, `permission` (a
//! --permission-prompt-tool). Resources: `fixture://greeting`,
//! `fixture://logo`, `fixture://data`. Prompt: `review {file, focus?}`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// A 1×1 red PNG.
pub const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A few bytes of "audio".
pub const WAV_BASE64: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAESsAACJWAAACABAAZGF0YQAAAAA=";

/// State shared by every session of one server process.
#[derive(Debug, Default)]
pub struct FixtureState {
    extra_tools: Mutex<Vec<String>>,
    /// Tools listed with an `inputSchema` that is not an object schema.
    bad_schema_tools: Vec<String>,
    cancellations: AtomicUsize,
}

impl FixtureState {
    /// A server that also lists `extra` (answering like a tool added at run
    /// time) and `bad_schema` (with `{"type": "string"}` as input schema).
    pub fn with_tools(extra: Vec<String>, bad_schema: Vec<String>) -> FixtureState {
        FixtureState {
            extra_tools: Mutex::new(extra),
            bad_schema_tools: bad_schema,
            cancellations: AtomicUsize::new(0),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Fixture {
    state: Arc<FixtureState>,
    name: String,
}

impl Fixture {
    pub fn new(state: Arc<FixtureState>, name: &str) -> Fixture {
        Fixture {
            state,
            name: name.to_string(),
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

fn tool(
    name: &str,
    description: &str,
    properties: Value,
    required: &[&str],
    read_only: bool,
) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": required},
        "annotations": {"readOnlyHint": read_only},
    })
}

fn text(t: impl Into<String>) -> Value {
    json!({"type": "text", "text": t.into()})
}

fn ok(content: Vec<Value>) -> Value {
    json!({"content": content})
}

impl Fixture {
    fn tool_list(&self) -> Vec<Value> {
        let mut tools = vec![
            tool(
                "echo",
                "Echoes the text back",
                json!({"text": {"type": "string"}}),
                &["text"],
                true,
            ),
            tool(
                "add",
                "Adds two numbers",
                json!({"a": {"type": "number"}, "b": {"type": "number"}}),
                &["a", "b"],
                true,
            ),
            tool("image", "Returns a tiny red image", json!({}), &[], true),
            tool(
                "fail",
                "Always fails",
                json!({"message": {"type": "string"}}),
                &[],
                false,
            ),
            tool(
                "sleep",
                "Waits ms milliseconds",
                json!({"ms": {"type": "number"}}),
                &["ms"],
                false,
            ),
            tool(
                "wait_for_cancel",
                "Waits until cancelled",
                json!({}),
                &[],
                false,
            ),
            tool(
                "cancellations",
                "Counts cancelled calls",
                json!({}),
                &[],
                true,
            ),
            tool(
                "progress",
                "Reports progress",
                json!({"steps": {"type": "number"}}),
                &["steps"],
                false,
            ),
            tool("crash", "Exits the server process", json!({}), &[], false),
            tool(
                "add_tool",
                "Adds a tool",
                json!({"name": {"type": "string"}}),
                &["name"],
                false,
            ),
            tool("pid", "The server's process id", json!({}), &[], true),
            tool(
                "spawn_grandchild",
                "Starts a long sleep and returns its pid",
                json!({}),
                &[],
                false,
            ),
            tool(
                "mixed",
                "Returns every kind of content",
                json!({}),
                &[],
                true,
            ),
            tool(
                "env",
                "Reads an environment variable",
                json!({"name": {"type": "string"}}),
                &["name"],
                true,
            ),
            tool("argv", "The server's arguments", json!({}), &[], true),
            tool(
                "big",
                "Returns many characters",
                json!({"chars": {"type": "number"}}),
                &["chars"],
                true,
            ),
            tool(
                "permission",
                "Answers permission prompts",
                json!({"tool_name": {"type": "string"}, "input": {"type": "object"}, "tool_use_id": {"type": "string"}}),
                &["tool_name", "input"],
                false,
            ),
        ];
        let extra = self
            .state
            .extra_tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        tools.extend(
            extra
                .iter()
                .map(|n| tool(n, "A tool added at run time", json!({}), &[], true)),
        );
        tools.extend(self.state.bad_schema_tools.iter().map(|n| {
            json!({"name": n, "description": "A broken schema", "inputSchema": {"type": "string"}})
        }));
        tools
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let arg = |k: &str| args.get(k).cloned().unwrap_or(Value::Null);
        let name = request.name.to_string();
        Ok(match name.as_str() {
            "echo" => ok(vec![text(arg("text").as_str().unwrap_or_default())]),
            "add" => {
                let sum = arg("a").as_f64().unwrap_or(0.0) + arg("b").as_f64().unwrap_or(0.0);
                json!({"content": [text(sum.to_string())], "structuredContent": {"sum": sum}})
            }
            "image" => ok(vec![
                text("a red pixel"),
                json!({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}),
            ]),
            "fail" => json!({
                "content": [text(arg("message").as_str().unwrap_or("it failed"))],
                "isError": true,
            }),
            "sleep" => {
                let ms = arg("ms").as_u64().unwrap_or(0);
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(ms)) => ok(vec![text(format!("slept {ms} ms"))]),
                    () = context.ct.cancelled() => {
                        self.state.cancellations.fetch_add(1, Ordering::SeqCst);
                        ok(vec![text("cancelled")])
                    }
                }
            }
            "wait_for_cancel" => {
                context.ct.cancelled().await;
                self.state.cancellations.fetch_add(1, Ordering::SeqCst);
                ok(vec![text("cancelled")])
            }
            "cancellations" => ok(vec![text(
                self.state.cancellations.load(Ordering::SeqCst).to_string(),
            )]),
            "progress" => {
                let steps = arg("steps").as_u64().unwrap_or(1);
                if let Some(token) = context.meta.get_progress_token() {
                    for i in 1..=steps {
                        let param: ProgressNotificationParam = parse(json!({
                            "progressToken": token,
                            "progress": i,
                            "total": steps,
                            "message": format!("step {i}"),
                        }))?;
                        let _ = context.peer.notify_progress(param).await;
                    }
                }
                ok(vec![text("done")])
            }
            "crash" => {
                eprintln!("fixture: crashing on purpose");
                std::process::exit(3);
            }
            "add_tool" => {
                let new = arg("name").as_str().unwrap_or("extra").to_string();
                self.state
                    .extra_tools
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(new.clone());
                let _ = context.peer.notify_tool_list_changed().await;
                ok(vec![text(format!("added {new}"))])
            }
            "pid" => ok(vec![text(std::process::id().to_string())]),
            "spawn_grandchild" => {
                let child = std::process::Command::new("sleep")
                    .arg("300")
                    .spawn()
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                ok(vec![text(child.id().to_string())])
            }
            "mixed" => ok(vec![
                json!({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}),
                json!({"type": "resource_link", "uri": "fixture://greeting", "name": "greeting", "mimeType": "text/plain", "description": "A greeting"}),
                json!({"type": "resource", "resource": {"uri": "fixture://note", "mimeType": "text/plain", "text": "embedded note"}}),
                json!({"type": "resource", "resource": {"uri": "fixture://data", "mimeType": "application/octet-stream", "blob": "AAEC"}}),
                json!({"type": "image", "data": "PHN2Zy8+", "mimeType": "image/svg+xml"}),
            ]),
            "env" => {
                let key = arg("name").as_str().unwrap_or_default().to_string();
                ok(vec![text(
                    std::env::var(&key).unwrap_or_else(|_| "(unset)".into()),
                )])
            }
            "argv" => ok(vec![text(
                std::env::args().skip(1).collect::<Vec<_>>().join(" "),
            )]),
            "big" => ok(vec![text(
                "x".repeat(arg("chars").as_u64().unwrap_or(0) as usize),
            )]),
            "permission" => {
                let tool_name = arg("tool_name").as_str().unwrap_or_default().to_string();
                let answer = match tool_name.as_str() {
                    "Garbage" => "certainly!".to_string(),
                    t if t.contains("Bash") => {
                        json!({"behavior": "deny", "message": "no shell today"}).to_string()
                    }
                    _ => {
                        let mut input = arg("input");
                        if let Some(map) = input.as_object_mut() {
                            map.insert("approved_by".into(), json!(self.name));
                            map.insert("tool_use_id".into(), arg("tool_use_id"));
                        }
                        json!({"behavior": "allow", "updatedInput": input}).to_string()
                    }
                };
                ok(vec![text(answer)])
            }
            other => {
                let known = self
                    .state
                    .extra_tools
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .iter()
                    .any(|n| n == other);
                if !known {
                    return Err(ErrorData::invalid_params(
                        format!("unknown tool {other}"),
                        None,
                    ));
                }
                ok(vec![text(format!("dynamic {other}"))])
            }
        })
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_prompts()
            .build();
        let mut info = ServerConfig::new(capabilities)
            .with_instructions(format!("The {} fixture server.", self.name));
        info.server_info.name = self.name.clone();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        parse(json!({"tools": self.tool_list()}))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let value = self.call(request, context).await?;
        let result: CallToolResult = parse(value)?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        parse(json!({"resources": [
            {"uri": "fixture://greeting", "name": "greeting", "mimeType": "text/plain", "description": "A greeting"},
            {"uri": "fixture://logo", "name": "logo", "mimeType": "image/png"},
            {"uri": "fixture://data", "name": "data", "mimeType": "application/octet-stream"},
        ]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = match request.uri.as_str() {
            "fixture://greeting" => {
                json!([{"uri": request.uri, "mimeType": "text/plain", "text": format!("hello from {}", self.name)}])
            }
            "fixture://logo" => {
                json!([{"uri": request.uri, "mimeType": "image/png", "blob": PNG_BASE64}])
            }
            "fixture://data" => {
                json!([{"uri": request.uri, "mimeType": "application/octet-stream", "blob": "AAEC"}])
            }
            other => {
                return Err(ErrorData::resource_not_found(
                    format!("no resource {other}"),
                    None,
                ));
            }
        };
        let result: ReadResourceResult = parse(json!({"contents": contents}))?;
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        parse(json!({"prompts": [{
            "name": "review",
            "description": "Review a file",
            "arguments": [
                {"name": "file", "description": "The file to review", "required": true},
                {"name": "focus", "description": "What to look at"},
            ],
        }]}))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "review" {
            return Err(ErrorData::invalid_params(
                format!("no prompt {}", request.name),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let get = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let Some(file) = get("file") else {
            return Err(ErrorData::invalid_params("missing argument file", None));
        };
        let focus = get("focus").unwrap_or_else(|| "everything".into());
        let result: GetPromptResult = parse(json!({
            "description": "Review a file",
            "messages": [
                {"role": "user", "content": text(format!("Please review {file}, focusing on {focus}."))},
                {"role": "assistant", "content": text(format!("I will review {file}."))},
            ],
        }))?;
        Ok(result.into())
    }
}
