//! Sub-agent definitions: what a sub-agent is ([`AgentDefinition`]: its
//! name, when to use it, its prompt, tools and model), the built-ins
//! (`general-purpose`, `Explore`, `Plan`), files (`.claude/agents/*.md`,
//! `~/.claude/agents/*.md`, `.tack/` too, plugins' `agents/`) and `--agents`
//! JSON ([`parse_markdown`], [`parse_flag`]), and which one wins
//! ([`Catalog`], [`load_catalog`]). Running them is tack-runtime's
//! (`agents/`: the Agent tool and the sub-sessions).

mod definition;
mod load;
mod parse;

pub use definition::{
    AGENT_TOOL_NAME, AgentDefinition, AgentModel, AgentSource, AgentTools, Catalog,
    LEGACY_AGENT_TOOL_NAME, built_in, is_agent_tool_name,
};
pub use load::{AgentDirs, load_catalog};
pub use parse::{DefinitionError, parse_flag, parse_markdown};
