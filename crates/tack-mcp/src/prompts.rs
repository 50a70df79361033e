//! MCP prompts, for `/mcp__<server>__<prompt>` commands.

use std::collections::BTreeMap;
use std::path::Path;

use rmcp::model::{GetPromptRequestParams, Role};
use serde_json::Value;
use tack_protocol::ContentBlock;

use crate::McpError;
use crate::manager::McpManager;
use crate::names::normalize_name;
use crate::result::{OutputFiles, convert_block};

/// A prompt a server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpPrompt {
    pub server: String,
    pub name: String,
    /// The slash command: `mcp__<server>__<prompt>` (normalised like tool names).
    pub command: String,
    pub description: Option<String>,
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    pub name: String,
    pub description: Option<String>,
    pub required: bool,
}

/// Who says a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptRole {
    User,
    Assistant,
}

/// One message of a fetched prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptTurn {
    pub role: PromptRole,
    pub content: Vec<ContentBlock>,
}

impl McpPrompt {
    /// Maps the text after the command to the arguments, Claude Code's way:
    /// words split on whitespace, in the order the server lists the arguments;
    /// the last argument takes the rest of the text. Missing required
    /// arguments are an error naming them.
    pub fn arguments_from_text(&self, text: &str) -> Result<BTreeMap<String, String>, String> {
        let mut words = text.split_whitespace();
        let mut out = BTreeMap::new();
        for (i, arg) in self.arguments.iter().enumerate() {
            let value = if i + 1 == self.arguments.len() {
                let rest: Vec<&str> = words.by_ref().collect();
                (!rest.is_empty()).then(|| rest.join(" "))
            } else {
                words.next().map(str::to_string)
            };
            match value {
                Some(v) => {
                    out.insert(arg.name.clone(), v);
                }
                None if arg.required => {
                    let usage: Vec<String> = self
                        .arguments
                        .iter()
                        .map(|a| {
                            if a.required {
                                format!("<{}>", a.name)
                            } else {
                                format!("[{}]", a.name)
                            }
                        })
                        .collect();
                    return Err(format!(
                        "/{} needs the argument `{}`; usage: /{} {}",
                        self.command,
                        arg.name,
                        self.command,
                        usage.join(" ")
                    ));
                }
                None => {}
            }
        }
        Ok(out)
    }
}

impl McpManager {
    /// The prompts of every connected server that offers prompts.
    pub async fn list_prompts(&self) -> Vec<McpPrompt> {
        let mut out = Vec::new();
        for (server, connection) in self.connections() {
            if connection.capabilities.prompts.is_none() {
                continue;
            }
            // A server that fails to list simply contributes no commands.
            let Ok(prompts) = connection.target.peer.list_all_prompts().await else {
                continue;
            };
            out.extend(prompts.into_iter().map(|p| {
                McpPrompt {
                    command: format!(
                        "mcp__{}__{}",
                        normalize_name(&server),
                        normalize_name(&p.name)
                    ),
                    server: server.clone(),
                    name: p.name,
                    description: p.description,
                    arguments: p
                        .arguments
                        .unwrap_or_default()
                        .into_iter()
                        .map(|a| PromptArgument {
                            name: a.name,
                            description: a.description,
                            required: a.required.unwrap_or(false),
                        })
                        .collect(),
                }
            }));
        }
        out
    }

    /// `prompts/get`: the prompt's messages with `arguments` filled in.
    /// Binary content is saved under `files_dir` (see [`crate::ReadMcpResourceTool`]).
    pub async fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        arguments: &BTreeMap<String, String>,
        files_dir: &Path,
    ) -> Result<Vec<PromptTurn>, McpError> {
        let target = self.target(server)?;
        let args: serde_json::Map<String, Value> = arguments
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let result = target
            .peer
            .get_prompt(GetPromptRequestParams::new(prompt).with_arguments(args))
            .await
            .map_err(|e| {
                McpError::Request(format!(
                    "MCP server \"{server}\" could not get prompt \"{prompt}\": {e}"
                ))
            })?;
        let files = OutputFiles::new(files_dir, &format!("prompt-{}", normalize_name(prompt)));
        Ok(result
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| PromptTurn {
                role: match m.role {
                    Role::User => PromptRole::User,
                    Role::Assistant => PromptRole::Assistant,
                },
                content: vec![convert_block(&m.content, i, &files)],
            })
            .collect())
    }
}
