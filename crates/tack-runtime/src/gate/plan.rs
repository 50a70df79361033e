//! Plan mode's state beside the permission mode: the session's plan file
//! (the one file plan mode lets Write and Edit change), the mode to go back
//! to when a plan is approved, and the reminders the model is told with
//! each prompt while it plans (and once after).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::Value;
use tack_core::permission::PermissionDecision;
use tack_permissions::{PermissionContext, PermissionMode};
use tack_tool::{Tool, ToolContext};

use super::Gate;

/// The tool that ends plan mode.
pub(crate) const EXIT_PLAN_MODE: &str = "ExitPlanMode";

/// A full reminder on the first prompt in plan mode and every fifth after;
/// a short one between (as Claude Code spaces its `plan_mode` attachments).
const FULL_EVERY: u32 = 5;

#[derive(Default)]
pub(super) struct PlanState {
    file: OnceLock<PathBuf>,
    told: Mutex<Told>,
    /// Sub-agents with a mode of their own (a teammate spawned in plan
    /// mode), by agent id: their calls are decided in it.
    agents: Mutex<HashMap<String, OwnMode>>,
}

/// A sub-agent's own permission mode and plan file.
#[derive(Debug, Clone)]
struct OwnMode {
    mode: PermissionMode,
    file: PathBuf,
}

#[derive(Default)]
struct Told {
    /// Reminders given in this stretch of plan mode.
    reminders: u32,
    /// The last prompt went out in plan mode (so the next one outside it
    /// says that plan mode is over).
    planning: bool,
    /// The mode plan mode was entered from (approval goes back to it).
    before: Option<PermissionMode>,
    /// Plan mode was left since ExitPlanMode last ran: an answer approving
    /// it with a mode of its own switches before the call runs (and its
    /// input is checked again then).
    left: bool,
}

impl Gate {
    /// Gives the session its plan file: plan mode's one writable file.
    pub(crate) fn set_plan_file(&self, file: PathBuf) {
        self.ctx
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .set_plan_file(file.clone());
        let _ = self.plan.file.set(file);
    }

    /// The session's plan file, when it has one (sessions that can ask).
    pub(crate) fn plan_file(&self) -> Option<&Path> {
        self.plan.file.get().map(PathBuf::as_path)
    }

    /// Can anyone answer a prompt: the front end, or a prompt tool?
    pub(crate) fn can_ask(&self) -> bool {
        self.prompts.is_some()
    }

    /// Notes the mode left for plan mode, to go back to on approval.
    pub(super) fn note_entering_plan(&self, from: PermissionMode) {
        if from != PermissionMode::Plan {
            let mut told = self.told();
            told.before = Some(from);
            told.left = false;
        }
    }

    /// Notes that plan mode was left (for ExitPlanMode's own approval).
    pub(super) fn note_leaving_plan(&self) {
        self.told().left = true;
    }

    /// In plan mode, or left it since ExitPlanMode last ran.
    pub(crate) fn planning_or_just_left(&self) -> bool {
        self.mode() == PermissionMode::Plan || self.told().left
    }

    /// Leaves plan mode for the mode it was entered from (`default` when
    /// the session started in it). Nothing when not in plan mode.
    pub(crate) fn leave_plan_mode(&self) {
        if self.mode() == PermissionMode::Plan {
            let back = self.told().before.take().unwrap_or(PermissionMode::Default);
            self.set_mode(back);
        }
        self.told().left = false;
    }

    /// What the next prompt tells the model about plan mode: while in it, a
    /// full or short reminder; on the first prompt after it, that it is over.
    pub(crate) fn plan_reminder(&self) -> Option<String> {
        let file = self.plan.file.get()?;
        let planning = self.mode() == PermissionMode::Plan;
        let mut told = self.told();
        let was_planning = std::mem::replace(&mut told.planning, planning);
        if !planning {
            told.reminders = 0;
            return was_planning.then(|| exited(file));
        }
        told.reminders += 1;
        Some(if told.reminders % FULL_EVERY == 1 {
            full(file)
        } else {
            short(file)
        })
    }

