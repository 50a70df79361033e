//! The Agent tool (legacy name `Task`): starts a sub-agent and returns its
//! final text, or with `run_in_background` its id at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_core::session::ResultSubtype;
use tack_extensions::agents::{
    AGENT_TOOL_NAME, AgentDefinition, AgentTools, LEGACY_AGENT_TOOL_NAME,
};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};
use tack_tools::TaskEnd;
use tokio_util::sync::DropGuard;

use super::isolation::with_worktree_note;
use super::run::{Finished, Launch, run_subagent, transcript_of};
use super::{AgentsShared, Woken};
use crate::event::{RuntimeEvent, TaskEvent, TaskStatus, TaskUsage};

/// The type used when a call names none.
const DEFAULT_TYPE: &str = "general-purpose";

/// Other fields newer Claude Code versions send (`team_name`: a session
/// has one team) are accepted and ignored; `name` with agent teams on
/// makes the agent a teammate, and `mode: "plan"` one that plans first
/// and has its plan approved by the lead (other modes are ignored).
#[derive(Debug, Deserialize)]
struct AgentInput {
    description: String,
    prompt: String,
    subagent_type: Option<String>,
    model: Option<String>,
    run_in_background: Option<bool>,
    /// `worktree` (`remote`, Claude Code's cloud agents, is refused).
    isolation: Option<String>,
    /// The teammate's name in the session's team.
    name: Option<String>,
    /// `plan`: the teammate starts in plan mode (`planModeRequired`).
    mode: Option<String>,
}

impl AgentInput {
    fn plan_mode_required(&self) -> bool {
        self.mode.as_deref() == Some("plan")
    }
}

/// See the module docs. The session's own instance stops its background
/// agents when dropped; instances given to sub-agents do not.
pub(crate) struct AgentTool {
    shared: Arc<AgentsShared>,
    /// The agent this tool belongs to (depth 0: the session).
    nesting: Nesting,
    _session_over: Option<DropGuard>,
}

/// How deep sub-agents may nest: a definition listing `Agent` must not turn
/// one prompt into hundreds of model calls.
pub(crate) const MAX_AGENT_DEPTH: usize = 4;
/// Sub-agents of one session running at once (Claude Code: 20).
pub(crate) const MAX_RUNNING_AGENTS: usize = 20;

impl AgentTool {
    /// The session's Agent tool.
    pub(crate) fn new(shared: Arc<AgentsShared>) -> AgentTool {
        let guard = shared.lifetime.session_over.clone().drop_guard();
        AgentTool {
            shared,
            nesting: Nesting {
                depth: 0,
                running: Arc::default(),
            },
            _session_over: Some(guard),
        }
    }

    /// The Agent tool of a sub-agent whose definition allows it.
    pub(crate) fn nested(shared: Arc<AgentsShared>, nesting: Nesting) -> AgentTool {
        AgentTool {
            shared,
            nesting,
            _session_over: None,
        }
    }

    /// A slot among the session's running sub-agents, given back when the
    /// returned guard drops; an error past either cap.
    fn admit(&self) -> Result<RunningSlot, ToolError> {
        if self.nesting.depth >= MAX_AGENT_DEPTH {
            return Err(ToolError::new(format!(
                "Sub-agents may nest at most {MAX_AGENT_DEPTH} levels deep; this agent is at \
                 level {}. Do the work here instead of starting another agent.",
                self.nesting.depth
            )));
        }
        let running = self.nesting.running.fetch_add(1, Ordering::SeqCst) + 1;
        let slot = RunningSlot(self.nesting.running.clone());
        if running > MAX_RUNNING_AGENTS {
            return Err(ToolError::new(format!(
                "At most {MAX_RUNNING_AGENTS} sub-agents may run at once; wait for some to finish."
            )));
        }
        Ok(slot)
    }

    fn child_nesting(&self) -> Nesting {
        Nesting {
            depth: self.nesting.depth + 1,
            running: self.nesting.running.clone(),
        }
    }

