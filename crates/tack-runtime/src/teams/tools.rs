//! A session's team tools: with agent teams on
//! (`CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS`), the session registers itself so
//! other sessions find it, listens for their messages, watches its inbox
//! when it is a team member, and offers `SendMessage` and `ListAgents`.
//!
//! A session joins a team as a member when `CLAUDE_CODE_TEAM_NAME` and
//! `CLAUDE_CODE_AGENT_NAME` name it (`CLAUDE_CODE_AGENT_COLOR` its colour):
//! how a teammate in its own process is told who it is.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tack_tool::Tool;

use super::files::config::TEAM_LEAD;
use super::files::place::TeamDir;
use super::list_agents::ListAgentsTool;
use super::send_message::SendMessageTool;
use super::session::{DeliverText, Member, Messaging, MessagingOptions};
use crate::place::Env;

/// Whether agent teams are on.
pub fn teams_enabled(env: &Env) -> bool {
    env.get("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS")
        .is_some_and(|v| {
            !matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            )
        })
}

/// Claude Code's config dir: `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_dir(env: &Env, home: Option<&Path>) -> Option<PathBuf> {
    env.get("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".claude")))
}

/// Where the session is, to build its team tools.
pub struct TeamToolsParts<'a> {
    pub env: &'a Env,
    pub home: Option<&'a Path>,
    pub session_id: &'a str,
    pub cwd: &'a Path,
    pub arrivals: tack_tool::Arrivals,
}

/// A session's team part: its messaging (for the Agent tool's teammates)
/// and its tools.
pub struct TeamTools {
    pub messaging: Arc<Messaging>,
    pub tools: Vec<Arc<dyn Tool>>,
}

/// The team tools, and warnings for whatever could not start; none when
/// teams are off. A session not told its team leads one of its own
/// (`session-<id>`, made when its first teammate joins).
pub fn team_tools(p: TeamToolsParts<'_>, deliver: DeliverText) -> (Option<TeamTools>, Vec<String>) {
    if !teams_enabled(p.env) {
        return (None, Vec::new());
    }
    let Some(claude_dir) = claude_dir(p.env, p.home) else {
        return (
            None,
            vec!["agent teams are off: no HOME or CLAUDE_CONFIG_DIR".into()],
        );
    };
    let mut warnings = Vec::new();
    let member = match (
        p.env.get("CLAUDE_CODE_TEAM_NAME"),
        p.env.get("CLAUDE_CODE_AGENT_NAME"),
    ) {
        (Some(team), Some(agent)) => match TeamDir::new(&claude_dir, &team) {
            Ok(team) => Some(Member {
                team,
                agent,
                color: p.env.get("CLAUDE_CODE_AGENT_COLOR"),
            }),
            Err(e) => {
                warnings.push(e.to_string());
                None
            }
        },
        _ => {
            let short: String = p
                .session_id
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(8)
                .collect();
            TeamDir::new(&claude_dir, &format!("session-{short}"))
                .ok()
                .map(|team| Member {
                    team,
                    agent: TEAM_LEAD.to_string(),
                    color: None,
                })
        }
    };
    let options = MessagingOptions {
        claude_dir,
        session_id: p.session_id.to_string(),
        cwd: p.cwd.to_path_buf(),
        name: p.env.get("CLAUDE_CODE_SESSION_NAME"),
        kind: "interactive",
        member,
        permission_timeout: (p.env.get("TACK_TEAMMATE_PERMISSION_TIMEOUT_MS"))
            .and_then(|v| v.trim().parse().ok())
            .map_or(
                super::relay::DEFAULT_TIMEOUT,
                std::time::Duration::from_millis,
            ),
        arrivals: p.arrivals.clone(),
    };
    let (messaging, more) = Messaging::start(options, deliver);
    warnings.extend(more);
    let messaging = Arc::new(messaging);
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(SendMessageTool::new(Arc::clone(&messaging))),
        Arc::new(ListAgentsTool::new(Arc::clone(&messaging))),
    ];
    (Some(TeamTools { messaging, tools }), warnings)
}

/// Hands a message to the session as an arrival: with the next request of a
/// running turn, or waking the idle session.
pub(crate) fn deliver_to(env: &Arc<tack_tool::ToolEnv>) -> DeliverText {
    let arrivals = env.arrivals().clone();
    Arc::new(move |text: String| arrivals.push(tack_tool::Arrival::soon(text)))
}
