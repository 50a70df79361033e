//! The tools a session offers: the built-ins (sharing one background-task
//! registry with the Agent tool), WebFetch and WebSearch (their side requests
//! metered into the session's usage), and the Agent tool with the session's
//! agent definitions. Tools a deny rule names whole are left out.
//!
//! Nothing here does work before the first request beyond reading the agent
//! definition folders: the web tools build their HTTP client on first use.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tack_api::ModelClient;
use tack_core::QueryConfig;
use tack_core::context::PromptContext;
use tack_core::deps::QueryDeps;
use tack_core::session::UsageLedger;
use tack_extensions::agents::{
    AGENT_TOOL_NAME, AgentModel, AgentTools, LEGACY_AGENT_TOOL_NAME, is_agent_tool_name,
};
use tack_extensions::plugins::SessionPlugins;
use tack_extensions::skills::Skills;
use tack_store::RecordMeta;
use tack_tool::{Tool, ToolEnv};
use tack_tools::{BackgroundTasks, BuiltinOptions};
use tack_web::{WebFetchConfig, WebSearchConfig};
use tokio_util::sync::CancellationToken;

use crate::agents::{
    AgentLifetime, AgentModels, AgentRecords, AgentTool, AgentsShared, ModelCell, Toolbox,
};
use crate::deferral::DeferralRule;
use crate::emit::Emitter;
use crate::event::{AgentSummary, Notice};
use crate::hook_agent::{HOOK_AGENT_TOOLS, HookAgent};
use crate::hook_services::RuntimeHookServices;
use crate::lsp_tools::add_lsp;
use crate::metered::MeteredClient;
use crate::model::{ModelAliases, RequestEnv};
use crate::options::{SessionChoice, SessionOptions};
use crate::place::Env;
use crate::plan_mode_tools::{plan_file_for, plan_mode_tools};
use crate::runtime::Policy;
use crate::schedule::scheduler::Schedule;
use crate::schedule::session::{ScheduleParts, for_session, schedule_tools, session_crons};
use crate::skill_tool::{SKILL_TOOL_NAME, SkillTool};
use crate::task_hooks::{SessionTasks, TellOwner, session_task_tools};
use crate::worktree_tools::worktree_tools;

/// What the tools are built from (all of it from `start`).
pub(crate) struct ToolsParts<'a> {
    pub env: &'a Env,
    pub policy: &'a Policy,
    pub emit: &'a Emitter,
    pub context: Arc<PromptContext>,
    pub models: ToolsModels<'a>,
    pub place: ToolsPlace<'a>,
    pub choices: ToolChoices<'a>,
}

/// The session's model and what its (and its sub-agents') requests go with.
pub(crate) struct ToolsModels<'a> {
    /// `model` is another provider's: side requests stay with it.
    pub on_provider: bool,
    pub client: Arc<dyn ModelClient>,
    pub deps: Arc<dyn QueryDeps>,
    pub ledger: UsageLedger,
    pub model: &'a str,
    pub base_config: &'a QueryConfig,
    pub request_env: &'a RequestEnv,
}

/// Where the tools work and what they record under.
pub(crate) struct ToolsPlace<'a> {
    pub session_id: &'a str,
    pub record_meta: Option<RecordMeta>,
    /// `--session-mirror`'s, for sub-agents' transcripts too.
    pub mirror: tack_store::Mirror,
    pub home: Option<&'a Path>,
    pub project: &'a Path,
    pub tool_env: &'a Arc<ToolEnv>,
    /// The settings' `worktree.baseRef`, for sub-agents' worktrees.
    pub worktree_base: tack_config::WorktreeBase,
    /// What the prompt context was loaded with (EnterWorktree recomputes it).
    pub prompt: &'a tack_core::context::ContextOptions,
}

/// Which tools, sub-agents and skills the session offers, and with what.
pub(crate) struct ToolChoices<'a> {
    /// The front end's choices: `--agents`' JSON, `--tools` (only these;
    /// `Some(&[])`: none; `None`: all), the clock scheduled prompts go by.
    pub options: &'a SessionOptions,
    /// The session's MCP servers, for sub-agents.
    pub mcp: Option<tack_mcp::WeakMcpManager>,
    /// `--json-schema`'s `StructuredOutput` tool: the main session's alone
    /// (sub-agents answer in text), whatever `--tools` says.
    pub structured_output: Option<Arc<dyn Tool>>,
    /// The session's skills: the `Skill` tool is offered when the model may
    /// invoke one of them.
    pub skills: &'a Arc<Skills>,
    /// The session's plugins: their language servers.
    pub plugins: &'a SessionPlugins,
    /// The agent definitions (read at start), and the one the main session
    /// runs as: its `tools` are the only ones offered.
    pub agents: &'a crate::main_agent::SessionAgents,
    /// The Bash sandbox (`None`: off).
    pub sandbox: Option<Arc<tack_sandbox::Sandbox>>,
}