    fn parse(&self, input: &Value) -> Result<(AgentInput, &AgentDefinition), ToolError> {
        let input: AgentInput = serde_json::from_value(input.clone())
            .map_err(|e| ToolError::new(format!("InputValidationError: Agent: {e}")))?;
        if input.description.trim().is_empty() || input.prompt.trim().is_empty() {
            return Err(ToolError::new(
                "InputValidationError: Agent: `description` and `prompt` must not be empty",
            ));
        }
        match input.isolation.as_deref() {
            None | Some("worktree") => {}
            Some(other) => {
                return Err(ToolError::new(format!(
                    "InputValidationError: Agent: isolation `{other}` is not available here; \
                     use `worktree` or leave it out"
                )));
            }
        }
        let def = self.definition(input.subagent_type.as_deref())?;
        Ok((input, def))
    }

    /// The definition of agent type `kind` (default general-purpose).
    fn definition(&self, kind: Option<&str>) -> Result<&AgentDefinition, ToolError> {
        let kind = kind.unwrap_or(DEFAULT_TYPE);
        self.shared.catalog.get(kind).ok_or_else(|| {
            ToolError::new(format!(
                "Agent type '{kind}' not found. Available agents: {}",
                self.shared.catalog.names().join(", ")
            ))
        })
    }

    fn launch(
        &self,
        agent_id: String,
        def: &AgentDefinition,
        input: &AgentInput,
        ctx: &ToolContext,
    ) -> Launch {
        Launch {
            agent_id,
            definition: def.clone(),
            prompt: input.prompt.clone(),
            model: input.model.clone(),
            parent_tool_use_id: ctx.tool_use_id.clone(),
            worktree: def.worktree || input.isolation.as_deref() == Some("worktree"),
            teammate: None,
            agent_tool: def.gets_agent_tool().then(|| {
                Arc::new(AgentTool::nested(self.shared.clone(), self.child_nesting()))
                    as Arc<dyn Tool>
            }),
        }
    }

    /// The teammate an Agent call with `name` makes, when the session has a
    /// team (only the session's own Agent tool spawns teammates).
    fn teammate(
        &self,
        input: &AgentInput,
        def: &AgentDefinition,
        ctx: &ToolContext,
    ) -> Result<Option<crate::teams::teammate::Teammate>, ToolError> {
        let (Some(name), Some(lead)) = (&input.name, &self.shared.team) else {
            return Ok(None);
        };
        if self.nesting.depth > 0 {
            return Ok(None);
        }
        let model = (input.model.as_deref())
            .map(|m| self.shared.models.request_env.resolve(m, false))
            .unwrap_or_else(|| self.shared.models.model.get());
        let joining = crate::teams::teammate::Joining {
            name,
            agent_type: &def.name,
            model: &model,
            prompt: &input.prompt,
            cwd: ctx.env.cwd(),
            tasks: (lead.member()).map(|m| (self.shared.tasks).for_teammate(m.team.name(), name)),
            plan_mode_required: input.plan_mode_required(),
        };
        let mut teammate = crate::teams::teammate::join(lead, joining, self.shared.hooks.clone())
            .map_err(ToolError::new)?;
        if let Some(approver) = teammate.plan.clone() {
            let gate = &self.shared.gate;
            let (dir, session) = (lead.claude_dir(), lead.session_id());
            let file = crate::plan_mode_tools::teammate_plan_file(gate, dir, session, name);
            teammate.plan_file = Some(file);
            let exit = crate::plan_mode_tools::teammate_exit_plan_mode(gate, Arc::new(approver));
            teammate.tools.push(exit);
        }
        Ok(Some(teammate))
    }

