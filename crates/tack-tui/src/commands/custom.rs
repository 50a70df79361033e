//! Custom slash commands: markdown files under `.claude/commands/` (project)
//! and `~/.claude/commands/` (user), as Claude Code reads them.
//!
//! `review.md` is `/review`; `frontend/component.md` is `/frontend:component`.
//! An optional YAML frontmatter gives `description`, `argument-hint`,
//! `allowed-tools` (a string or a list) and `model`. In the body, `$ARGUMENTS`
//! is replaced by everything typed after the command, `$1`..`$9` by its
//! whitespace-separated words.

use std::path::{Path, PathBuf};

use yaml_rust2::Yaml;

/// Where a command was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandScope {
    Project,
    User,
}

/// One custom command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// Without the slash: `review`, `frontend:component`.
    pub name: String,
    pub scope: CommandScope,
    pub description: Option<String>,
    pub argument_hint: Option<String>,
    pub allowed_tools: Vec<String>,
    pub model: Option<String>,
    /// The prompt template.
    pub body: String,
    pub path: PathBuf,
}

/// A command file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: bad frontmatter: {message}")]
    Frontmatter { path: PathBuf, message: String },
}

impl CustomCommand {
    /// The prompt for `args` (what was typed after the command name).
    pub fn expand(&self, args: &str) -> String {
        let words: Vec<&str> = args.split_whitespace().collect();
        let mut out = self.body.replace("$ARGUMENTS", args);
        // $9 first so that $1 does not eat the start of a (hypothetical) $10.
        for i in (1..=9).rev() {
            let value = words.get(i - 1).copied().unwrap_or("");
            out = out.replace(&format!("${i}"), value);
        }
        out
    }

    /// The description shown in the menu.
    pub fn menu_description(&self) -> String {
        let scope = match self.scope {
            CommandScope::Project => "project",
            CommandScope::User => "user",
        };
        let first_line = self
            .body
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        let text = self.description.as_deref().unwrap_or(first_line);
        format!("{text} ({scope})")
    }
}

/// Loads the commands of `project_dir/.claude/commands` and
/// `home/.claude/commands`; a project command hides a user command of the same
/// name. Sorted by name. Files that cannot be read are reported, not fatal.
pub fn load_custom_commands(
    project_dir: &Path,
    home: &Path,
) -> (Vec<CustomCommand>, Vec<CommandError>) {
    let mut commands = Vec::new();
    let mut errors = Vec::new();
    for (dir, scope) in [
        (project_dir.join(".claude/commands"), CommandScope::Project),
        (home.join(".claude/commands"), CommandScope::User),
    ] {
        let mut found = Vec::new();
        collect_md(&dir, &dir, &mut found);
        found.sort();
        for (name, path) in found {
            if commands.iter().any(|c: &CustomCommand| c.name == name) {
                continue;
            }
            match load_one(&path, name, scope) {
                Ok(c) => commands.push(c),
                Err(e) => errors.push(e),
            }
        }
    }
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    (commands, errors)
}

fn collect_md(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_md(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "md")
            && let Ok(rel) = path.with_extension("").strip_prefix(root)
        {
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(":");
            out.push((name, path));
        }
    }
}

