//! MCP resources: Claude Code's `ListMcpResourcesTool` and
//! `ReadMcpResourceTool`, and `@server:uri` mentions in a prompt.

use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};
use tack_protocol::ContentBlock;
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::McpError;
use crate::manager::{McpManager, Shared};
use crate::result::{OutputFiles, resource_block, save_described};

/// A resource a server lists, with the server's name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpResource {
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub server: String,
}

impl McpManager {
    /// Resources of `server`, or of every connected server that offers
    /// resources. A server that fails to list is an error only when it was
    /// asked for by name.
    pub async fn list_resources(&self, server: Option<&str>) -> Result<Vec<McpResource>, McpError> {
        let targets = match server {
            Some(name) => vec![(name.to_string(), self.target(name)?)],
            None => self
                .connections()
                .into_iter()
                .filter(|(_, c)| c.capabilities.resources.is_some())
                .map(|(name, c)| (name, Arc::clone(&c.target)))
                .collect(),
        };
        let mut out = Vec::new();
        for (name, target) in targets {
            match target.peer.list_all_resources().await {
                Ok(resources) => out.extend(resources.into_iter().map(|r| McpResource {
                    uri: r.uri.clone(),
                    name: r.name.clone(),
                    mime_type: r.mime_type.clone(),
                    description: r.description.clone(),
                    server: name.clone(),
                })),
                Err(e) if server.is_some() => {
                    return Err(McpError::Request(format!(
                        "MCP server \"{name}\" could not list its resources: {e}"
                    )));
                }
                Err(_) => {}
            }
        }
        Ok(out)
    }

    /// `resources/read` on `server`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Vec<ResourceContents>, McpError> {
        let target = self.target(server)?;
        target
            .peer
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .map(|r| r.contents)
            .map_err(|e| {
                McpError::Request(format!("MCP server \"{server}\" could not read {uri}: {e}"))
            })
    }

    /// The resource tools, while any server is configured (they answer with
    /// an error naming the servers when none is connected).
    pub fn resource_tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![
            Arc::new(ListMcpResourcesTool {
                manager: self.downgrade(),
            }),
            Arc::new(ReadMcpResourceTool {
                manager: self.downgrade(),
            }),
        ]
    }

    /// Reads every `@server:uri` mention of `prompt` whose `server` is a
    /// connected server, in order of appearance (each mention once).
    pub async fn resolve_mentions(
        &self,
        prompt: &str,
        files: &std::path::Path,
    ) -> Vec<ResourceMention> {
        let connected = self.connected_names();
        let mut out: Vec<ResourceMention> = Vec::new();
        for (server, uri) in find_mentions(prompt, &connected) {
            if out.iter().any(|m| m.server == server && m.uri == uri) {
                continue;
            }
            let contents = self.read_resource(&server, &uri).await;
            let stem = format!("mention-{}", out.len());
            let output = OutputFiles::new(files, &stem);
            let result = contents.map(|contents| {
                contents
                    .iter()
                    .enumerate()
                    .map(|(i, c)| resource_block(c, i, &output))
                    .collect()
            });
            out.push(ResourceMention {
                server,
                uri,
                content: result,
            });
        }
        out
    }
}

/// One `@server:uri` mention and what reading it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceMention {
    pub server: String,
    pub uri: String,
    /// The resource as content blocks (text, or image / description for blobs).
    pub content: Result<Vec<ContentBlock>, McpError>,
}

impl ResourceMention {
    /// Blocks to attach to the user message: the content inside an
    /// `<mcp-resource>` frame, or a note saying why it could not be read.
    pub fn to_blocks(&self) -> Vec<ContentBlock> {
        let head = format!(
            "<mcp-resource server=\"{}\" uri=\"{}\">",
            self.server, self.uri
        );
        match &self.content {
            Ok(blocks) => {
                let mut out = vec![ContentBlock::text(head)];
                out.extend(blocks.iter().cloned());
                out.push(ContentBlock::text("</mcp-resource>"));
                out
            }
            Err(e) => vec![ContentBlock::text(format!(
                "{head}\nThe resource could not be read: {e}\n</mcp-resource>"
            ))],
        }
    }
}