    /// Runs a sub-agent in the foreground: its id and how it finished.
    async fn run_foreground(
        &self,
        def: &AgentDefinition,
        input: &AgentInput,
        ctx: &ToolContext,
    ) -> Result<(String, Finished), ToolError> {
        let slot = self.admit()?;
        let agent_id = tack_tools::new_task_id('a');
        ctx.progress.send(json!({
            "type": "agent_started", "agentId": agent_id, "agentType": def.name,
            "description": input.description,
        }));
        let launch = self.launch(agent_id.clone(), def, input, ctx);
        let started = Instant::now();
        self.shared
            .emit
            .emit(RuntimeEvent::Task(Box::new(task_started(
                &launch, input, false,
            ))));
        let ran = run_subagent(&self.shared, launch, &ctx.env, ctx.cancel.child_token()).await;
        let status = match &ran {
            _ if ctx.cancel.is_cancelled() => TaskStatus::Stopped,
            Ok(f) if f.result.subtype == ResultSubtype::Success && !f.result.is_error => {
                TaskStatus::Completed
            }
            Ok(_) | Err(_) => TaskStatus::Failed,
        };
        let output_file = transcript_of(&self.shared, ctx.env.session_dir(), &agent_id);
        self.shared
            .emit
            .emit(RuntimeEvent::Task(Box::new(TaskEvent::Finished {
                task_id: agent_id.clone(),
                tool_use_id: ctx.tool_use_id.clone(),
                status,
                summary: format!("Agent \"{}\" {}", input.description, status.as_str()),
                output_file: output_file.unwrap_or_default(),
                usage: task_usage(ran.as_ref().ok(), started),
                background: false,
            })));
        drop(slot);
        Ok((agent_id, ran.map_err(ToolError::new)?))
    }

    /// A skill with `context: fork`: its expanded body is the prompt of a
    /// foreground sub-agent of type `kind` (the skill's `agent`, default
    /// general-purpose) on the skill's `model`, if any. Returns the agent's
    /// id and final text.
    pub(crate) async fn run_forked_skill(
        &self,
        skill: &str,
        kind: Option<&str>,
        prompt: String,
        model: Option<String>,
        ctx: &ToolContext,
    ) -> Result<(String, String), ToolError> {
        let def = self.definition(kind)?;
        let input = AgentInput {
            description: format!("Skill {skill}"),
            prompt,
            subagent_type: Some(def.name.clone()),
            model,
            run_in_background: None,
            isolation: None,
            name: None,
            mode: None,
        };
        let (agent_id, finished) = self.run_foreground(def, &input, ctx).await?;
        if finished.result.is_error {
            return Err(ToolError::new(failure_text(&finished)));
        }
        Ok((agent_id, finished.result.result))
    }
}

fn tools_label(def: &AgentDefinition) -> String {
    match &def.tools {
        AgentTools::All => "*".into(),
        AgentTools::Only(names) => names.join(", "),
    }
}

/// One running sub-agent, counted until dropped.
struct RunningSlot(Arc<AtomicUsize>);

