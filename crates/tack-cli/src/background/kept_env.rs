//! The team variables a background session was launched with
//! (`CLAUDE_CODE_TEAM_NAME`, `CLAUDE_CODE_AGENT_NAME`, ...: what the lead
//! sets for a teammate it starts, `tack_runtime::teams::process_teammate`),
//! kept beside its arguments (`env.json`) so that `respawn`, run from any
//! shell, starts it again as the same member of the same team. A session
//! launched without them is respawned without them.

use std::path::Path;
use std::process::Command;

use anyhow::Context;

/// The variables that make a session a team's member, as the lead sets
/// them.
pub const TEAM_VARS: [&str; 6] = [
    "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS",
    "CLAUDE_CODE_TEAM_NAME",
    "CLAUDE_CODE_AGENT_NAME",
    "CLAUDE_CODE_AGENT_ID",
    "CLAUDE_CODE_AGENT_COLOR",
    "CLAUDE_CODE_TASK_LIST_ID",
];

/// `env.json`: `[[name, value], ...]` of the team variables set at launch.
const ENV: &str = "env.json";

/// Keeps the team variables of this process's environment in the job
/// folder `dir` (nothing when none is set).
pub fn keep(dir: &Path) -> anyhow::Result<()> {
    let vars: Vec<(String, String)> = TEAM_VARS
        .iter()
        .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?)))
        .collect();
    if vars.is_empty() {
        return Ok(());
    }
    let text = serde_json::to_vec(&vars)?;
    tack_sys::write_atomic_private(&dir.join(ENV), &text)
        .with_context(|| format!("cannot write {}", dir.join(ENV).display()))
}

/// The team variables the session in `dir` was launched with.
pub fn launched(dir: &Path) -> Vec<(String, String)> {
    std::fs::read(dir.join(ENV))
        .ok()
        .and_then(|text| serde_json::from_slice::<Vec<(String, String)>>(&text).ok())
        .unwrap_or_default()
        .into_iter()
        .filter(|(name, _)| TEAM_VARS.contains(&name.as_str()))
        .collect()
}

/// Gives `command` exactly the team variables `kept` (those of the shell
/// running `respawn` are not passed on).
pub fn apply(command: &mut Command, kept: &[(String, String)]) {
    for name in TEAM_VARS {
        command.env_remove(name);
    }
    command.envs(kept.iter().map(|(k, v)| (k, v)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_team_variables_are_read_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(launched(dir.path()), Vec::new());
        std::fs::write(
            dir.path().join(ENV),
            r#"[["CLAUDE_CODE_TEAM_NAME","t"],["PATH","/evil"],["CLAUDE_CODE_AGENT_NAME","alice"]]"#,
        )
        .unwrap();
        assert_eq!(
            launched(dir.path()),
            [
                ("CLAUDE_CODE_TEAM_NAME".to_string(), "t".to_string()),
                ("CLAUDE_CODE_AGENT_NAME".to_string(), "alice".to_string()),
            ]
        );
        let mut command = Command::new("true");
        command.env("CLAUDE_CODE_AGENT_COLOR", "red");
        apply(&mut command, &launched(dir.path()));
        let envs: Vec<_> = command
            .get_envs()
            .map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned())))
            .collect();
        assert!(envs.contains(&("CLAUDE_CODE_AGENT_COLOR".into(), None)));
        assert!(envs.contains(&("CLAUDE_CODE_AGENT_NAME".into(), Some("alice".into()))));
    }
}
