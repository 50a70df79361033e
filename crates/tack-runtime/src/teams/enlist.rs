//! A new teammate's entry in its lead's team (`config.json`'s `members`):
//! made when it joins, whether it runs in-process or as a process of its
//! own; the lead's team is made with the first one.

use std::path::PathBuf;

use serde_json::Map;

use super::files::config::{self, LeadFacts, Member as ConfigMember, TEAM_LEAD, TeamConfig};
use super::files::inbox;
use super::files::place::TeamDir;
use super::session::Messaging;

/// Who joins, as the Agent call says.
pub(crate) struct Joining<'a> {
    pub name: &'a str,
    pub agent_type: &'a str,
    pub model: &'a str,
    pub prompt: &'a str,
    pub cwd: PathBuf,
    /// Its Task tools (the team's list, acting as itself) and the switch
    /// their hooks' `continue: false` turns on.
    pub tasks: Option<crate::task_hooks::TeammateTasks>,
    /// It plans first and its lead approves the plan (the Agent call's
    /// `mode: "plan"`; `planModeRequired` in its member entry).
    pub plan_mode_required: bool,
}

/// Where and how the teammate runs, as `config.json` says it.
pub(crate) struct Backing<'a> {
    /// `in-process` or `tmux` (Claude Code's word for a pane teammate).
    pub backend_type: &'a str,
    /// `in-process`, a pane's id (`%3`), or `""` (none yet).
    pub tmux_pane_id: &'a str,
}

/// The member just added.
pub(crate) struct Enlisted {
    pub team: TeamDir,
    pub name: String,
    pub color: String,
}

/// Adds `joining` to the lead's team (made on the first one) and makes its
/// inbox; an error when the name is taken, the lead's or not a name.
pub(crate) fn enlist(
    lead: &Messaging,
    joining: &Joining<'_>,
    backing: Backing<'_>,
) -> Result<Enlisted, String> {
    let Some(lead_member) = lead.member() else {
        return Err("This session is in no team: teammates need agent teams on".into());
    };
    let team = lead_member.team.clone();
    let name = super::files::names::agent(joining.name).map_err(|e| e.to_string())?;
    if name == TEAM_LEAD {
        return Err(format!("{TEAM_LEAD} is the lead's name"));
    }
    let cwd = joining.cwd.display().to_string();
    let mut taken = false;
    let mut color = String::new();
    let lead_facts = LeadFacts {
        model: joining.model.to_string(),
        cwd: cwd.clone(),
    };
    config::update(
        &team,
        || TeamConfig::new(team.name(), "", lead.session_id(), lead_facts),
        |c| {
            if c.member(name).is_some() {
                taken = true;
                return;
            }
            color = c.next_color().to_string();
            c.members.push(ConfigMember {
                agent_id: config::agent_id(name, team.name()),
                name: name.to_string(),
                agent_type: joining.agent_type.to_string(),
                model: joining.model.to_string(),
                prompt: Some(joining.prompt.to_string()),
                color: Some(color.clone()),
                plan_mode_required: Some(joining.plan_mode_required),
                joined_at: config::now_ms(),
                tmux_pane_id: backing.tmux_pane_id.into(),
                cwd,
                subscriptions: Vec::new(),
                backend_type: Some(backing.backend_type.into()),
                extra: Map::new(),
            });
        },
    )
    .map_err(|e| e.to_string())?;
    if taken {
        return Err(format!("The team already has a member named {name}"));
    }
    let own_inbox = team.inbox(name).map_err(|e| e.to_string())?;
    inbox::ensure(&own_inbox).map_err(|e| e.to_string())?;
    Ok(Enlisted {
        team,
        name: name.to_string(),
        color,
    })
}

/// Records the pane a teammate got after joining.
pub(crate) fn set_pane(team: &TeamDir, name: &str, pane: &str) -> Result<(), String> {
    update_member(team, name, |m| m.tmux_pane_id = pane.to_string())
}

/// Changes the member `name` of the team's config (under its lock).
pub(crate) fn update_member(
    team: &TeamDir,
    name: &str,
    change: impl FnOnce(&mut ConfigMember),
) -> Result<(), String> {
    let missing = || {
        let lead = LeadFacts {
            model: String::new(),
            cwd: String::new(),
        };
        TeamConfig::new(team.name(), "", "", lead)
    };
    config::update(team, missing, |c| {
        if let Some(m) = c.members.iter_mut().find(|m| m.name == name) {
            change(m);
        }
    })
    .map(drop)
    .map_err(|e| e.to_string())
}