/// A `--tools` name that is none of the session's tools.
#[derive(Debug, thiserror::Error)]
#[error("--tools: unknown tool{} {}; the built-in tools are: {}", if .unknown.len() == 1 { "" } else { "s" }, .unknown.join(", "), .known.join(", "))]
pub struct UnknownTools {
    pub unknown: Vec<String>,
    pub known: Vec<String>,
}

pub(crate) struct SessionTools {
    pub tools: Vec<Arc<dyn Tool>>,
    /// The agent types the Agent tool offers (`system/init`'s `agents`).
    pub agents: Vec<AgentSummary>,
    /// The session's model as sub-agents inherit it (`set_model` updates it).
    pub model: ModelCell,
    /// The background shells and sub-agents the tools start.
    pub tasks: BackgroundTasks,
    /// Background agents that ended on their own.
    /// Background agents that ended, and how many are still owed.
    pub woken: crate::runtime::Wakes,
    /// The main loop's queue of messages from outside the conversation.
    pub arrivals: tack_tool::Arrivals,
    /// Scheduled prompts (`None`: `CLAUDE_CODE_DISABLE_CRON`).
    pub schedule: Option<Schedule>,
    /// Whether built-ins go behind ToolSearch, for the session's model.
    pub deferral: crate::deferral::Deferral,
}

/// The small, fast model: `ANTHROPIC_SMALL_FAST_MODEL`, else
/// `ANTHROPIC_DEFAULT_HAIKU_MODEL`, else haiku, or the session's own `model`
/// when that is another provider's (a session on a local model sends nothing
/// to Anthropic unless told to).
fn small_fast_model(env: &Env, model: &str, on_provider: bool) -> String {
    let default = if on_provider { model } else { "haiku" };
    let name = env
        .get("ANTHROPIC_SMALL_FAST_MODEL")
        .or_else(|| env.get("ANTHROPIC_DEFAULT_HAIKU_MODEL"))
        .unwrap_or_else(|| default.to_owned());
    ModelAliases::from_env(env).resolve(&name, false)
}

/// What the session's `http`, `prompt`, `mcp_tool` and `agent` hooks run on:
/// the metered `client`, the small model, the MCP servers, and the session's
/// read-only `tools` for agent hooks.
fn set_hook_services(
    p: &ToolsParts<'_>,
    client: Arc<dyn ModelClient>,
    small_model: &str,
    tools: &[Arc<dyn Tool>],
) {
    let Some(hooks) = &p.policy.hooks else {
        return;
    };
    hooks.set_services(Arc::new(RuntimeHookServices {
        client,
        small_model: small_model.to_owned(),
        mcp: p.choices.mcp.clone(),
        agent: Some(HookAgent {
            tools: (tools.iter())
                .filter(|t| HOOK_AGENT_TOOLS.contains(&t.name()))
                .cloned()
                .collect(),
            deps: Arc::clone(&p.models.deps),
            gate: Arc::downgrade(&p.policy.gate),
            tool_env: Arc::clone(p.place.tool_env),
            base_config: p.models.base_config.clone(),
            request_env: p.models.request_env.clone(),
            ledger: p.models.ledger.clone(),
            small_model: small_model.to_owned(),
        }),
    }));
}

/// The session's schedule, its firings going to the main loop's arrivals;
/// its Stop hooks list it (`session_crons`).
fn schedule_for(p: &ToolsParts<'_>) -> Option<Schedule> {
    let schedule = for_session(ScheduleParts {
        env: p.env,
        project: p.place.project,
        home: p.place.home,
        clock: &p.choices.options.clock,
        resumed: match p.choices.options.conversation.session {
            SessionChoice::New { .. } => false,
            SessionChoice::Continue | SessionChoice::Resume(_) => true,
        },
        arrivals: p.place.tool_env.arrivals().clone(),
        emit: p.emit,
    });
    if let (Some(hooks), Some(schedule)) = (&p.policy.hooks, &schedule) {
        let schedule = schedule.clone();
        hooks.set_session_crons(Arc::new(move || session_crons(&schedule)));
    }
    schedule
}

