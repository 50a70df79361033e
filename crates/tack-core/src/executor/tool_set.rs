//! The tools available to one query, found by name or alias.

use std::sync::Arc;

use tack_protocol::ToolDefinition;
use tack_tool::Tool;

/// An immutable, cheaply cloned list of tools.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Arc<[Arc<dyn Tool>]>,
}

impl ToolSet {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Self {
        ToolSet {
            tools: tools.into(),
        }
    }

    /// The tool called `name`, or whose aliases include it.
    pub fn find(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .or_else(|| self.tools.iter().find(|t| t.aliases().contains(&name)))
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter()
    }

    /// The `tools` array of a request, in list order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .map(|t| ToolDefinition {
                name: t.name().to_owned(),
                description: Some(t.description()),
                input_schema: t.input_schema(),
                cache_control: None,
            })
            .collect()
    }
}

impl std::fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}
