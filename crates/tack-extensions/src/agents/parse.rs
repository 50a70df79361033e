//! Definitions from markdown files with YAML frontmatter (Claude Code's
//! `.claude/agents/*.md`) and from `--agents` JSON (what the Agent SDKs pass).
//!
//! A file:
//! ```markdown
//! ---
//! name: code-reviewer
//! description: Reviews a diff for bugs. Use after every change.
//! tools: Read, Grep, Glob        # or a YAML list; absent: every tool
//! model: sonnet                  # alias, id or `inherit` (absent: inherit)
//! color: blue
//! ---
//! You are a careful reviewer... (the system prompt)
//! ```
//! Every problem is a [`DefinitionError`] with the line it is on (1-based),
//! so the caller can name `file:line` and skip that definition.

use serde_json::Value;
use tack_core::context::split_frontmatter;
use tack_protocol::name::is_valid_name;
use yaml_rust2::Yaml;

use super::definition::{AgentDefinition, AgentModel, AgentSource, AgentTools};

/// Why a definition was not loaded, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionError {
    /// 1-based line in the file (or in the `--agents` JSON).
    pub line: usize,
    pub message: String,
}

impl DefinitionError {
    fn at(line: usize, message: impl Into<String>) -> DefinitionError {
        DefinitionError {
            line,
            message: message.into(),
        }
    }
}

