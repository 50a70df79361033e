//! The tools available to one query, found by name or alias.

use std::sync::{Arc, OnceLock};

use tack_protocol::ToolDefinition;
use tack_tool::Tool;

/// Tools held back from the request until the model asks for them (MCP tools
/// behind a tool-search tool): each is callable by name at any time, but only
/// the loaded ones have their definitions sent.
pub trait DeferredTools: Send + Sync {
    /// The tools whose definitions go into requests from now on.
    fn loaded(&self) -> Vec<Arc<dyn Tool>>;
    /// Any deferred tool, loaded or not.
    fn find(&self, name: &str) -> Option<Arc<dyn Tool>>;
    /// Changes whenever [`DeferredTools::loaded`] may have: the loop sends new
    /// definitions only then.
    fn generation(&self) -> u64;
}

/// A cheaply cloned list of tools, and optionally deferred ones.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Arc<[Arc<dyn Tool>]>,
    /// The definitions of `tools`, built once (schemas are generated).
    definitions: Arc<OnceLock<Vec<ToolDefinition>>>,
    deferred: Option<Arc<dyn DeferredTools>>,
}

fn definition(t: &Arc<dyn Tool>) -> ToolDefinition {
    ToolDefinition {
        name: t.name().to_owned(),
        description: Some(t.description()),
        input_schema: t.input_schema(),
        cache_control: None,
    }
}

impl ToolSet {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Self {
        ToolSet {
            tools: tools.into(),
            definitions: Arc::default(),
            deferred: None,
        }
    }

    /// Adds `deferred` tools (see [`DeferredTools`]).
    pub fn with_deferred(mut self, deferred: Arc<dyn DeferredTools>) -> Self {
        self.deferred = Some(deferred);
        self
    }

    /// The tool called `name`, or whose aliases include it; deferred tools too.
    pub fn find(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .or_else(|| self.tools.iter().find(|t| t.aliases().contains(&name)))
            .cloned()
            .or_else(|| self.deferred.as_ref().and_then(|d| d.find(name)))
    }

    /// The tools sent to the model now (deferred ones once loaded).
    pub fn iter(&self) -> impl Iterator<Item = Arc<dyn Tool>> + '_ {
        let loaded = self
            .deferred
            .as_ref()
            .map(|d| d.loaded())
            .unwrap_or_default();
        self.tools.iter().cloned().chain(loaded)
    }

    /// The `tools` array of a request: the tools in list order, then the
    /// loaded deferred ones.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        let mut out = self
            .definitions
            .get_or_init(|| self.tools.iter().map(definition).collect())
            .clone();
        if let Some(d) = &self.deferred {
            out.extend(d.loaded().iter().map(definition));
        }
        out
    }

    /// Changes when [`ToolSet::definitions`] may have (deferred tools loaded).
    pub fn generation(&self) -> u64 {
        self.deferred.as_ref().map_or(0, |d| d.generation())
    }
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|t| t.name().to_owned()))
            .finish()
    }
}