/// `@server:uri` tokens: `@` at the start or after whitespace, a name of a
/// connected server, `:`, and a URI running to the next whitespace (trailing
/// `.,;:!?)` are punctuation, not part of it).
pub fn find_mentions(prompt: &str, servers: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for word in prompt.split_whitespace() {
        let Some(rest) = word.strip_prefix('@') else {
            continue;
        };
        let Some((server, uri)) = rest.split_once(':') else {
            continue;
        };
        let uri = uri.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
        if !uri.is_empty() && servers.iter().any(|s| s == server) {
            out.push((server.to_string(), uri.to_string()));
        }
    }
    out
}

fn upgrade(manager: &Weak<Shared>) -> Result<McpManager, ToolError> {
    McpManager::upgrade(manager).ok_or_else(|| ToolError::new(McpError::ShutDown.to_string()))
}

/// `ListMcpResourcesTool {server?}`: the resources of the connected servers.
pub struct ListMcpResourcesTool {
    manager: Weak<Shared>,
}

impl Tool for ListMcpResourcesTool {
    fn name(&self) -> &str {
        "ListMcpResourcesTool"
    }

    fn description(&self) -> String {
        "Lists available resources from configured MCP servers.\n\
         Each resource object includes a 'server' field indicating which server it's from.\n\n\
         Usage examples:\n\
         - List all resources from all servers: `listMcpResources`\n\
         - List resources from a specific server: `listMcpResources({ server: \"myserver\" })`"
            .into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "server": {
                    "type": "string",
                    "description": "Optional server name to filter resources by"
                }
            },
            "additionalProperties": false
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        match input.get("server") {
            None | Some(Value::String(_)) => Ok(()),
            Some(_) => Err(ToolError::new(
                "InputValidationError: `server` must be a string",
            )),
        }
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let manager = upgrade(&self.manager)?;
            let server = input.get("server").and_then(Value::as_str);
            let resources = manager
                .list_resources(server)
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            if resources.is_empty() {
                return Ok(ToolOutput::text(
                    "No resources found. MCP servers may still provide tools even if they have no resources.",
                ));
            }
            let value = serde_json::to_value(&resources).unwrap_or_default();
            Ok(
                ToolOutput::text(serde_json::to_string_pretty(&value).unwrap_or_default())
                    .with_structured(value),
            )
        })
    }
}

/// `ReadMcpResourceTool {server, uri}`: one resource's contents as JSON; a
/// blob is saved to a file named in place of its data.
pub struct ReadMcpResourceTool {
    manager: Weak<Shared>,
}

impl Tool for ReadMcpResourceTool {
    fn name(&self) -> &str {
        "ReadMcpResourceTool"
    }

    fn description(&self) -> String {
        "Reads a specific resource from an MCP server, identified by server name and resource URI.\n\n\
         Parameters:\n\
         - server (required): The name of the MCP server from which to read the resource\n\
         - uri (required): The URI of the resource to read"
            .into()
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "server": {"type": "string", "description": "The MCP server name"},
                "uri": {"type": "string", "description": "The resource URI to read"}
            },
            "required": ["server", "uri"],
            "additionalProperties": false
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        for key in ["server", "uri"] {
            if !input.get(key).is_some_and(Value::is_string) {
                return Err(ToolError::new(format!(
                    "InputValidationError: `{key}` is required and must be a string"
                )));
            }
        }
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let manager = upgrade(&self.manager)?;
            let server = input
                .get("server")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let uri = input.get("uri").and_then(Value::as_str).unwrap_or_default();
            let contents = manager
                .read_resource(server, uri)
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            let files = OutputFiles::new(ctx.env.session_dir(), &ctx.tool_use_id);
            let items: Vec<Value> = contents
                .iter()
                .enumerate()
                .map(|(i, c)| content_json(c, i, &files))
                .collect();
            let value = json!({"contents": items});
            Ok(
                ToolOutput::text(serde_json::to_string_pretty(&value).unwrap_or_default())
                    .with_structured(value),
            )
        })
    }
}

/// A resource's contents as Claude Code shows them; blobs replaced by where
/// they were saved.
fn content_json(content: &ResourceContents, index: usize, files: &OutputFiles) -> Value {
    match content {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => json!({"uri": uri, "mimeType": mime_type, "text": text}),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => {
            let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
            let described = save_described(&format!("Resource {uri}"), mime, blob, index, files);
            json!({"uri": uri, "mimeType": mime_type, "blob": described})
        }
        other => json!({"unsupported": serde_json::to_value(other).unwrap_or_default()}),
    }
}