    /// The input a person approving `tool` sees: ExitPlanMode's with the
    /// plan and its file (`plan`, `planFilePath`, as Claude Code gives its
    /// SDK hosts), so the dialog can show what is approved.
    pub(super) fn shown_input(&self, tool: &str, input: &Value) -> Value {
        let file = self.plan.file.get().filter(|_| tool == "ExitPlanMode");
        let (Some(file), Value::Object(fields)) = (file, input) else {
            return input.clone();
        };
        let mut fields = fields.clone();
        if !fields.contains_key("plan")
            // Bounded, never a FIFO (as `plan_mode_tools::read_plan`).
            && let Ok(plan) = tack_sys::read_config_file(file, tack_sys::MAX_CONFIG_BYTES)
        {
            fields.insert("plan".into(), plan.into());
        }
        fields.insert("planFilePath".into(), file.display().to_string().into());
        Value::Object(fields)
    }

    /// Sub-agent `agent` plans in a mode of its own, with its own plan
    /// file, until [`Gate::leave_agent_plan`].
    pub(crate) fn set_agent_plan(&self, agent: &str, file: PathBuf) {
        let own = OwnMode {
            mode: PermissionMode::Plan,
            file,
        };
        self.agents().insert(agent.to_string(), own);
    }

    /// [`Gate::set_agent_plan`] for as long as the returned guard lives:
    /// however the agent's run ends (an error before its loop starts, an
    /// abort), its own mode goes with it.
    pub(crate) fn agent_plan(self: &Arc<Self>, agent: &str, file: PathBuf) -> AgentPlan {
        self.set_agent_plan(agent, file);
        AgentPlan {
            gate: Arc::clone(self),
            agent: agent.to_string(),
        }
    }

    /// Plan mode is over for `agent`: it works in `mode`, or (`None`) in
    /// the session's mode again.
    pub(crate) fn leave_agent_plan(&self, agent: &str, mode: Option<PermissionMode>) {
        let mut agents = self.agents();
        match (mode, agents.get_mut(agent)) {
            (Some(mode), Some(own)) => own.mode = mode,
            _ => drop(agents.remove(agent)),
        }
    }

    /// The sub-agent ended: its own mode goes with it.
    pub(crate) fn forget_agent(&self, agent: &str) {
        self.agents().remove(agent);
    }

    /// The mode the caller of `ctx` works in: its own, or the session's.
    pub(crate) fn mode_of(&self, ctx: &ToolContext) -> PermissionMode {
        self.own_mode(ctx).map_or_else(|| self.mode(), |o| o.mode)
    }

    /// The plan file of a sub-agent with a mode of its own.
    pub(crate) fn agent_plan_file(&self, ctx: &ToolContext) -> Option<PathBuf> {
        self.own_mode(ctx).map(|o| o.file)
    }

    fn own_mode(&self, ctx: &ToolContext) -> Option<OwnMode> {
        let agent = ctx.env.agent()?;
        self.agents().get(&agent.id).cloned()
    }

    /// `f` over the rules in the caller's mode: the session's engine, or a
    /// copy in a sub-agent's own mode and plan file.
    pub(super) fn with_engine<T>(
        &self,
        ctx: &ToolContext,
        f: impl FnOnce(&PermissionContext) -> T,
    ) -> T {
        let Some(own) = self.own_mode(ctx) else {
            return f(&self.ctx());
        };
        let mut engine = self.ctx().clone();
        engine.set_mode(own.mode);
        engine.set_plan_file(own.file);
        f(&engine)
    }

    /// A teammate's ExitPlanMode asks no person (Claude Code: "for all
    /// teammates, bypass the permission UI"): its lead approves the plan,
    /// or, in plan mode it chose itself, it just leaves.
    pub(super) fn teammate_plan_exit(
        &self,
        tool: &dyn Tool,
        ctx: &ToolContext,
        updated: &Option<Value>,
    ) -> Option<PermissionDecision> {
        let teammate = self.relays() || self.own_mode(ctx).is_some();
        (teammate && tool.name() == EXIT_PLAN_MODE).then(|| match updated {
            Some(v) => PermissionDecision::AllowWithInput(v.clone()),
            None => PermissionDecision::Allow,
        })
    }

