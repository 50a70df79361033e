//! Team and agent names: each becomes a file or folder name
//! (`teams/<team>/inboxes/<agent>.json`), so one that could leave its folder
//! (`/`, `..`) or hide (`.x`) is refused before any path is built.

use super::error::TeamFileError;

/// Longest name accepted, in bytes (a file name is at most 255, with `.json`).
const MAX_NAME_BYTES: usize = 200;

/// `name` if it can be a team's folder name.
pub fn team(name: &str) -> Result<&str, TeamFileError> {
    check("team", name)
}

/// `name` if it can be an agent's inbox file name.
pub fn agent(name: &str) -> Result<&str, TeamFileError> {
    check("agent", name)
}

fn check<'a>(kind: &'static str, name: &'a str) -> Result<&'a str, TeamFileError> {
    let why = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > MAX_NAME_BYTES {
        Some("it is longer than 200 bytes")
    } else if name.contains(['/', '\\']) {
        Some("it contains a path separator")
    } else if name.starts_with('.') {
        Some("it starts with a dot")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character")
    } else {
        None
    };
    match why {
        None => Ok(name),
        Some(why) => Err(TeamFileError::BadName {
            kind,
            name: name.to_string(),
            why,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_leave_their_folder_are_refused() {
        let refused: Vec<&str> = ["", "..", ".", "a/b", "..\\x", ".hidden", "a\nb", "a\0b"]
            .into_iter()
            .filter(|n| agent(n).is_err() && team(n).is_err())
            .collect();
        assert_eq!(
            refused,
            ["", "..", ".", "a/b", "..\\x", ".hidden", "a\nb", "a\0b"]
        );
        let long = "x".repeat(201);
        assert!(team(&long).is_err());
    }

    #[test]
    fn claude_code_names_are_accepted() {
        for name in [
            "team-lead",
            "doc-writer-1",
            "humble-chasing-goose",
            "a b",
            "x.y",
        ] {
            assert_eq!(agent(name).ok(), Some(name));
        }
    }
}