/// With agent teams on, the session's messaging and its SendMessage and
/// ListAgents; what could not start is a warning.
/// The session's own task list becomes the team's.
fn team_part(p: &ToolsParts<'_>, tasks: &SessionTasks) -> Option<crate::teams::tools::TeamTools> {
    let parts = crate::teams::tools::TeamToolsParts {
        env: p.env,
        home: p.place.home,
        session_id: p.place.session_id,
        cwd: p.place.project,
        arrivals: p.place.tool_env.arrivals().clone(),
    };
    let deliver = crate::teams::tools::deliver_to(p.place.tool_env);
    let (team, warnings) = crate::teams::tools::team_tools(parts, deliver);
    for w in warnings {
        p.emit.notice(Notice::warning(w));
    }
    if let Some(team) = &team {
        crate::teams::events::wire(&team.messaging, p.emit, &p.policy.gate);
        let arrivals = p.place.tool_env.arrivals().clone();
        crate::teams::member_process::start(&team.messaging, arrivals, p.policy.hooks.clone());
    }
    if let Some(member) = team.as_ref().and_then(|t| t.messaging.member()) {
        tasks
            .scope()
            .join_team(member.team.name(), Some(&member.agent));
    }
    team
}

/// What the front end is told of each agent type.
fn agent_summaries(catalog: &tack_extensions::agents::Catalog, small: &str) -> Vec<AgentSummary> {
    catalog
        .iter()
        .map(|def| AgentSummary {
            name: def.name.clone(),
            description: def.description.clone(),
            model: match &def.model {
                AgentModel::Inherit => None,
                AgentModel::SmallFast => Some(small.to_owned()),
                AgentModel::Named(name) => Some(name.clone()),
            },
        })
        .collect()
}

/// Where the session's teammates run; a wrong `teammateMode` is a warning.
fn teammate_backend(p: &ToolsParts<'_>) -> crate::teams::backend::Backend {
    let options = &p.choices.options.extensions.teammates;
    let (backend, warning) = crate::teams::backend::settle(options, p.env.get("TMUX").is_some());
    if let Some(w) = warning {
        p.emit.notice(Notice::warning(w));
    }
    backend
}

/// WebFetch's settings (`CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS`).
/// ExitPlanMode and EnterPlanMode, with the session's plan file in
/// `~/.claude/plans` (none without a home).
fn plan_mode_part(p: &ToolsParts<'_>) -> Vec<Arc<dyn Tool>> {
    let Some(home) = p.place.home else {
        return Vec::new();
    };
    let file = plan_file_for(&home.join(".claude/plans"), p.place.session_id);
    plan_mode_tools(&p.policy.gate, file)
}

fn fetch_config(env: &Env) -> WebFetchConfig {
    let mut fetch = WebFetchConfig::default();
    let ttl = env.get("CLAUDE_CODE_WEBFETCH_CACHE_TTL_MS");
    if let Some(ms) = ttl.and_then(|v| v.parse::<u64>().ok()) {
        fetch.cache_ttl = Duration::from_millis(ms);
    }
    fetch
}

/// The session's task list and team: what its Task tools are made from, the
/// Task tools (when on) and the team's tools (when teams are on).
fn coordination(
    p: &ToolsParts<'_>,
) -> (
    SessionTasks,
    Vec<Arc<dyn Tool>>,
    Option<crate::teams::tools::TeamTools>,
) {
    let teams_on = crate::teams::tools::teams_enabled(p.env);
    let hooks = p.policy.hooks.as_ref();
    let tell = teams_on.then_some(crate::teams::assignment::tell_owner as TellOwner);
    let (tasks, task_list) = session_task_tools(p.env, p.place.session_id, hooks, tell);
    let team = team_part(p, &tasks);
    (tasks, task_list, team)
}