/// A markdown definition file's text.
pub fn parse_markdown(text: &str, source: AgentSource) -> Result<AgentDefinition, DefinitionError> {
    let (Some(frontmatter), body) = split_frontmatter(text) else {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        return Err(if text.lines().next().map(str::trim_end) == Some("---") {
            DefinitionError::at(
                text.lines().count(),
                "the frontmatter is not closed by a `---` line",
            )
        } else {
            DefinitionError::at(
                1,
                "no YAML frontmatter: the file must start with a `---` line",
            )
        });
    };
    // Frontmatter lines are 2..=close+1 of the file; YAML numbers them from 1.
    let lines: Vec<&str> = frontmatter.lines().collect();
    let close = lines.len();
    let docs = tack_config::load_yaml(frontmatter).map_err(|e| {
        // An error found at the end of the frontmatter is on its last line.
        DefinitionError::at(
            (e.line + 1).min(close + 1),
            format!("invalid YAML frontmatter: {}", e.message),
        )
    })?;
    let Some(Yaml::Hash(map)) = docs.into_iter().next() else {
        return Err(DefinitionError::at(
            2,
            "the frontmatter must be a mapping (`name: ...`, `description: ...`)",
        ));
    };
    let line_of = |key: &str| -> usize {
        lines
            .iter()
            .position(|l| {
                l.strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
            .map_or(2, |i| i + 2)
    };
    let get = |key: &str| map.get(&Yaml::String(key.to_owned()));
    let string = |key: &str| -> Result<Option<String>, DefinitionError> {
        match get(key) {
            None | Some(Yaml::Null) => Ok(None),
            Some(Yaml::String(s)) => Ok(Some(s.clone())),
            Some(Yaml::Integer(i)) => Ok(Some(i.to_string())),
            Some(Yaml::Real(r)) => Ok(Some(r.clone())),
            Some(_) => Err(DefinitionError::at(
                line_of(key),
                format!("`{key}` must be a string"),
            )),
        }
    };
    let list = |key: &str| -> Result<Option<Vec<String>>, DefinitionError> {
        match get(key) {
            None | Some(Yaml::Null) => Ok(None),
            Some(Yaml::String(s)) => Ok(Some(split_list(s))),
            Some(Yaml::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Yaml::String(s) => Ok(s.trim().to_owned()),
                    _ => Err(DefinitionError::at(
                        line_of(key),
                        format!("`{key}` must list tool names"),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(DefinitionError::at(
                line_of(key),
                format!("`{key}` must be a comma-separated string or a list of tool names"),
            )),
        }
    };
    let name =
        string("name")?.ok_or_else(|| DefinitionError::at(2, "the frontmatter has no `name`"))?;
    check_name(&name).map_err(|m| DefinitionError::at(line_of("name"), m))?;
    let description = string("description")?
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| DefinitionError::at(2, "the frontmatter has no `description`"))?;
    let prompt = body
        .lines()
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned();
    if prompt.is_empty() {
        return Err(DefinitionError::at(
            close + 2,
            "no system prompt after the frontmatter",
        ));
    }
    Ok(AgentDefinition {
        name,
        description: description.trim().to_owned(),
        prompt,
        tools: tools_of(list("tools")?),
        disallowed_tools: list("disallowedTools")?.unwrap_or_default(),
        model: AgentModel::parse(string("model")?.as_deref()),
        color: string("color")?,
        source,
        read_only: false,
        worktree: isolation(string("isolation")?.as_deref())
            .map_err(|m| DefinitionError::at(line_of("isolation"), m))?,
        permission_mode: string("permissionMode")?,
    })
}

/// `--agents` JSON: `{"name": {"description", "prompt", "tools"?,
/// "disallowedTools"?, "model"?}}`. Returns the definitions that are valid
/// and an error for each that is not (a JSON syntax error: for all of them).
pub fn parse_flag(json: &str) -> (Vec<AgentDefinition>, Vec<DefinitionError>) {
    let value: Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(e) => {
            return (
                Vec::new(),
                vec![DefinitionError::at(e.line(), format!("invalid JSON: {e}"))],
            );
        }
    };
    let Value::Object(agents) = value else {
        return (
            Vec::new(),
            vec![DefinitionError::at(
                1,
                "must be an object of agents by name",
            )],
        );
    };
    let mut defs = Vec::new();
    let mut errors = Vec::new();
    for (name, spec) in agents {
        match flag_definition(&name, &spec) {
            Ok(def) => defs.push(def),
            Err(message) => errors.push(DefinitionError::at(
                line_in(json, &name),
                format!("agent `{name}`: {message}"),
            )),
        }
    }
    (defs, errors)
}

fn flag_definition(name: &str, spec: &Value) -> Result<AgentDefinition, String> {
    check_name(name)?;
    let text = |key: &str| -> Result<Option<String>, String> {
        match spec.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let list = |key: &str| -> Result<Option<Vec<String>>, String> {
        match spec.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(split_list(s))),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(|s| s.trim().to_owned())
                        .ok_or_else(|| format!("`{key}` must list tool names"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(format!("`{key}` must be a list of tool names")),
        }
    };
    if !spec.is_object() {
        return Err("must be an object with `description` and `prompt`".into());
    }
    let description = text("description")?
        .filter(|d| !d.trim().is_empty())
        .ok_or("`description` is missing")?;
    let prompt = text("prompt")?
        .filter(|p| !p.trim().is_empty())
        .ok_or("`prompt` is missing")?;
    Ok(AgentDefinition {
        name: name.to_owned(),
        description,
        prompt,
        tools: tools_of(list("tools")?),
        disallowed_tools: list("disallowedTools")?.unwrap_or_default(),
        model: AgentModel::parse(text("model")?.as_deref()),
        color: text("color")?,
        source: AgentSource::Flag,
        read_only: false,
        worktree: isolation(text("isolation")?.as_deref())?,
        permission_mode: text("permissionMode")?,
    })
}

/// `isolation`: absent, or `worktree`.
fn isolation(value: Option<&str>) -> Result<bool, String> {
    match value {
        None => Ok(false),
        Some("worktree") => Ok(true),
        Some(other) => Err(format!("`isolation` must be `worktree`, not `{other}`")),
    }
}

/// `Read, Grep` → `["Read", "Grep"]`.
fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// No list or `*`: every tool.
fn tools_of(list: Option<Vec<String>>) -> AgentTools {
    match list {
        Some(names) if !names.iter().any(|n| n == "*") => AgentTools::Only(names),
        Some(_) | None => AgentTools::All,
    }
}

fn check_name(name: &str) -> Result<(), String> {
    if is_valid_name(name) {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a valid agent name (letters, digits, `-` and `_`)"
        ))
    }
}

/// The line of `"key"` in `json` (1 if not found).
fn line_in(json: &str, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    json.find(&quoted)
        .map_or(1, |at| json[..at].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use pretty_assertions::assert_eq;

    use super::*;

    fn project() -> AgentSource {
        AgentSource::Project(PathBuf::from("/p/.claude/agents/r.md"))
    }

    #[test]
    fn a_file_with_every_field() {
        let text = "---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep,Glob\n\
                    model: haiku\ncolor: blue\npermissionMode: acceptEdits\n---\n\nYou review.\nCarefully.\n";
        assert_eq!(
            parse_markdown(text, project()),
            Ok(AgentDefinition {
                name: "reviewer".into(),
                description: "Reviews diffs.".into(),
                prompt: "You review.\nCarefully.".into(),
                tools: AgentTools::Only(vec!["Read".into(), "Grep".into(), "Glob".into()]),
                disallowed_tools: Vec::new(),
                model: AgentModel::Named("haiku".into()),
                color: Some("blue".into()),
                source: project(),
                read_only: false,
                worktree: false,
                permission_mode: Some("acceptEdits".into()),
            })
        );
    }

    #[test]
    fn tools_as_a_yaml_list_and_inherit() {
        let text =
            "---\nname: a\ndescription: d\ntools:\n  - Read\n  - Agent\nmodel: inherit\n---\nP";
        let def = parse_markdown(text, project()).unwrap();
        assert_eq!(
            (def.tools.clone(), def.model.clone(), def.may_start_agents()),
            (
                AgentTools::Only(vec!["Read".into(), "Agent".into()]),
                AgentModel::Inherit,
                true
            )
        );
        let all = parse_markdown("---\nname: a\ndescription: d\n---\nP", project()).unwrap();
        assert_eq!(
            (all.tools, all.model),
            (AgentTools::All, AgentModel::Inherit)
        );
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("no frontmatter\n", 1, "no YAML frontmatter"),
            ("---\nname: a\n", 2, "not closed"),
            (
                "---\nname: a\ndescription: [unclosed\n---\nP",
                3,
                "invalid YAML",
            ),
            ("---\ndescription: d\n---\nP", 2, "no `name`"),
            (
                "---\ndescription: d\nname: a b\n---\nP",
                3,
                "not a valid agent name",
            ),
            (
                "---\nname: a\ndescription: d\ntools: {x: 1}\n---\nP",
                4,
                "`tools` must be",
            ),
            (
                "---\nname: a\ndescription: d\n---\n\n",
                4,
                "no system prompt",
            ),
        ];
        for (text, line, message) in cases {
            let err = parse_markdown(text, project()).unwrap_err();
            assert!(
                err.line == line && err.message.contains(message),
                "{text:?}: {err:?}"
            );
        }
    }

    #[test]
    fn the_flag_json_loads_the_valid_agents_and_reports_the_others() {
        let json = r#"{
  "tester": {"description": "Runs tests", "prompt": "You test.", "tools": ["Bash"], "model": "sonnet"},
  "broken": {"description": "No prompt"}
}"#;
        let (defs, errors) = parse_flag(json);
        assert_eq!(
            defs,
            vec![AgentDefinition {
                name: "tester".into(),
                description: "Runs tests".into(),
                prompt: "You test.".into(),
                tools: AgentTools::Only(vec!["Bash".into()]),
                disallowed_tools: Vec::new(),
                model: AgentModel::Named("sonnet".into()),
                color: None,
                source: AgentSource::Flag,
                read_only: false,
                worktree: false,
                permission_mode: None,
            }]
        );
        assert_eq!(
            errors,
            vec![DefinitionError::at(
                3,
                "agent `broken`: `prompt` is missing"
            )]
        );
        let (defs, errors) = parse_flag("{\n  \"a\": ");
        assert_eq!(defs, Vec::new());
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.starts_with("invalid JSON"), "{errors:?}");
    }
}
