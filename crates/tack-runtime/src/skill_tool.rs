//! The `Skill` tool: loads a skill's instructions into the turn on demand.
//! It passes the permission gate and hooks like any tool (`Skill(name)`
//! rules name a skill).
//!
//! A skill with `context: fork` does not load into the turn: its expanded
//! body (with the base-directory line) is the prompt of a foreground
//! sub-agent of its `agent` type (default general-purpose), run by the
//! session's Agent tool, and the agent's final text is the result, as
//! Claude Code words it (`Skill "x" completed (forked execution).`).

use std::sync::{Arc, OnceLock, Weak};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tack_extensions::custom_commands::inline_shell::InlineShell;
use tack_extensions::skills::{Skill, Skills};
use tack_tool::{Tool, ToolContext, ToolError, ToolOutput, ToolResult};

use crate::agents::AgentTool;
use crate::gate::Gate;
use crate::inline_shell::expand;

pub const SKILL_TOOL_NAME: &str = "Skill";

/// Claude Code's description of the tool (the list itself is a reminder).
const DESCRIPTION: &str = "Invoke a skill.\n\nA skill is a packaged set of instructions the user or project has set up for a particular kind of task (deploy steps, a review checklist, a repo-specific workflow). Available skills appear in a listing from the system with one-line descriptions. When the task at hand is one a listed skill covers, call this tool first \u{2014} the skill's instructions load into the turn for you to follow in place of your default approach. Users may also ask for one by name (`/<name>`, or \"slash command\"); that's a request to invoke it.\n\n- `skill`: exact name from the listing, no leading slash. Directory-scoped skills are listed with a path prefix (`apps/web:deploy`); when both scoped and unscoped variants of a name exist, pick the one whose directory contains the files you're working on (most specific wins; unscoped otherwise).\n- `args`: optional arguments to pass through.\n\nOnly names from the listing (or that the user typed explicitly) are valid. Built-in CLI commands (`/help`, `/clear`, \u{2026}) aren't skills. If a `<command-name>` block is already present this turn, the skill is loaded \u{2014} follow it directly rather than calling again.\n";

/// The `Skill` tool over a session's skills.
pub struct SkillTool {
    skills: Arc<Skills>,
    /// The session's Agent tool, which runs forked skills (weak: the Agent
    /// tool's sub-agents hold this tool).
    agents: OnceLock<Weak<AgentTool>>,
    /// Decides the skill's `` !`command` `` lines (PreSkillShellCommand
    /// hooks, then the rules); without it, none runs.
    gate: OnceLock<Arc<Gate>>,
}

impl SkillTool {
    pub fn new(skills: Arc<Skills>) -> Self {
        SkillTool {
            skills,
            agents: OnceLock::new(),
            gate: OnceLock::new(),
        }
    }

    /// Lets `agents` run the skills with `context: fork`.
    pub(crate) fn set_agent_tool(&self, agents: &Arc<AgentTool>) {
        let _ = self.agents.set(Arc::downgrade(agents));
    }

    /// Lets the skills' `` !`command` `` lines run, as `gate` decides.
    pub(crate) fn set_gate(&self, gate: &Arc<Gate>) {
        let _ = self.gate.set(Arc::clone(gate));
    }

    /// The skill's text for the model, its `` !`command` `` lines run (or
    /// replaced by why not), as Claude Code runs them when Claude loads it.
    async fn text(&self, skill: &Skill, args: &str, ctx: &ToolContext) -> String {
        let text = skill.tool_text(args);
        let Some(gate) = self.gate.get().cloned() else {
            return text;
        };
        let owner = skill.shell_owner("claude");
        let stop = ctx.cancel.clone();
        let may_run = move |c: String| {
            let (gate, owner, stop) = (gate.clone(), owner.clone(), stop.clone());
            let decided = async move { gate.inline_shell(&c, Some(&owner), &stop).await };
            Box::pin(decided) as BoxFuture<'static, _>
        };
        let cwd = ctx.env.cwd();
        expand(&text, InlineShell::Run, &may_run, &cwd, &ctx.cancel).await
    }

    /// A `context: fork` skill's run in a sub-agent.
    async fn fork(&self, skill: &Skill, args: &str, ctx: &ToolContext) -> ToolResult {
        let Some(agents) = self.agents.get().and_then(Weak::upgrade) else {
            return Err(ToolError::new(format!(
                "Skill {} runs in a sub-agent (context: fork), and sub-agents are off in this session",
                skill.name
            )));
        };
        let prompt = self.text(skill, args, ctx).await;
        let (agent_id, result) = agents
            .run_forked_skill(
                &skill.name,
                skill.agent.as_deref(),
                prompt,
                skill.model.clone(),
                ctx,
            )
            .await?;
        let name = &skill.name;
        Ok(ToolOutput::text(format!(
            "Skill \"{name}\" completed (forked execution).\n\nResult:\n{result}"
        ))
        .with_structured(
            json!({"success": true, "commandName": name, "status": "forked",
                "agentId": agent_id, "result": result}),
        ))
    }

    /// (the skill, its args) of a call, or what the model got wrong.
    fn parse(&self, input: &Value) -> Result<(&Skill, String), ToolError> {
        let Some(name) = input.get("skill").and_then(Value::as_str) else {
            return Err(ToolError::new(
                "The required parameter `skill` is missing or not a string",
            ));
        };
        let args = match input.get("args") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(ToolError::new("The parameter `args` must be a string")),
        };
        let name = name.trim().trim_start_matches('/');
        match self.skills.get(name) {
            Some(skill) if skill.model_invocable => Ok((skill, args)),
            Some(_) => Err(ToolError::new(format!(
                "Skill {name} cannot be used with the Skill tool: it has disable-model-invocation set"
            ))),
            None => Err(ToolError::new(format!("Unknown skill: {name}"))),
        }
    }
}

impl Tool for SkillTool {
    fn name(&self) -> &str {
        SKILL_TOOL_NAME
    }

    fn description(&self) -> String {
        DESCRIPTION.to_owned()
    }

    fn input_schema(&self) -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "skill": {"description": "The name of a skill from the available-skills list. Do not guess names.", "type": "string"},
                "args": {"description": "Optional arguments for the skill", "type": "string"}
            },
            "required": ["skill"],
            "additionalProperties": false
        })
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        self.parse(input).map(drop)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let (skill, args) = self.parse(&input)?;
            if skill.fork {
                return self.fork(skill, &args, ctx).await;
            }
            Ok(ToolOutput::text(self.text(skill, &args, ctx).await)
                .with_structured(json!({"success": true, "commandName": skill.name})))
        })
    }
}