impl Drop for RunningSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A sub-agent's place among the session's: how deep it is (1 for one the
/// session started) and how many of the session's run now (shared by every
/// Agent tool of the session).
#[derive(Debug, Clone)]
pub(crate) struct Nesting {
    pub depth: usize,
    pub running: Arc<AtomicUsize>,
}

impl Tool for AgentTool {
    fn name(&self) -> &str {
        AGENT_TOOL_NAME
    }

    fn aliases(&self) -> &[&str] {
        &[LEGACY_AGENT_TOOL_NAME]
    }

    fn description(&self) -> String {
        let agents: Vec<String> = self
            .shared
            .catalog
            .iter()
            .map(|d| {
                format!(
                    "- {}: {} (Tools: {})",
                    d.name,
                    d.description,
                    tools_label(d)
                )
            })
            .collect();
        format!(
            "Launch a new agent to handle a complex, multi-step task autonomously.\n\n\
             Each agent runs with its own context window and tools and returns one final \
             message to you. Available agent types and the tools they have access to:\n{}\n\n\
             When using the Agent tool, specify a subagent_type to select the agent type \
             (default: {DEFAULT_TYPE}).\n\n\
             Usage notes:\n\
             - Launch several agents concurrently whenever possible: use one message with \
             several Agent tool calls.\n\
             - The agent's result is not visible to the user: summarise it for them.\n\
             - Each invocation starts fresh: the prompt must contain everything the agent \
             needs, and say exactly what it should return.\n\
             - Tell the agent whether you expect it to write code or only to research.\n\
             - With run_in_background the call returns an agent id at once; read the \
             result later with TaskOutput and stop it with TaskStop.",
            agents.join("\n")
        )
    }

    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
                "prompt": {"type": "string", "description": "The task for the agent to perform"},
                "subagent_type": {"type": "string", "description": "The type of specialized agent to use for this task"},
                "model": {"type": "string", "enum": ["sonnet", "opus", "haiku"], "description": "Optional model for this agent; defaults to the agent definition's (or this session's) model"},
                "run_in_background": {"type": "boolean", "description": "Run the agent in the background and return its id at once; read its result with TaskOutput"},
                "isolation": {"type": "string", "enum": ["worktree"], "description": "\"worktree\" gives the agent its own git worktree (removed if it changes nothing; otherwise its path and branch are returned)"}
            },
            "required": ["description", "prompt"],
            "additionalProperties": false,
            "$schema": "http://json-schema.org/draft-07/schema#"
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        // Its sub-agent's tool calls are each checked by the permission gate.
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        self.parse(input).map(drop)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let (input, def) = self.parse(&input)?;
            let asked = super::team_process::Asked {
                name: input.name.as_deref(),
                model: input.model.as_deref(),
                prompt: &input.prompt,
                plan_mode_required: input.plan_mode_required(),
            };
            let depth = self.nesting.depth;
            if let Some(spawned) =
                super::team_process::spawn_teammate(&self.shared, depth, asked, def, ctx).await?
            {
                return Ok(spawned);
            }
            let teammate = self.teammate(&input, def, ctx)?;
            if input.run_in_background.unwrap_or(false) || teammate.is_some() {
                let slot = self.admit()?;
                let joined = teammate.as_ref().map(|t| t.agent_id.clone());
                let launch = |agent_id: String| Launch {
                    teammate,
                    ..self.launch(agent_id, def, &input, ctx)
                };
                let started = self.start_background(launch, &input, ctx, slot)?;
                return Ok(match joined {
                    Some(id) => crate::teams::teammate::spawned(&id, started),
                    None => started,
                });
            }
            let started = Instant::now();
            let (agent_id, finished) = self.run_foreground(def, &input, ctx).await?;
            report(&agent_id, def, &input.prompt, finished, started)
        }
        .boxed()
    }
}

impl AgentTool {
    fn start_background(
        &self,
        launch: impl FnOnce(String) -> Launch,
        input: &AgentInput,
        ctx: &ToolContext,
        slot: RunningSlot,
    ) -> ToolResult {
        let mut task = self
            .shared
            .lifetime
            .tasks
            .register('a', &input.description, ctx.env.session_dir())
            .map_err(|e| ToolError::new(format!("Could not start the background agent: {e}")))?;
        let agent_id = task.id().to_owned();
        let output = task.output_path().to_path_buf();
        let launch = launch(agent_id.clone());
        let shared = self.shared.clone();
        let env = ctx.env.clone();
        let cancel = shared.lifetime.session_over.child_token();
        let stop = task.stop_requested();
        let tool_use_id = ctx.tool_use_id.clone();
        let description = input.description.clone();
        shared.emit.emit(RuntimeEvent::Task(Box::new(task_started(
            &launch, input, true,
        ))));
        let output_file = output.clone();
        shared.lifetime.wake_owed.fetch_add(1, Ordering::SeqCst);
        let started = Instant::now();
        tokio::spawn(async move {
            let _slot = slot;
            let run = run_subagent(&shared, launch, &env, cancel.clone());
            let (text, end, usage) = tokio::select! {
                finished = run => match finished {
                    Ok(f) if f.result.subtype == ResultSubtype::Success && !f.result.is_error => {
                        let text = with_worktree_note(&f.result.result, f.worktree.as_ref());
                        (text, TaskEnd::Completed, task_usage(Some(&f), started))
                    }
                    Ok(f) => (failure_text(&f), TaskEnd::Failed, task_usage(Some(&f), started)),
                    Err(e) => (e, TaskEnd::Failed, task_usage(None, started)),
                },
                () = stop.cancelled() => {
                    cancel.cancel();
                    (String::new(), TaskEnd::Killed, task_usage(None, started))
                }
            };
            let task_id = task.id().to_owned();
            if end != TaskEnd::Killed {
                // The result is what TaskOutput returns; a write error
                // leaves the status, which is still right.
                let _ = task.write(&format!("{text}\n"));
            }
            task.finish(end);
            let status = match end {
                TaskEnd::Completed => TaskStatus::Completed,
                TaskEnd::Failed => TaskStatus::Failed,
                _ => TaskStatus::Stopped,
            };
            shared
                .emit
                .emit(RuntimeEvent::Task(Box::new(TaskEvent::Finished {
                    task_id: task_id.clone(),
                    tool_use_id,
                    status,
                    summary: format!("Agent \"{description}\" {}", status.as_str()),
                    output_file,
                    usage,
                    background: true,
                })));
            // Sent for a stopped agent too: the session counts agents in
            // flight until it hears of their end.
            let woken = Woken {
                task_id,
                description,
                status: status.as_str(),
                result: text,
            };
            let _ = shared.lifetime.wake.send(woken);
        });
        Ok(ToolOutput::text(format!(
            "Async agent launched successfully.\nagentId: {agent_id} (the task id for TaskOutput \
             and TaskStop)\nThe agent is working in the background; its final message is \
             written to {}. Use TaskOutput with task_id \"{agent_id}\" to wait for and read \
             its result, or TaskStop to stop it.",
            output.display()
        ))
        .with_structured(json!({
            "status": "async_launched",
            "agentId": agent_id,
            "description": input.description,
            "prompt": input.prompt,
            "outputFile": output,
        })))
    }
}

