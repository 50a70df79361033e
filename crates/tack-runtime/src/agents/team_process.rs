//! The Agent tool's `name` when the session's teammates run as processes
//! of their own (`crate::teams::backend`): the teammate starts as a
//! background session, and the call answers Claude Code's "Spawned
//! successfully" with its job id (and pane).

use tack_extensions::agents::AgentDefinition;
use tack_tool::{ToolContext, ToolError, ToolOutput};

use super::AgentsShared;
use crate::teams::backend::Backend;
use crate::teams::enlist::Joining;
use crate::teams::process_teammate::{Spawned, Spawning, spawn};

/// What the Agent call asks of the teammate.
pub(super) struct Asked<'a> {
    pub name: Option<&'a str>,
    pub model: Option<&'a str>,
    pub prompt: &'a str,
    /// It starts in plan mode and its lead approves its plan.
    pub plan_mode_required: bool,
}

/// The teammate's process started, or `None` when this call makes no such
/// teammate (no `name`, no team, in-process teammates, a nested agent).
pub(super) async fn spawn_teammate(
    shared: &AgentsShared,
    depth: usize,
    asked: Asked<'_>,
    def: &AgentDefinition,
    ctx: &ToolContext,
) -> Result<Option<ToolOutput>, ToolError> {
    let (Some(name), Some(lead), Backend::Process { command, pane }) =
        (asked.name, &shared.team, &shared.teammates)
    else {
        return Ok(None);
    };
    if depth > 0 {
        return Ok(None);
    }
    let model = (asked.model)
        .map(|m| shared.models.request_env.resolve(m, false))
        .unwrap_or_else(|| shared.models.model.get());
    let spawning = Spawning {
        joining: Joining {
            name,
            agent_type: &def.name,
            model: &model,
            prompt: asked.prompt,
            cwd: ctx.env.cwd(),
            tasks: None,
            plan_mode_required: asked.plan_mode_required,
        },
        command,
        pane: *pane,
        permission_mode: match asked.plan_mode_required {
            true => tack_permissions::PermissionMode::Plan.to_string(),
            false => shared.gate.mode().to_string(),
        },
        arrivals: ctx.env.arrivals().clone(),
    };
    let spawned = spawn(lead, spawning).await.map_err(ToolError::new)?;
    Ok(Some(answer(&spawned)))
}

/// Claude Code's answer for a spawned teammate, with the job (and pane).
fn answer(spawned: &Spawned) -> ToolOutput {
    let started = ToolOutput::text(String::new()).with_structured(serde_json::json!({
        "job_id": spawned.job_id,
        "tmux_pane_id": spawned.pane.clone().unwrap_or_default(),
    }));
    let mut more = format!(
        "\nIt runs as background session {id}: `tack attach {id}` opens it.",
        id = spawned.job_id
    );
    if let Some(pane) = &spawned.pane {
        more.push_str(&format!(" Its tmux pane is {pane}."));
    }
    if let Some(e) = &spawned.pane_error {
        more.push_str(&format!(" No tmux pane opened: {e}"));
    }
    crate::teams::teammate::spawned_with(&spawned.agent_id, started, &more)
}