fn load_one(path: &Path, name: String, scope: CommandScope) -> Result<CustomCommand, CommandError> {
    let text = std::fs::read_to_string(path).map_err(|source| CommandError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let bad = |message: String| CommandError::Frontmatter {
        path: path.to_path_buf(),
        message,
    };
    let (front, body) = split_frontmatter(&text);
    let mut cmd = CustomCommand {
        name,
        scope,
        description: None,
        argument_hint: None,
        allowed_tools: Vec::new(),
        model: None,
        body: body.to_string(),
        path: path.to_path_buf(),
    };
    let Some(front) = front else {
        return Ok(cmd);
    };
    let docs = tack_config::load_yaml(front).map_err(|e| bad(e.to_string()))?;
    let doc = match docs.into_iter().next() {
        None | Some(Yaml::Null) => return Ok(cmd),
        Some(doc @ Yaml::Hash(_)) => doc,
        Some(_) => return Err(bad("not a mapping".into())),
    };
    let string = |key: &str| match &doc[key] {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Real(r) => Some(r.clone()),
        _ => None,
    };
    cmd.description = string("description");
    cmd.argument_hint = string("argument-hint");
    cmd.model = string("model");
    cmd.allowed_tools = match &doc["allowed-tools"] {
        Yaml::String(s) => s
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        Yaml::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    Ok(cmd)
}

/// `---\n<yaml>\n---\n<body>`: (frontmatter, body). No frontmatter: (None, text).
fn split_frontmatter(text: &str) -> (Option<&str>, &str) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (Some(&rest[..offset]), &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (None, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn loads_project_and_user_commands_with_frontmatter() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        write(
            &project.path().join(".claude/commands/review.md"),
            "---\ndescription: Review a PR\nargument-hint: <pr>\nallowed-tools: Bash(gh pr view:*), Read\nmodel: claude-haiku-4-5\n---\nReview PR $ARGUMENTS, first $1.\n",
        );
        write(
            &project
                .path()
                .join(".claude/commands/frontend/component.md"),
            "Make a component named $1\n",
        );
        write(
            &home.path().join(".claude/commands/review.md"),
            "user review\n",
        );
        write(
            &home.path().join(".claude/commands/standup.md"),
            "---\nallowed-tools:\n  - Bash(git log:*)\n---\nSummarise my day\n",
        );
        write(
            &home.path().join(".claude/commands/notes.txt"),
            "not a command",
        );
        let (commands, errors) = load_custom_commands(project.path(), home.path());
        assert!(errors.is_empty(), "{errors:?}");
        let root = project.path().join(".claude/commands");
        let user = home.path().join(".claude/commands");
        assert_eq!(
            commands,
            vec![
                CustomCommand {
                    name: "frontend:component".into(),
                    scope: CommandScope::Project,
                    description: None,
                    argument_hint: None,
                    allowed_tools: vec![],
                    model: None,
                    body: "Make a component named $1\n".into(),
                    path: root.join("frontend/component.md"),
                },
                CustomCommand {
                    name: "review".into(),
                    scope: CommandScope::Project,
                    description: Some("Review a PR".into()),
                    argument_hint: Some("<pr>".into()),
                    allowed_tools: vec!["Bash(gh pr view:*)".into(), "Read".into()],
                    model: Some("claude-haiku-4-5".into()),
                    body: "Review PR $ARGUMENTS, first $1.\n".into(),
                    path: root.join("review.md"),
                },
                CustomCommand {
                    name: "standup".into(),
                    scope: CommandScope::User,
                    description: None,
                    argument_hint: None,
                    allowed_tools: vec!["Bash(git log:*)".into()],
                    model: None,
                    body: "Summarise my day\n".into(),
                    path: user.join("standup.md"),
                },
            ]
        );
        assert_eq!(
            commands[1].expand("42 urgent"),
            "Review PR 42 urgent, first 42.\n"
        );
        assert_eq!(commands[0].expand(""), "Make a component named \n");
        assert_eq!(commands[2].menu_description(), "Summarise my day (user)");
    }

    #[test]
    fn bad_frontmatter_is_reported_and_the_rest_loads() {
        let project = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        write(
            &project.path().join(".claude/commands/bad.md"),
            "---\n[unclosed\n---\nbody\n",
        );
        write(&project.path().join(".claude/commands/good.md"), "ok\n");
        let (commands, errors) = load_custom_commands(project.path(), home.path());
        assert_eq!(
            commands.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["good"]
        );
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].to_string().contains("bad.md: bad frontmatter"),
            "{}",
            errors[0]
        );
    }
}
