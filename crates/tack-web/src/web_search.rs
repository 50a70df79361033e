//! WebSearch: a client tool whose call is a model request carrying Anthropic's
//! server-side `web_search` tool. The API runs the searches and streams
//! `server_tool_use` / `web_search_tool_result` blocks and a cited summary; the
//! tool returns that summary with its sources for the main model.

use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_api::ModelClient;
use tack_protocol::{Message, MessagesRequest, StopReason, SystemPrompt};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::search_report::Report;
use crate::{WebSearchConfig, model_call, tool_input};

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WebSearchInput {
    /// The search query to use
    #[schemars(length(min = 2))]
    query: String,
    /// Only include search results from these domains
    allowed_domains: Option<Vec<String>>,
    /// Never include search results from these domains
    blocked_domains: Option<Vec<String>>,
}

const DESCRIPTION: &str = "Searches the web and returns results to inform your answers.

- Use it for information beyond your training data: recent events, current versions, documentation that may have changed.
- Returns the search results as a list of sources (titles and links) with a summary drawn from them.
- `allowed_domains` limits results to those domains; `blocked_domains` excludes domains. Use one or the other, not both.
- After answering from the results, you MUST list the sources you used as markdown links, e.g. [Title](https://example.com).
- Use the current year in queries about recent information.";

const SYSTEM: &str = "You run web searches with the web_search tool and report what they find, citing the results you use.";

/// The WebSearch tool; see [`WebSearchTool::new`].
pub struct WebSearchTool {
    client: Arc<dyn ModelClient>,
    model: String,
    config: WebSearchConfig,
}

// By hand: the model client is a trait object without `Debug`.
impl std::fmt::Debug for WebSearchTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebSearchTool")
            .field("model", &self.model)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl WebSearchTool {
    /// `client` sends the search request, with `model` (Claude Code uses the
    /// session's main model here; any model the provider offers web search on).
    pub fn new(
        client: Arc<dyn ModelClient>,
        model: impl Into<String>,
        config: WebSearchConfig,
    ) -> Self {
        WebSearchTool {
            client,
            model: model.into(),
            config,
        }
    }

    /// The server tool definition for `input`.
    fn server_tool(&self, input: &WebSearchInput) -> Value {
        let mut tool = json!({
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": self.config.max_uses,
        });
        let lists = [
            ("allowed_domains", &input.allowed_domains),
            ("blocked_domains", &input.blocked_domains),
        ];
        for (key, list) in lists {
            if let Some(domains) = list.as_ref().filter(|d| !d.is_empty()) {
                tool[key] = json!(domains);
            }
        }
        tool
    }

    async fn run(&self, input: WebSearchInput, ctx: &ToolContext) -> ToolResult {
        let started = Instant::now();
        let mut request = MessagesRequest::new(
            &self.model,
            self.config.max_tokens,
            vec![Message::user_text(format!(
                "Perform a web search for the query: {}",
                input.query
            ))],
        );
        request.system = Some(SystemPrompt::Text(SYSTEM.into()));
        // `ToolDefinition` describes client tools (it has an `input_schema`); a
        // server tool is a different shape, so this request's whole `tools` array
        // goes through the pass-through fields.
        request
            .extra
            .insert("tools".into(), json!([self.server_tool(&input)]));

        let mut blocks = Vec::new();
        for _ in 0..=self.config.max_continuations {
            let response = model_call::complete(
                self.client.as_ref(),
                request.clone(),
                ctx.cancel.child_token(),
            )
            .await
            .map_err(|e| ToolError::new(format!("Web search failed: {e}")))?;
            blocks.extend(response.content.iter().cloned());
            // `pause_turn`: the server's search loop stopped early; sending its
            // content back as the assistant turn lets it carry on.
            if response.stop_reason != Some(StopReason::PauseTurn) {
                break;
            }
            request.messages.push(Message::assistant(response.content));
        }

        let report = Report::from_blocks(&blocks);
        let text = report.to_model_text(&input.query).map_err(ToolError::new)?;
        Ok(ToolOutput::text(text).with_structured(json!({
            "query": input.query,
            "results": report.results_json(),
            "durationSeconds": started.elapsed().as_secs_f64(),
        })))
    }
}

impl Tool for WebSearchTool {
    fn name(&self) -> &str {
        "WebSearch"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/web_search.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: WebSearchInput = tool_input::parse(self.name(), input)?;
        if input.query.trim().chars().count() < 2 {
            return Err(ToolError::new("`query` must have at least 2 characters."));
        }
        let given = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|d| !d.is_empty());
        if given(&input.allowed_domains) && given(&input.blocked_domains) {
            return Err(ToolError::new(
                "Cannot use both allowed_domains and blocked_domains in one search: give one or the other.",
            ));
        }
        Ok(())
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: WebSearchInput = tool_input::parse(self.name(), &input)?;
            self.run(input, ctx).await
        }
        .boxed()
    }
}
