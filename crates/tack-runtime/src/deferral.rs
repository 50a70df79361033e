//! Which tools a session sends whole and which it names behind ToolSearch.
//!
//! Claude Code 2.1.328, with tool search on, sends `Agent, Bash, Edit,
//! ListAgents, Read, ScheduleWakeup, Skill, ToolSearch, Write` (and its
//! `Workflow`, `ReportFindings`) whole and defers the other built-ins
//! ([`DEFERRED_BUILTINS`]): the model sees their names and loads one with
//! `ToolSearch "select:Name"`. tack defers the same names, so a tool another
//! part of tack registers under one of them is deferred with no more work.
//!
//! tack's own extra tools (Glob, Grep, LS, MultiEdit, TodoWrite, TaskOutput)
//! are deferred too: Claude Code's current models are tuned to a set without
//! them (Bash for search, Edit for edits, the Task* tools for plans), so the
//! set the model sees first is Claude Code's, and each extra stays one
//! ToolSearch away (a deferred tool is also run when called by name unloaded).
//!
//! Tool search is on ([`builtins_deferred`]) with `ENABLE_TOOL_SEARCH=true`,
//! off with `false`, and by default when requests go to Anthropic's own API
//! (no `ANTHROPIC_BASE_URL`, or an `anthropic.com` one; not Bedrock, Vertex
//! or Foundry) with a model that takes `tool_reference` blocks (Claude's
//! Sonnet and Opus 4 and later, not Haiku), as Claude Code decides it.
//! MCP tools keep their own rule (`tack-mcp`'s `decide_deferral`).
//!
//! The prompt cache: the tools sent whole keep their order, and a tool
//! ToolSearch loads is added after every tool already sent (in the order
//! loaded), so loading one never reorders what the cache holds.

use std::sync::Arc;

use tack_core::executor::{DeferredTools as CoreDeferred, ToolSet};
use tack_mcp::{DeferredTools, ToolSearchMode};
use tack_tool::Tool;

use crate::place::Env;

/// Built-in tools named behind ToolSearch when tool search is on: Claude
/// Code's deferred built-ins, then tack's extras (see the module docs).
pub(crate) const DEFERRED_BUILTINS: &[&str] = &[
    // Claude Code 2.1.328's deferred tools.
    "CronCreate",
    "CronDelete",
    "CronList",
    "EnterWorktree",
    "ExitWorktree",
    "Monitor",
    "NotebookEdit",
    "SendMessage",
    "TaskStop",
    "WebFetch",
    "WebSearch",
    // Deferred in Claude Code when present (its task list, plan mode, LSP).
    "TaskCreate",
    "TaskGet",
    "TaskUpdate",
    "TaskList",
    "EnterPlanMode",
    "ExitPlanMode",
    "LSP",
    // tack's extras.
    "Glob",
    "Grep",
    "LS",
    "MultiEdit",
    "TodoWrite",
    "TaskOutput",
];

/// True when the session defers [`DEFERRED_BUILTINS`]: `ENABLE_TOOL_SEARCH`
/// (`tool_search`), else Anthropic's own API with a model that can.
pub(crate) fn builtins_deferred(tool_search: Option<&str>, env: &Env, model: &str) -> bool {
    DeferralRule::new(tool_search, env).defers(model)
}

/// How a session decides, for a model, whether built-ins are deferred: the
/// decision is made again when `/model` changes it (sub-agents make it for
/// theirs).
#[derive(Debug, Clone)]
pub(crate) struct DeferralRule {
    mode: ToolSearchMode,
    first_party: bool,
}

impl DeferralRule {
    pub(crate) fn new(tool_search: Option<&str>, env: &Env) -> DeferralRule {
        DeferralRule {
            mode: ToolSearchMode::from_env_value(tool_search),
            first_party: first_party(env),
        }
    }

    /// Whether `model`'s requests defer [`DEFERRED_BUILTINS`]. Even with
    /// `ENABLE_TOOL_SEARCH=true`, a Claude model that takes no
    /// `tool_reference` blocks (Haiku, Claude 3) gets every tool whole, as
    /// Claude Code says "Tool search disabled for model" for it; another
    /// provider's model keeps tack's client-side search.
    pub(crate) fn defers(&self, model: &str) -> bool {
        match self.mode {
            ToolSearchMode::Always => !refuses_tool_references(model),
            ToolSearchMode::Never => false,
            ToolSearchMode::Auto { .. } => self.first_party && takes_tool_references(model),
        }
    }
}

/// A Claude model that cannot take `tool_reference` blocks.
fn refuses_tool_references(model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    model.starts_with("claude-") && !takes_tool_references(&model)
}

