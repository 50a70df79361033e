//! Deferring MCP tool definitions behind a `ToolSearch` tool.
//!
//! Claude Code (2.1.7 and later) does not send MCP tool definitions when they
//! would take more than 10 % of the model's context window
//! (`ENABLE_TOOL_SEARCH`: `auto` = 10 %, `auto:N` = N %, `true` = always defer,
//! `false` = never). It sends a `ToolSearch` tool instead; the model searches,
//! and the tools it finds are sent from then on. tack uses the same rule, with
//! `tack_api`'s token estimate of the definitions.
//!
//! Claude Code relies on the API's server-side tool search (definitions sent
//! with `defer_loading: true`, `tool_reference` blocks in the search result).
//! tack keeps it on the client so that it works with any endpoint: deferred
//! definitions are left out of the request, ToolSearch marks the tools it
//! finds as loaded in [`DeferredTools`], and the runtime adds the loaded tools
//! to the definitions of the next request.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_protocol::{MessagesRequest, ToolDefinition};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};
use tokio::sync::watch;

/// The name the model calls the search tool by.
pub const TOOL_SEARCH_NAME: &str = "ToolSearch";

/// `ENABLE_TOOL_SEARCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSearchMode {
    /// Defer when the MCP definitions exceed `percent` % of the context window.
    Auto { percent: u8 },
    /// Always defer MCP tools.
    Always,
    /// Never defer.
    Never,
}

impl ToolSearchMode {
    /// Claude Code's default share of the context window.
    pub const DEFAULT_PERCENT: u8 = 10;

    /// From the value of `ENABLE_TOOL_SEARCH` (`None`: unset).
    pub fn from_env_value(value: Option<&str>) -> ToolSearchMode {
        let auto = ToolSearchMode::Auto {
            percent: ToolSearchMode::DEFAULT_PERCENT,
        };
        let Some(value) = value.map(|v| v.trim().to_ascii_lowercase()) else {
            return auto;
        };
        if let Some(n) = value.strip_prefix("auto:") {
            return match n.trim().parse::<u8>() {
                Ok(percent) => ToolSearchMode::Auto {
                    percent: percent.min(100),
                },
                Err(_) => auto,
            };
        }
        match value.as_str() {
            "1" | "true" | "yes" | "on" => ToolSearchMode::Always,
            "0" | "false" | "no" | "off" => ToolSearchMode::Never,
            _ => auto,
        }
    }
}

/// Whether to defer, and the figures it was decided on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeferralDecision {
    pub defer: bool,
    /// Estimated tokens of the MCP tool definitions.
    pub mcp_tokens: u64,
    /// Estimated tokens of the ToolSearch definition sent instead.
    pub tool_search_tokens: u64,
    /// The limit they were compared with (`Auto` only).
    pub threshold_tokens: Option<u64>,
}

impl DeferralDecision {
    /// Tokens saved per request while deferring (nothing is loaded yet).
    pub fn tokens_saved(&self) -> u64 {
        if self.defer {
            self.mcp_tokens.saturating_sub(self.tool_search_tokens)
        } else {
            0
        }
    }
}

/// Estimated input tokens of these tools' definitions.
pub fn estimate_tool_tokens(tools: &[Arc<dyn Tool>]) -> u64 {
    let mut request = MessagesRequest::new(String::new(), 0, Vec::new());
    request.tools = tools.iter().map(|t| definition(t.as_ref())).collect();
    tack_api::estimate_request(&request)
}

fn definition(tool: &dyn Tool) -> ToolDefinition {
    ToolDefinition {
        name: tool.name().to_string(),
        description: Some(tool.description()),
        input_schema: tool.input_schema(),
        cache_control: None,
    }
}

/// Decides whether `mcp_tools` go behind ToolSearch for a model with
/// `context_window` tokens.
pub fn decide_deferral(
    mode: ToolSearchMode,
    mcp_tools: &[Arc<dyn Tool>],
    context_window: u64,
) -> DeferralDecision {
    let mcp_tokens = estimate_tool_tokens(mcp_tools);
    let search = DeferredTools::new();
    search.set_catalog(mcp_tools.to_vec());
    let tool_search_tokens = estimate_tool_tokens(&[search.tool()]);
    let (defer, threshold_tokens) = match mode {
        ToolSearchMode::Never => (false, None),
        ToolSearchMode::Always => (!mcp_tools.is_empty(), None),
        ToolSearchMode::Auto { percent } => {
            let threshold = context_window * u64::from(percent) / 100;
            (
                !mcp_tools.is_empty() && mcp_tokens > threshold,
                Some(threshold),
            )
        }
    };
    DeferralDecision {
        defer,
        mcp_tokens,
        tool_search_tokens,
        threshold_tokens,
    }
}