/// The session's tools; a `--tools` name that is not one of them is an error.
pub(crate) fn session_tools(p: ToolsParts<'_>) -> Result<SessionTools, UnknownTools> {
    let tasks = BackgroundTasks::new(BuiltinOptions::default().kill_grace);
    let (session_tasks, task_list, team) = coordination(&p);
    let small_model = small_fast_model(p.env, p.models.model, p.models.on_provider);
    let metered: Arc<dyn ModelClient> = Arc::new(MeteredClient::new(
        Arc::clone(&p.models.client),
        p.models.ledger.clone(),
    ));
    let skill: Option<Arc<SkillTool>> = p
        .choices
        .skills
        .listing()
        .map(|_| Arc::new(SkillTool::new(p.choices.skills.clone())));
    let schedule = schedule_for(&p);
    let all: Vec<Arc<dyn Tool>> = builtins(&p, &tasks, task_list)
        .into_iter()
        .chain(team.iter().flat_map(|t| t.tools.clone()))
        .chain(web_tools(&p, &metered, &small_model))
        .chain(worktree_tools(
            p.place.worktree_base,
            p.policy,
            p.place.prompt,
        ))
        .chain(plan_mode_part(&p))
        .chain(skill.clone().map(|s| s as Arc<dyn Tool>))
        .chain(schedule_tools(schedule.as_ref()))
        .collect();
    let all = add_lsp(all, p.env, p.choices.plugins, p.place.project, p.emit);
    let only = p.choices.options.extensions.tools.as_deref();
    let mut tools = picked_tools(all, only, &p.policy.gate)?;
    let main_only = main_agent_tools(p.choices.agents);
    if let Some(list) = main_only {
        tools.retain(|t| crate::agents::names_tool(t.as_ref(), list));
    }
    set_hook_services(&p, metered, &small_model, &tools);
    let part = agent_part(
        &p,
        &tools,
        &tasks,
        (session_tasks, team.map(|t| t.messaging)),
        small_model,
    );
    if let Some(skill) = &skill {
        skill.set_agent_tool(&part.tool);
        skill.set_gate(&p.policy.gate);
    }
    let agent: Arc<dyn Tool> = part.tool;
    let agent_picked = (picked(only, AGENT_TOOL_NAME) || picked(only, LEGACY_AGENT_TOOL_NAME))
        && main_only.is_none_or(|list| list.iter().any(|n| is_agent_tool_name(n)));
    if agent_picked && !p.policy.gate.removes_tool(agent.as_ref()) {
        tools.push(agent);
    }
    tools.extend(p.choices.structured_output);
    Ok(SessionTools {
        tools,
        agents: part.agents,
        model: part.model,
        tasks,
        woken: part.woken,
        arrivals: p.place.tool_env.arrivals().clone(),
        schedule,
        deferral: crate::deferral::Deferral::for_session(p.env, p.models.model),
    })
}

/// The built-in tools, sharing `tasks` with the Agent tool, with the
/// session's sandbox and its task list's tools.
fn builtins(
    p: &ToolsParts<'_>,
    tasks: &BackgroundTasks,
    task_list: Vec<Arc<dyn Tool>>,
) -> Vec<Arc<dyn Tool>> {
    tack_tools::builtin_tools_with(
        p.place.tool_env,
        BuiltinOptions {
            tasks: Some(tasks.clone()),
            sandbox: p.choices.sandbox.clone(),
            task_list,
            ws_tls: tack_api::tls::client_config(false).ok().map(Arc::new),
            proxy: tack_tools::ProxyVars::from_env(|name| p.env.get(name)),
            ..BuiltinOptions::default()
        },
    )
}

/// WebFetch and WebSearch, their side requests on the `metered` client.
fn web_tools(
    p: &ToolsParts<'_>,
    metered: &Arc<dyn ModelClient>,
    small_model: &str,
) -> Vec<Arc<dyn Tool>> {
    tack_web::web_tools(
        Arc::clone(metered),
        small_model,
        p.models.model,
        fetch_config(p.env),
        WebSearchConfig::default(),
    )
}

/// The tools the main session's agent names (`None`: it names none, or
/// there is no such agent: every tool).
fn main_agent_tools(agents: &crate::main_agent::SessionAgents) -> Option<&[String]> {
    match agents.main.as_ref().map(|d| &d.tools) {
        Some(AgentTools::Only(list)) => Some(list),
        Some(AgentTools::All) | None => None,
    }
}

/// Whether `--tools` (`only`) keeps the tool `name`.
fn picked(only: Option<&[String]>, name: &str) -> bool {
    only.is_none_or(|wanted| wanted.iter().any(|w| w == name))
}