/// Requests go to Anthropic's own API.
fn first_party(env: &Env) -> bool {
    let cloud = [
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
    ];
    if cloud
        .iter()
        .any(|k| env.get(k).is_some_and(|v| v != "0" && v != "false"))
    {
        return false;
    }
    let Some(base) = env.get("ANTHROPIC_BASE_URL") else {
        return true;
    };
    let host = base
        .split_once("://")
        .map_or(base.as_str(), |(_, rest)| rest)
        .split(['/', ':', '?'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    host == "anthropic.com" || host.ends_with(".anthropic.com")
}

/// Claude Sonnet and Opus 4 and later take `tool_reference` blocks; Haiku
/// and the Claude 3 family do not, nor other providers' models.
fn takes_tool_references(model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    model.starts_with("claude-") && !model.contains("haiku") && !model.starts_with("claude-3")
}

/// What a session's tool set is made of.
pub(crate) struct ToolSetParts<'a> {
    /// The built-in tools, in the session's order.
    pub builtin: &'a [Arc<dyn Tool>],
    /// Put [`DEFERRED_BUILTINS`] behind ToolSearch.
    pub defer_builtins: bool,
    /// The MCP tools, and whether they go behind ToolSearch.
    pub mcp: Vec<Arc<dyn Tool>>,
    pub defer_mcp: bool,
    /// Sent last (the MCP resource tools).
    pub resources: Vec<Arc<dyn Tool>>,
}

/// Whether the session's tools defer built-ins now, and by what rule.
#[derive(Debug, Clone)]
pub(crate) struct Deferral {
    pub rule: DeferralRule,
    /// The decision for the session's current model.
    pub on: bool,
    /// `ENABLE_TOOL_SEARCH` (MCP tools' deferral reads it too).
    pub tool_search: Option<String>,
}

impl Deferral {
    /// The session's rule (`ENABLE_TOOL_SEARCH`, its API) and its decision
    /// for `model`.
    pub(crate) fn for_session(env: &Env, model: &str) -> Deferral {
        let tool_search = env.get("ENABLE_TOOL_SEARCH");
        let rule = DeferralRule::new(tool_search.as_deref(), env);
        Deferral {
            on: rule.defers(model),
            rule,
            tool_search,
        }
    }
}

/// The tool set: the built-ins sent whole, the MCP tools sent whole, then
/// ToolSearch over every deferred one (when any is), then `resources`.
/// `state` keeps what ToolSearch loaded across rebuilds (an MCP server's
/// tools changing); it is dropped when nothing is deferred.
pub(crate) fn tool_set(parts: ToolSetParts<'_>, state: &mut Option<Arc<DeferredTools>>) -> ToolSet {
    let is_deferred =
        |t: &Arc<dyn Tool>| parts.defer_builtins && DEFERRED_BUILTINS.contains(&t.name());
    let (deferred, mut tools): (Vec<_>, Vec<_>) =
        parts.builtin.iter().cloned().partition(is_deferred);
    let mut catalog = deferred;
    if parts.defer_mcp {
        catalog.extend(parts.mcp);
    } else {
        tools.extend(parts.mcp);
    }
    if catalog.is_empty() {
        *state = None;
        tools.extend(parts.resources);
        return ToolSet::new(tools);
    }
    let search = state.get_or_insert_with(DeferredTools::new).clone();
    search.set_catalog(catalog.clone());
    tools.push(search.tool());
    tools.extend(parts.resources);
    ToolSet::new(tools).with_deferred(Arc::new(Deferred {
        state: search,
        catalog,
    }))
}

/// Every tool the session offers, the deferred built-ins too, as Claude
/// Code's `system/init` lists them: those sent, then the rest of `builtin`.
pub(crate) fn offered_names(tools: &ToolSet, builtin: &[Arc<dyn Tool>]) -> Vec<String> {
    let mut names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();
    for t in builtin {
        if !names.iter().any(|n| n == t.name()) {
            names.push(t.name().to_owned());
        }
    }
    names
}

/// The deferred tools as core sees them.
pub(crate) struct Deferred {
    pub state: Arc<DeferredTools>,
    pub catalog: Vec<Arc<dyn Tool>>,
}

impl CoreDeferred for Deferred {
    fn loaded(&self) -> Vec<Arc<dyn Tool>> {
        self.state.loaded()
    }

    fn find(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.catalog
            .iter()
            .find(|t| t.name() == name || t.aliases().contains(&name))
            .cloned()
    }

    fn generation(&self) -> u64 {
        self.state.generation()
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn env(vars: &[(&str, &str)]) -> Env {
        Env(vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect())
    }

    #[test]
    fn tool_search_is_on_for_anthropics_api_and_models_that_take_references() {
        let opus = "claude-opus-5-5";
        let cases = [
            (None, env(&[]), opus),
            (None, env(&[]), "claude-haiku-5-5"),
            (None, env(&[]), "claude-3-7-sonnet-20250219"),
            (
                None,
                env(&[("ANTHROPIC_BASE_URL", "https://api.anthropic.com")]),
                opus,
            ),
            (
                None,
                env(&[("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000/v1")]),
                opus,
            ),
            (
                None,
                env(&[("ANTHROPIC_BASE_URL", "https://anthropic.com.evil.test")]),
                opus,
            ),
            (None, env(&[("CLAUDE_CODE_USE_BEDROCK", "1")]), opus),
            (None, env(&[]), "local/qwen3"),
            (
                Some("true"),
                env(&[("ANTHROPIC_BASE_URL", "http://127.0.0.1:4000")]),
                opus,
            ),
            (Some("false"), env(&[]), opus),
            (Some("auto:5"), env(&[]), opus),
            (Some("true"), env(&[]), "claude-haiku-4-5"),
            (Some("true"), env(&[]), "local/qwen3"),
        ];
        let got: Vec<bool> = cases
            .iter()
            .map(|(mode, env, model)| builtins_deferred(*mode, env, model))
            .collect();
        assert_eq!(
            got,
            [
                true, false, false, true, false, false, false, false, true, false, true, false,
                true
            ]
        );
    }
}