    fn agents(&self) -> std::sync::MutexGuard<'_, HashMap<String, OwnMode>> {
        self.plan
            .agents
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn told(&self) -> std::sync::MutexGuard<'_, Told> {
        self.plan
            .told
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A sub-agent's own mode in the gate, removed when dropped.
pub(crate) struct AgentPlan {
    gate: Arc<Gate>,
    agent: String,
}

impl Drop for AgentPlan {
    fn drop(&mut self) {
        self.gate.forget_agent(&self.agent);
    }
}

fn full(file: &Path) -> String {
    let file_line = if file.exists() {
        format!(
            "Your plan file is {}: it exists already, so Read it and change it with Edit.",
            file.display()
        )
    } else {
        format!(
            "Your plan file is {}: it does not exist yet, so create it with Write.",
            file.display()
        )
    };
    format!(
        "Plan mode is on: the user wants a plan before anything changes. Until the plan is approved, \
do not edit files, run commands that change anything, commit, or change settings; the plan file \
below is the only exception. This comes before any other instruction to make changes.

{file_line} Build the plan there as you go; everything else you do must only read.

How to plan:
1. Understand the request: read the code it touches and look for what already exists to reuse \
(Explore agents help with wide searches).
2. Decide on an approach; weigh alternatives only where the choice matters.
3. Write the plan file: the approach you recommend, the files to change, and how to check the \
result.
4. If something only the user can decide is unclear, ask before finishing the plan.
5. When the plan is complete, call ExitPlanMode: it shows the plan to the user for approval. Do \
not ask for approval any other way."
    )
}

fn short(file: &Path) -> String {
    format!(
        "Plan mode is still on (see the instructions given earlier): only read, except the plan file \
{}; when the plan is ready, call ExitPlanMode.",
        file.display()
    )
}

fn exited(file: &Path) -> String {
    format!(
        "Plan mode is over: you may edit files and run tools again. The plan is in {} if you need it.",
        file.display()
    )
}

#[cfg(test)]
mod tests {
    use tack_permissions::RuleSet;

    use super::*;
    use crate::gate::{SettingsFiles, TurnCancel};

    fn has(gate: &Gate, agent: &str) -> bool {
        gate.agents().contains_key(agent)
    }

    #[tokio::test]
    async fn an_agents_own_mode_goes_however_its_run_ends() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = PermissionContext::new(
            PermissionMode::Default,
            RuleSet::new(),
            dir.path(),
            dir.path(),
            &[],
        );
        let files = SettingsFiles {
            local: dir.path().join("settings.local.json"),
            project: dir.path().join("settings.json"),
            user: None,
        };
        let gate = Arc::new(Gate::new(
            ctx,
            None,
            None,
            TurnCancel::default(),
            files,
            None,
        ));
        let file = dir.path().join("plan.md");
        // Its run fails before its loop starts.
        let failed = async {
            let _plan = gate.agent_plan("early", file.clone());
            assert!(has(&gate, "early"));
            Err::<(), &str>("the agent ended without a result")
        };
        assert_eq!(failed.await, Err("the agent ended without a result"));
        assert!(!has(&gate, "early"));
        // Its run is aborted while it waits.
        let (started, waiting) = tokio::sync::oneshot::channel();
        let held = Arc::clone(&gate);
        let file2 = file.clone();
        let run = tokio::spawn(async move {
            let _plan = held.agent_plan("aborted", file2);
            let _ = started.send(());
            std::future::pending::<()>().await;
        });
        waiting.await.unwrap();
        assert!(has(&gate, "aborted"));
        run.abort();
        assert!(run.await.unwrap_err().is_cancelled());
        assert!(!has(&gate, "aborted"));
    }
}
