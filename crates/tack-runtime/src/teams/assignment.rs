//! A task given to a teammate: when TaskUpdate sets a task's owner to a
//! member of the session's team, Claude Code writes a `task_assignment`
//! protocol message to the owner's mailbox (`{type, taskId, subject,
//! description, assignedBy, timestamp}`, signed with the assigner's colour:
//! `mbourmaud/hive`, `agent-teams-analysis/03-message-system.md`). The
//! owner's inbox watch hands it to that teammate like any message.
//!
//! Only a member of the team's `config.json` is written to: a name that is
//! no teammate (or a team that never had one) leaves no inbox behind.

use std::path::Path;

use tack_tools::tasks::TaskAssignment;

use super::files::TeamFileError;
use super::files::config;
use super::files::inbox::{self, InboxMessage};
use super::files::place::TeamDir;
use super::files::structured;

/// Writes `assignment` to its owner's inbox; `false` when the owner is not a
/// member of the team.
pub fn send(claude_dir: &Path, assignment: &TaskAssignment) -> Result<bool, TeamFileError> {
    let team = TeamDir::new(claude_dir, &assignment.team_name)?;
    let Some(config) = config::read(&team)? else {
        return Ok(false);
    };
    if config.member(&assignment.owner).is_none() {
        return Ok(false);
    }
    let mut message = InboxMessage::new(&assignment.assigned_by, String::new(), None);
    message.text = structured::task_assignment(
        &assignment.task_id,
        &assignment.subject,
        &assignment.description,
        &assignment.assigned_by,
        &message.timestamp,
    );
    message.color = (config.member(&assignment.assigned_by)).and_then(|m| m.color.clone());
    inbox::append(&team.inbox(&assignment.owner)?, message)?;
    Ok(true)
}

/// [`send`] as the Task tools' hooks call it.
pub fn tell_owner(claude_dir: &Path, assignment: &TaskAssignment) -> Result<(), String> {
    send(claude_dir, assignment)
        .map(drop)
        .map_err(|e| e.to_string())
}
