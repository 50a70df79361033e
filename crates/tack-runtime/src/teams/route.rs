//! Where a `SendMessage` goes: a teammate's inbox (by name, `team-lead`),
//! every teammate's (`*`), or another live session on the machine (by its
//! address `uds:<socket>`, session id, name or pid, as the registry lists
//! it).

use std::path::PathBuf;

use super::files::config;
use super::files::place::TeamDir;
use super::files::sessions::{self, SessionEntry};
use super::peer;
use super::session::Messaging;

/// A resolved recipient.
#[derive(Debug)]
pub enum Route {
    /// Teammates' inboxes (one for a name, every other member's for `*`).
    Inboxes { team: TeamDir, agents: Vec<String> },
    /// Another session's messaging socket.
    Session {
        socket: PathBuf,
        token: String,
        label: String,
    },
}

/// `to` resolved, or why not (naming who can be reached).
pub async fn resolve(messaging: &Messaging, to: &str) -> Result<Route, String> {
    let to = to.trim();
    if let Some(route) = teammate(messaging, to)? {
        return Ok(route);
    }
    let live = live_sessions(messaging).await;
    let found = live.iter().find(|(e, socket)| {
        peer::socket_of(to).as_deref() == Some(socket.as_path())
            || e.session_id == to
            || e.name.as_deref() == Some(to)
            || e.pid.to_string() == to
    });
    if let Some((entry, socket)) = found {
        let token =
            sessions::token(messaging.claude_dir(), entry.pid).map_err(|e| e.to_string())?;
        let label = entry
            .name
            .clone()
            .unwrap_or_else(|| entry.session_id.clone());
        return Ok(Route::Session {
            socket: socket.clone(),
            token,
            label,
        });
    }
    let me = messaging.member().map(|m| m.agent.as_str());
    let mut known: Vec<String> = team_names(messaging)
        .into_iter()
        .filter(|n| Some(n.as_str()) != me)
        .collect();
    known.extend(live.iter().map(|(e, s)| {
        format!(
            "{} ({})",
            e.name.clone().unwrap_or_else(|| e.session_id.clone()),
            peer::address(s)
        )
    }));
    Err(if known.is_empty() {
        format!(
            "No agent or session named {to:?}: there are no teammates, and no other session is listening"
        )
    } else {
        format!(
            "No agent or session named {to:?}; reachable: {}",
            known.join(", ")
        )
    })
}

fn teammate(messaging: &Messaging, to: &str) -> Result<Option<Route>, String> {
    let Some(member) = messaging.member() else {
        return Ok(None);
    };
    let team = member.team.clone();
    let names = team_names(messaging);
    let agents: Vec<String> = if to == "*" {
        names.into_iter().filter(|n| *n != member.agent).collect()
    } else if names.iter().any(|n| n == to) {
        vec![to.to_string()]
    } else {
        return Ok(None);
    };
    if agents.is_empty() {
        return Err("There are no other teammates to broadcast to".into());
    }
    Ok(Some(Route::Inboxes { team, agents }))
}

/// The members of the session's team (none when it is in none).
pub fn team_names(messaging: &Messaging) -> Vec<String> {
    let Some(member) = messaging.member() else {
        return Vec::new();
    };
    match config::read(&member.team) {
        Ok(Some(config)) => config.members.into_iter().map(|m| m.name).collect(),
        _ => vec![config::TEAM_LEAD.to_string()],
    }
}

/// The other sessions whose socket answers, with it.
pub async fn live_sessions(messaging: &Messaging) -> Vec<(SessionEntry, PathBuf)> {
    let (entries, _bad) = sessions::list(messaging.claude_dir());
    let mut live = Vec::new();
    for entry in entries {
        if entry.pid == std::process::id() {
            continue;
        }
        let Some(socket) = entry.messaging_socket_path.clone() else {
            continue;
        };
        if peer::answers(&socket).await {
            live.push((entry, socket));
        }
    }
    live
}
