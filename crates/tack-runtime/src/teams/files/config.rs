//! A team's `config.json`: its name, description, creation time (epoch ms),
//! lead (`team-lead@<team>`, the lead's session id) and every member who
//! joined, lead first. Members are added, never removed.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::TeamFileError;
use super::io;
use super::place::TeamDir;

/// The lead's agent name in every team.
pub const TEAM_LEAD: &str = "team-lead";

/// Colours given to teammates in the order they join, as Claude Code does.
pub const COLORS: [&str; 8] = [
    "blue", "green", "yellow", "purple", "orange", "pink", "cyan", "red",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub created_at: u64,
    pub lead_agent_id: String,
    #[serde(default)]
    pub lead_session_id: String,
    #[serde(default)]
    pub members: Vec<Member>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One member; the lead has no prompt, colour, plan flag or backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub agent_id: String,
    pub name: String,
    #[serde(default)]
    pub agent_type: String,
    #[serde(default)]
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_mode_required: Option<bool>,
    #[serde(default)]
    pub joined_at: u64,
    /// `""` for the lead, `"in-process"` for an in-process teammate, else a
    /// terminal pane's id.
    #[serde(default)]
    pub tmux_pane_id: String,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub subscriptions: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_type: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TeamConfig {
    /// A new team whose only member is its lead.
    pub fn new(team: &str, description: &str, lead_session: &str, lead: LeadFacts) -> TeamConfig {
        let now = now_ms();
        TeamConfig {
            name: team.to_string(),
            description: description.to_string(),
            created_at: now,
            lead_agent_id: agent_id(TEAM_LEAD, team),
            lead_session_id: lead_session.to_string(),
            members: vec![Member {
                agent_id: agent_id(TEAM_LEAD, team),
                name: TEAM_LEAD.to_string(),
                agent_type: TEAM_LEAD.to_string(),
                model: lead.model,
                prompt: None,
                color: None,
                plan_mode_required: None,
                joined_at: now,
                tmux_pane_id: String::new(),
                cwd: lead.cwd,
                subscriptions: Vec::new(),
                backend_type: None,
                extra: Map::new(),
            }],
            extra: Map::new(),
        }
    }

    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }

    /// The colour the next teammate gets.
    pub fn next_color(&self) -> &'static str {
        let teammates = self.members.iter().filter(|m| m.name != TEAM_LEAD).count();
        COLORS[teammates % COLORS.len()]
    }
}

/// What the lead's member entry says.
#[derive(Debug, Clone)]
pub struct LeadFacts {
    pub model: String,
    pub cwd: String,
}

/// `<name>@<team>`.
pub fn agent_id(name: &str, team: &str) -> String {
    format!("{name}@{team}")
}

pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The team's config, `None` when the team has none.
pub fn read(team: &TeamDir) -> Result<Option<TeamConfig>, TeamFileError> {
    io::read(&team.config())
}

/// Reads, changes and replaces the team's config under the team folder's
/// lock; `create` makes it when there is none. Returns the config written.
pub fn update(
    team: &TeamDir,
    create: impl FnOnce() -> TeamConfig,
    change: impl FnOnce(&mut TeamConfig),
) -> Result<TeamConfig, TeamFileError> {
    let _lock = io::lock_dir(team.dir())?;
    let mut config = io::read(&team.config())?.unwrap_or_else(create);
    change(&mut config);
    check_name(&team.config(), &config, team.name())?;
    tack_sys::private_file::create_dirs_private(&team.inboxes())
        .map_err(TeamFileError::io(&team.inboxes()))?;
    io::write(&team.config(), &config)?;
    Ok(config)
}

fn check_name(path: &Path, config: &TeamConfig, team: &str) -> Result<(), TeamFileError> {
    if config.name == team {
        return Ok(());
    }
    Err(TeamFileError::malformed(
        path,
        format!("its name is {:?}, not its folder's {team:?}", config.name),
    ))
}