/// The tools `--tools` (`only`) keeps and no deny rule removes; a name in
/// `only` that is none of the session's tools is an error.
fn picked_tools(
    all: Vec<Arc<dyn Tool>>,
    only: Option<&[String]>,
    gate: &crate::gate::Gate,
) -> Result<Vec<Arc<dyn Tool>>, UnknownTools> {
    if let Some(wanted) = only {
        let known: Vec<String> = all
            .iter()
            .map(|t| t.name().to_owned())
            .chain([AGENT_TOOL_NAME.to_owned()])
            .collect();
        let unknown: Vec<String> = wanted
            .iter()
            .filter(|w| {
                !known.contains(w)
                    && w.as_str() != LEGACY_AGENT_TOOL_NAME
                    && w.as_str() != SKILL_TOOL_NAME
            })
            .cloned()
            .collect();
        if !unknown.is_empty() {
            return Err(UnknownTools { unknown, known });
        }
    }
    Ok(all
        .into_iter()
        .filter(|t| picked(only, t.name()) && !gate.removes_tool(t.as_ref()))
        .collect())
}

/// The Agent tool and what the session keeps of it.
struct AgentPart {
    tool: Arc<AgentTool>,
    /// The agent types it offers (`system/init`'s `agents`).
    agents: Vec<AgentSummary>,
    /// The session's model as sub-agents inherit it.
    model: ModelCell,
    /// Background agents that ended, and how many are still owed.
    woken: crate::runtime::Wakes,
}

/// The Agent tool over the session's agent definitions (warnings emitted),
/// its sub-agents offered `tools`, sharing `tasks`, the session's task list
/// and team (`coordination`).
fn agent_part(
    p: &ToolsParts<'_>,
    tools: &[Arc<dyn Tool>],
    tasks: &BackgroundTasks,
    coordination: (SessionTasks, Option<Arc<crate::teams::session::Messaging>>),
    small_model: String,
) -> AgentPart {
    for w in &p.choices.agents.warnings {
        p.emit.notice(Notice::warning(w.clone()));
    }
    let catalog = p.choices.agents.catalog.clone();
    let agents = agent_summaries(&catalog, &small_model);
    let model = ModelCell::new(p.models.model.to_owned());
    let (wake, woken) = tokio::sync::mpsc::unbounded_channel();
    let wake_owed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (session_tasks, team) = coordination;
    let shared = Arc::new(AgentsShared {
        catalog,
        toolbox: Toolbox {
            tools: tools.to_vec(),
            mcp: p.choices.mcp.clone(),
            tool_search: p.env.get("ENABLE_TOOL_SEARCH"),
            deferral: DeferralRule::new(p.env.get("ENABLE_TOOL_SEARCH").as_deref(), p.env),
        },
        gate: p.policy.gate.clone(),
        hooks: p.policy.hooks.clone(),
        emit: p.emit.clone(),
        context: Arc::clone(&p.context),
        models: AgentModels {
            deps: Arc::clone(&p.models.deps),
            ledger: p.models.ledger.clone(),
            base_config: p.models.base_config.clone(),
            request_env: p.models.request_env.clone(),
            model: model.clone(),
            small_model,
        },
        records: AgentRecords {
            record_meta: p.place.record_meta.clone(),
            mirror: p.place.mirror.clone(),
            session_id: p.place.session_id.to_owned(),
        },
        lifetime: AgentLifetime {
            tasks: tasks.clone(),
            session_over: CancellationToken::new(),
            wake,
            wake_owed: wake_owed.clone(),
        },
        worktree_base: p.place.worktree_base,
        team,
        tasks: session_tasks,
        teammates: teammate_backend(p),
    });
    AgentPart {
        tool: Arc::new(AgentTool::new(shared)),
        agents,
        model,
        woken: (woken, wake_owed),
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn the_small_model_stays_with_a_provider_unless_set() {
        let env = |vars: &[(&str, &str)]| {
            Env(vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect())
        };
        let none = env(&[]);
        let set = env(&[("ANTHROPIC_SMALL_FAST_MODEL", "local/tiny")]);
        let got = [
            small_fast_model(&none, "some-model", false),
            small_fast_model(&none, "local/qwen3", true),
            small_fast_model(&set, "local/qwen3", true),
        ];
        assert_eq!(got, ["claude-haiku-5-5", "local/qwen3", "local/tiny"]);
    }
}