/// The deferred tools of a session and which of them ToolSearch has loaded.
///
/// The runtime sets the catalog (the MCP tools, again whenever the manager's
/// generation changes) and, for every request, sends the definitions of
/// [`DeferredTools::loaded`] besides ToolSearch itself. All catalog tools stay
/// callable by name.
pub struct DeferredTools {
    catalog: Mutex<Vec<Arc<dyn Tool>>>,
    /// Loaded names in the order loaded: each is sent after those before it.
    loaded: Mutex<Vec<String>>,
    generation: watch::Sender<u64>,
}

impl std::fmt::Debug for DeferredTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredTools")
            .field("deferred", &self.deferred_names())
            .field("loaded", &*lock(&self.loaded))
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl DeferredTools {
    pub fn new() -> Arc<DeferredTools> {
        Arc::new(DeferredTools {
            catalog: Mutex::new(Vec::new()),
            loaded: Mutex::new(Vec::new()),
            generation: watch::channel(0).0,
        })
    }

    /// Replaces the catalog; loaded names stay loaded while their tool exists.
    pub fn set_catalog(&self, tools: Vec<Arc<dyn Tool>>) {
        *lock(&self.catalog) = tools;
        self.bump();
    }

    /// The ToolSearch tool over this catalog.
    pub fn tool(self: &Arc<Self>) -> Arc<dyn Tool> {
        Arc::new(ToolSearch {
            state: Arc::clone(self),
        })
    }

    /// Catalog tools ToolSearch has loaded, in the order loaded: send their
    /// definitions after the tools already sent (a new one never reorders
    /// the ones before it, which the prompt cache holds).
    pub fn loaded(&self) -> Vec<Arc<dyn Tool>> {
        let catalog = lock(&self.catalog);
        lock(&self.loaded)
            .iter()
            .filter_map(|n| catalog.iter().find(|t| t.name() == n))
            .cloned()
            .collect()
    }

    /// Names of every catalog tool, loaded or not, in catalog order.
    pub fn catalog_names(&self) -> Vec<String> {
        lock(&self.catalog)
            .iter()
            .map(|t| t.name().to_string())
            .collect()
    }

    /// Names of catalog tools not loaded yet.
    pub fn deferred_names(&self) -> Vec<String> {
        let loaded = lock(&self.loaded);
        lock(&self.catalog)
            .iter()
            .map(|t| t.name().to_string())
            .filter(|n| !loaded.contains(n))
            .collect()
    }

    /// Goes up when the catalog changes or a tool is loaded.
    pub fn generation(&self) -> u64 {
        *self.generation.borrow()
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    fn bump(&self) {
        self.generation.send_modify(|g| *g += 1);
    }

    /// Runs a query; marks and returns the tools found.
    fn search(&self, query: &str, max_results: usize) -> Vec<Arc<dyn Tool>> {
        let catalog = lock(&self.catalog).clone();
        let found = match query.trim().strip_prefix("select:") {
            Some(names) => select(&catalog, names),
            None => rank(&catalog, query, max_results),
        };
        let mut loaded = lock(&self.loaded);
        let new: Vec<String> = (found.iter())
            .map(|t| t.name().to_string())
            .filter(|n| !loaded.contains(n))
            .collect();
        if !new.is_empty() {
            loaded.extend(new);
            drop(loaded);
            self.bump();
        }
        found
    }
}

/// `select:a,b`: tools by full name, or by their name on the server.
fn select(catalog: &[Arc<dyn Tool>], names: &str) -> Vec<Arc<dyn Tool>> {
    names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .filter_map(|n| {
            catalog
                .iter()
                .find(|t| t.name() == n)
                .or_else(|| {
                    catalog.iter().find(|t| {
                        crate::names::split_tool_name(t.name()).is_some_and(|(_, tool)| tool == n)
                    })
                })
                .cloned()
        })
        .collect()
}

/// Keyword search: `+word` must appear in the name; other words score by
/// where they appear (a whole name part, part of the name, the description).
fn rank(catalog: &[Arc<dyn Tool>], query: &str, max_results: usize) -> Vec<Arc<dyn Tool>> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut scored: Vec<(u32, &Arc<dyn Tool>)> = catalog
        .iter()
        .filter_map(|tool| {
            let name = tool.name().to_lowercase();
            let parts: Vec<&str> = name.split(['_', '-']).filter(|p| !p.is_empty()).collect();
            let description = tool.description().to_lowercase();
            let mut score = 0;
            for word in &words {
                if let Some(required) = word.strip_prefix('+') {
                    if !name.contains(required) {
                        return None;
                    }
                    score += 1;
                } else if parts.contains(&word.as_str()) {
                    score += 10;
                } else if name.contains(word.as_str()) {
                    score += 5;
                } else if description.contains(word.as_str()) {
                    score += 2;
                }
            }
            (score > 0).then_some((score, tool))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name().cmp(b.1.name())));
    scored
        .into_iter()
        .take(max_results)
        .map(|(_, t)| Arc::clone(t))
        .collect()
}

