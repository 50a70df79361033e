//! Running one sub-agent: its session built from its definition, driven to
//! the end, its events forwarded, its model calls recorded.

use std::sync::Arc;

use tack_core::LoopEvent;
use tack_core::QueryConfig;
use tack_core::context::PromptContext;
use tack_core::executor::ToolSet;
use tack_core::session::{Session, SessionEvent, SessionParts, SessionResult, TranscriptSink};
use tack_extensions::agents::{AgentDefinition, AgentModel, AgentTools};
use tack_protocol::{ContentBlock, Message};
use tack_store::Transcript;
use tack_tool::{AgentIdentity, Tool, ToolEnv};
use tokio_util::sync::CancellationToken;

use super::AgentsShared;
use super::isolation;
use super::read_only::ReadOnlyBash;
use super::stop_hooks::SubagentHooks;
use crate::event::{RuntimeEvent, SubagentEvent};
use crate::transcript::StoreSink;

/// One Agent call to run.
pub(crate) struct Launch {
    pub agent_id: String,
    pub definition: AgentDefinition,
    pub prompt: String,
    /// The call's `model`, over the definition's.
    pub model: Option<String>,
    pub parent_tool_use_id: String,
    /// The sub-agent's own Agent tool if its definition gives it one
    /// ([`AgentDefinition::gets_agent_tool`]); made by the Agent tool, which
    /// this module does not know.
    pub agent_tool: Option<Arc<dyn Tool>>,
    /// Runs in a worktree of its own (the definition's or the call's
    /// `isolation: worktree`).
    pub worktree: bool,
    /// A teammate's: its own `SendMessage` and `ListAgents` in place of the
    /// session's, and what follows each of its turns.
    pub teammate: Option<crate::teams::teammate::Teammate>,
}

/// How a sub-agent ended.
pub(crate) struct Finished {
    /// Its session's result (its own model calls: usage, cost, turns).
    pub result: SessionResult,
    /// Tool calls it made.
    pub tool_uses: u32,
    pub model: String,
    /// Its worktree, kept because it changed files.
    pub worktree: Option<crate::made_worktree::KeptWorktree>,
}

/// The model a launch runs on.
pub(crate) fn model_of(shared: &AgentsShared, launch: &Launch) -> String {
    match (&launch.model, &launch.definition.model) {
        (Some(m), _) | (None, AgentModel::Named(m)) => shared.models.request_env.resolve(m, false),
        (None, AgentModel::Inherit) => shared.models.model.get(),
        (None, AgentModel::SmallFast) => shared.models.small_model.clone(),
    }
}

/// The tools that switch the session's permission mode.
const PLAN_MODE_TOOLS: [&str; 2] = [
    crate::plan_mode_tools::EXIT_PLAN_MODE,
    crate::plan_mode_tools::ENTER_PLAN_MODE,
];

/// True when a definition's `list` (`tools`, `disallowedTools`) names
/// `tool`: by name or alias, or a whole MCP server (`mcp__github`).
pub(crate) fn names_tool(tool: &dyn Tool, list: &[String]) -> bool {
    list.iter().any(|n| {
        n == tool.name()
            || tool.aliases().contains(&n.as_str())
            || (n.starts_with("mcp__")
                && tool
                    .name()
                    .strip_prefix(n.as_str())
                    .is_some_and(|rest| rest.starts_with("__")))
    })
}

/// The session's tools a definition gets (in the session's order; then `agent_tool`
/// if it gets one), then the MCP servers' tools as they
/// are now, deferred by the session's rule for `model`'s window. A
/// definition's list may name a whole server (`mcp__github`).
pub(crate) fn tools_for(
    shared: &Arc<AgentsShared>,
    def: &AgentDefinition,
    agent_tool: Option<Arc<dyn Tool>>,
    own: Option<&crate::teams::teammate::Teammate>,
    model: &str,
) -> ToolSet {
    let names = names_tool;
    let mcp: Vec<Arc<dyn Tool>> = match shared.toolbox.mcp.as_ref().and_then(|m| m.upgrade()) {
        Some(manager) => manager
            .tools()
            .into_iter()
            .chain(manager.resource_tools())
            .filter(|t| !shared.gate.removes_tool(t.as_ref()))
            .collect(),
        None => Vec::new(),
    };
    let picked = |t: &&Arc<dyn Tool>| {
        let allowed = match &def.tools {
            AgentTools::All => true,
            AgentTools::Only(list) => names(t.as_ref(), list),
        };
        allowed && !names(t.as_ref(), &def.disallowed_tools)
    };
    // Plan mode is the session's: a sub-agent neither enters nor leaves it.
    let session_only = |t: &&Arc<dyn Tool>| !PLAN_MODE_TOOLS.contains(&t.name());
    let mut tools: Vec<Arc<dyn Tool>> = shared
        .toolbox
        .tools
        .iter()
        .filter(picked)
        .filter(session_only)
        .map(|t| -> Arc<dyn Tool> {
            if def.read_only && t.name() == "Bash" {
                Arc::new(ReadOnlyBash(t.clone()))
            } else {
                t.clone()
            }
        })
        .collect();
    tools.extend(agent_tool);
    if let Some(teammate) = own {
        tools.retain(|t| !teammate.tools.iter().any(|o| o.name() == t.name()));
        tools.extend(teammate.tools.iter().cloned());
    }
    let mcp = mcp.iter().filter(picked).cloned().collect();
    let window = tack_api::model_limits(model).context_window;
    // The same built-ins go behind ToolSearch as in the main loop, decided
    // for the sub-agent's own model.
    let defer_builtins = shared.toolbox.deferral.defers(model);
    let tool_search = shared.toolbox.tool_search.as_deref();
    crate::mcp::subagent_tool_set(tools, mcp, window, tool_search, defer_builtins)
}