/// A launch's `TaskEvent::Started`.
fn task_started(launch: &Launch, input: &AgentInput, background: bool) -> TaskEvent {
    TaskEvent::Started {
        task_id: launch.agent_id.clone(),
        tool_use_id: launch.parent_tool_use_id.clone(),
        description: input.description.clone(),
        subagent_type: launch.definition.name.clone(),
        prompt: input.prompt.clone(),
        background,
    }
}

/// What a sub-agent used: `None` when it never finished.
fn task_usage(f: Option<&Finished>, started: Instant) -> TaskUsage {
    TaskUsage {
        total_tokens: f.map_or(0, |f| total_tokens(&f.result.usage)),
        tool_uses: f.map_or(0, |f| f.tool_uses),
        duration_ms: started.elapsed().as_millis() as u64,
    }
}

fn total_tokens(usage: &tack_protocol::Usage) -> u64 {
    usage.input_tokens
        + usage.output_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
}

fn failure_text(f: &Finished) -> String {
    let why = if f.result.errors.is_empty() {
        f.result.subtype.as_str().to_owned()
    } else {
        f.result.errors.join("; ")
    };
    format!("The agent failed: {why}")
}

/// The tool result of a finished foreground agent: its final text and usage.
fn report(
    agent_id: &str,
    def: &AgentDefinition,
    prompt: &str,
    f: Finished,
    started: Instant,
) -> ToolResult {
    if f.result.is_error {
        return Err(ToolError::new(failure_text(&f)));
    }
    let usage = &f.result.usage;
    let total_tokens = total_tokens(usage);
    let duration_ms = started.elapsed().as_millis() as u64;
    let text = if f.result.result.trim().is_empty() {
        "(the agent gave no final message)".to_owned()
    } else {
        f.result.result.clone()
    };
    let text = with_worktree_note(&text, f.worktree.as_ref());
    let content = format!(
        "{text}\n\nagentId: {agent_id}\n<usage>total_tokens: {total_tokens}\ntool_uses: {}\n\
         duration_ms: {duration_ms}</usage>",
        f.tool_uses
    );
    let mut structured = json!({
        "status": "completed",
        "agentId": agent_id,
        "agentType": def.name,
        "prompt": prompt,
        "content": [{"type": "text", "text": f.result.result}],
        "model": f.model,
        "totalDurationMs": duration_ms,
        "totalTokens": total_tokens,
        "totalToolUseCount": f.tool_uses,
        "totalCostUsd": f.result.total_cost_usd,
        "usage": usage,
    });
    if let Some(kept) = &f.worktree {
        structured["worktreePath"] = json!(kept.path);
        structured["worktreeBranch"] = json!(kept.branch);
    }
    Ok(ToolOutput::text(content).with_structured(structured))
}
