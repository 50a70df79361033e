//! Where Claude Code keeps teams: `<config dir>/teams/<team>/config.json`
//! and `<config dir>/teams/<team>/inboxes/<agent>.json`, the config dir being
//! `$CLAUDE_CONFIG_DIR` or `~/.claude`.

use std::path::{Path, PathBuf};

use super::error::TeamFileError;
use super::names;

/// One team's folder under a Claude config dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamDir {
    dir: PathBuf,
    name: String,
}

impl TeamDir {
    /// `<claude_dir>/teams/<team>`, the name checked first.
    pub fn new(claude_dir: &Path, team: &str) -> Result<TeamDir, TeamFileError> {
        let name = names::team(team)?;
        Ok(TeamDir {
            dir: claude_dir.join("teams").join(name),
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn config(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    pub fn inboxes(&self) -> PathBuf {
        self.dir.join("inboxes")
    }

    /// `inboxes/<agent>.json`, the name checked first.
    pub fn inbox(&self, agent: &str) -> Result<PathBuf, TeamFileError> {
        Ok(self
            .inboxes()
            .join(format!("{}.json", names::agent(agent)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_claude_codes() {
        let team = TeamDir::new(Path::new("/h/.claude"), "my-team").unwrap();
        assert_eq!(
            (team.config(), team.inbox("team-lead").unwrap()),
            (
                PathBuf::from("/h/.claude/teams/my-team/config.json"),
                PathBuf::from("/h/.claude/teams/my-team/inboxes/team-lead.json")
            )
        );
        assert!(TeamDir::new(Path::new("/h"), "../x").is_err());
        assert!(team.inbox("../../etc/passwd").is_err());
    }
}