/// The sub-agent's system prompt: its definition's, with the environment.
fn system_prompt(def: &AgentDefinition, env: &ToolEnv, model: &str) -> String {
    let cwd = env.cwd();
    let platform = std::env::consts::OS;
    format!(
        "{}\n\nNotes:\n- Your final message is returned to the agent that started you as \
         the result of your task: make it complete, with the relevant file paths (absolute) \
         and code snippets. It is not shown to the user directly.\n- File paths given to \
         tools must be absolute.\n\n# Environment\n<env>\nWorking directory: {}\n\
         Platform: {platform}\nModel: {model}\n</env>",
        def.prompt,
        cwd.display()
    )
}

/// A fresh tool state (own file-read records) over the session's
/// directories, in `cwd`.
fn tool_env(parent: &ToolEnv, agent: AgentIdentity, cwd: std::path::PathBuf) -> ToolEnv {
    let env = ToolEnv::new(
        parent.project_root().to_path_buf(),
        parent.session_dir().to_path_buf(),
    )
    .with_additional_dirs(parent.additional_dirs().to_vec())
    .with_bash_default_timeout(parent.bash_default_timeout)
    .with_mode_slot(parent.mode_slot().clone())
    .with_agent(agent);
    env.set_cwd(cwd);
    env
}

/// Where agent `agent_id` of the session in `session_dir` keeps its
/// transcript; `None` when nothing is persisted.
pub(crate) fn transcript_of(
    shared: &AgentsShared,
    session_dir: &std::path::Path,
    agent_id: &str,
) -> Option<std::path::PathBuf> {
    (shared.records.record_meta.as_ref())
        .map(|_| tack_store::subagent_transcript_path(session_dir, agent_id))
}

/// Runs `launch` to its end. `cancel` stops it (an interrupt, TaskStop). An
/// `Err` is a sub-agent that could not start (its transcript, its worktree).
/// An isolated one's worktree is settled however it ended.
pub(crate) async fn run_subagent(
    shared: &Arc<AgentsShared>,
    launch: Launch,
    parent_env: &ToolEnv,
    cancel: CancellationToken,
) -> Result<Finished, String> {
    if !launch.worktree {
        return run_in(shared, launch, parent_env, parent_env.cwd(), cancel).await;
    }
    let made = isolation::enter(shared, parent_env, &launch.agent_id).await?;
    let ran = run_in(shared, launch, parent_env, made.cwd.clone(), cancel).await;
    let kept = isolation::settle(shared, made).await;
    ran.map(|finished| Finished {
        worktree: kept,
        ..finished
    })
}