/// Claude Code's `ToolSearch`: finds deferred tools and makes them callable.
pub struct ToolSearch {
    state: Arc<DeferredTools>,
}

const DEFAULT_MAX_RESULTS: usize = 5;
const MAX_RESULTS_LIMIT: usize = 50;

impl Tool for ToolSearch {
    fn name(&self) -> &str {
        TOOL_SEARCH_NAME
    }

    fn description(&self) -> String {
        // The whole catalog, loaded tools too: the description stays the same
        // while the catalog does, so loading a tool leaves it (and the prompt
        // cache) alone.
        let names = self.state.catalog_names();
        let list = if names.is_empty() {
            "(none)".to_string()
        } else {
            names.join("\n")
        };
        format!(
            "Search for or load deferred tools. Deferred tools are listed below by name but \
             cannot be called until they are loaded with this tool; once loaded, call them \
             directly from your next response.\n\n\
             Query forms:\n\
             - \"select:mcp__github__get_issue,mcp__github__list_issues\": load these tools by name\n\
             - \"github issue\": keyword search over names and descriptions, best matches first\n\
             - \"+github create\": the name must contain \"github\"; rank by the other words\n\n\
             Deferred tools:\n{list}"
        )
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "\"select:<name>,<name>\" to load tools by name, or keywords to search for"
                },
                "max_results": {
                    "type": "number",
                    "description": "Maximum number of tools to load (default 5)"
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        if !input.get("query").is_some_and(Value::is_string) {
            return Err(ToolError::new(
                "InputValidationError: `query` is required and must be a string",
            ));
        }
        match input.get("max_results") {
            None | Some(Value::Number(_)) => Ok(()),
            Some(_) => Err(ToolError::new(
                "InputValidationError: `max_results` must be a number",
            )),
        }
    }

    fn call<'a>(&'a self, input: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let query = input
                .get("query")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let max = input
                .get("max_results")
                .and_then(Value::as_f64)
                .map_or(DEFAULT_MAX_RESULTS, |n| n.max(1.0) as usize)
                .min(MAX_RESULTS_LIMIT);
            let found = self.state.search(query, max);
            if found.is_empty() {
                return Ok(ToolOutput::text(format!(
                    "No deferred tools match \"{query}\". Try other keywords, or \"select:<name>\" with a name from the ToolSearch description."
                )));
            }
            let names: Vec<&str> = found.iter().map(|t| t.name()).collect();
            let mut text = format!(
                "Loaded {} tool{}; call {} directly from your next response:\n",
                found.len(),
                if found.len() == 1 { "" } else { "s" },
                if found.len() == 1 { "it" } else { "them" }
            );
            for tool in &found {
                let description = tool.description();
                let first = description.lines().next().unwrap_or_default();
                text.push_str(&format!("- {}: {first}\n", tool.name()));
            }
            Ok(ToolOutput::text(text.trim_end().to_string())
                .with_structured(json!({"loaded": names})))
        })
    }
}