/// [`run_subagent`] in the folder `cwd`.
async fn run_in(
    shared: &Arc<AgentsShared>,
    launch: Launch,
    parent_env: &ToolEnv,
    cwd: std::path::PathBuf,
    cancel: CancellationToken,
) -> Result<Finished, String> {
    let model = model_of(shared, &launch);
    let def = &launch.definition;
    let identity = AgentIdentity {
        id: launch.agent_id.clone(),
        agent_type: def.name.clone(),
    };
    let mut env = tool_env(parent_env, identity, cwd);
    if let Some(teammate) = &launch.teammate {
        env = env.with_arrivals(teammate.arrivals.clone());
    }
    let env = Arc::new(env);
    let transcript_path = transcript_of(shared, env.session_dir(), &launch.agent_id);
    let sink = match (&shared.records.record_meta, &transcript_path) {
        (Some(meta), Some(path)) => {
            let transcript = Transcript::open(path, &shared.records.session_id, meta.clone(), None)
                .map_err(|e| format!("cannot write the agent's transcript: {e}"))?
                .sidechain(&launch.agent_id)
                .mirrored(shared.records.mirror.clone());
            write_agent_meta(
                shared,
                path,
                &launch.definition.name,
                &launch.parent_tool_use_id,
            );
            Some(Arc::new(StoreSink::new(transcript)) as Arc<dyn TranscriptSink>)
        }
        _ => None,
    };
    let context = PromptContext {
        system_prompt: vec![system_prompt(def, &env, &model)],
        user_context: shared.context.user_context.clone(),
        system_context: shared.context.system_context.clone(),
    };
    let config = shared.models.request_env.apply(
        &QueryConfig {
            max_turns: None,
            ..shared.models.base_config.clone()
        },
        &model,
    );
    let parts = SessionParts {
        session_id: shared.records.session_id.clone(),
        context: Arc::new(context),
        tools: tools_for(
            shared,
            def,
            launch.agent_tool.clone(),
            launch.teammate.as_ref(),
            &model,
        ),
        tool_env: env,
        can_use_tool: shared.gate.clone(),
        deps: shared.models.deps.clone(),
        config,
        max_budget_usd: None,
        transcript: sink,
    };
    let mut session = Session::new(parts);
    if let Some(hooks) = &shared.hooks {
        session = session.with_stop_hooks(Arc::new(SubagentHooks {
            hooks: hooks.clone(),
            agent_id: launch.agent_id.clone(),
            agent_type: def.name.clone(),
            transcript_path: transcript_path.clone(),
        }));
    }
    let forward = |event: LoopEvent| {
        shared
            .emit
            .emit(RuntimeEvent::Subagent(Box::new(SubagentEvent {
                parent_tool_use_id: launch.parent_tool_use_id.clone(),
                agent_id: launch.agent_id.clone(),
                agent_type: def.name.clone(),
                event,
            })));
    };
    let mut tool_uses = 0u32;
    let context = match &shared.hooks {
        Some(hooks) => hooks.subagent_start(&launch.agent_id, &def.name).await,
        None => None,
    };
    let plan_file = launch.teammate.as_ref().and_then(|t| t.plan_file.as_ref());
    // Its own mode leaves the gate however this run ends.
    let own_plan = plan_file.map(|file| shared.gate.agent_plan(&launch.agent_id, file.clone()));
    let first = match plan_file {
        Some(file) => format!("{}\n\n{}", plan_first(file), launch.prompt),
        None => launch.prompt.clone(),
    };
    let mut prompt = crate::hooks::with_context(Message::user_text(first), context);
    let follow_up = launch.teammate.as_ref().map(|t| t.follow_up.clone());
    let result = loop {
        let mut turn = session.submit(prompt, cancel.clone());
        let result = loop {
            match turn.next().await {
                Some(SessionEvent::Loop(event)) => {
                    if let LoopEvent::AssistantMessage(a) = &event {
                        shared
                            .models
                            .ledger
                            .record(&a.model, &a.usage, a.api_duration);
                        tool_uses += a
                            .message
                            .content
                            .iter()
                            .filter(|b| matches!(b, ContentBlock::ToolUse { .. }))
                            .count() as u32;
                    }
                    if !matches!(event, LoopEvent::Stream(_)) {
                        forward(event);
                    }
                }
                Some(SessionEvent::Result(result)) => break result,
                None => return Err("the agent ended without a result".into()),
            }
        };
        drop(turn);
        // A teammate's turn ends in idleness, not in its end.
        match &follow_up {
            Some(next) if !cancel.is_cancelled() => match next().await {
                Some(text) => prompt = Message::user_text(text),
                None => break result,
            },
            _ => break result,
        }
    };
    drop(own_plan);
    // The session turns the loop's end into its result; front ends see the
    // sub-agent end as its loop's `Terminal`.
    if let Some(terminal) = &result.terminal {
        forward(LoopEvent::Terminal(terminal.clone()));
    }
    Ok(Finished {
        result,
        tool_uses,
        model,
        worktree: None,
    })
}

/// What a teammate spawned in plan mode is told before its task.
fn plan_first(file: &std::path::Path) -> String {
    format!(
        "You are in plan mode: until the team lead approves your plan, only read (no edits, no \
         commands that change anything). Write your plan to {} (the one file you may write), \
         then call ExitPlanMode: it sends the plan to the team lead and waits for the answer.",
        file.display()
    )
}

/// Claude Code's sidecar beside a sub-agent's transcript
/// (`agent-<id>.meta.json`): the SDKs' `get_subagent_messages` reads the
/// spawning call's id from it. Best effort: the transcript matters, not this.
/// Mirrored (`--session-mirror`) as the SDKs' SessionStore wants it: an
/// `agent_metadata` entry of the sub-agent's transcript.
fn write_agent_meta(
    shared: &AgentsShared,
    transcript: &std::path::Path,
    agent_type: &str,
    tool_use_id: &str,
) {
    let mut meta = serde_json::json!({"agentType": agent_type, "toolUseId": tool_use_id});
    let path = transcript.with_extension("meta.json");
    let _ = tack_sys::write_atomic_private(&path, meta.to_string().as_bytes());
    if shared.records.mirror.0.is_some() {
        meta["type"] = "agent_metadata".into();
        let frame = crate::event::TranscriptMirrorFrame {
            file_path: transcript.to_path_buf(),
            entries: vec![meta],
        };
        shared
            .emit
            .emit(RuntimeEvent::TranscriptMirror(Box::new(frame)));
    }
}
