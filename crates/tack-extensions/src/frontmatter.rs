//! The YAML frontmatter of a command file, a skill's `SKILL.md` or an output
//! style, parsed in this one place with tack-config's bounded loader (a
//! repository's files are hostile input: no billion laughs).

use yaml_rust2::Yaml;

/// What a command's or a skill's frontmatter sets (the keys after `model`
/// are read for skills only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    pub description: Option<String>,
    pub argument_hint: Option<String>,
    /// A comma-separated string or a YAML list.
    pub allowed_tools: Vec<String>,
    pub model: Option<String>,
    /// A skill's `name` (else its folder's).
    pub name: Option<String>,
    /// `context: fork`: the skill runs in a sub-agent.
    pub context: Option<String>,
    /// The sub-agent type of a forked skill.
    pub agent: Option<String>,
    /// `user-invocable: false`: no `/name` for it.
    pub user_invocable: Option<bool>,
    /// `disable-model-invocation: true`: not offered to the model.
    pub disable_model_invocation: Option<bool>,
    /// An output style's `keep-coding-instructions`.
    pub keep_coding_instructions: Option<bool>,
}

/// Parses the text between the `---` lines; the error says why it is not a
/// frontmatter (YAML syntax, or not a mapping).
pub fn parse_frontmatter(yaml: &str) -> Result<Frontmatter, String> {
    let docs = tack_config::load_yaml(yaml).map_err(|e| e.to_string())?;
    let doc = match docs.into_iter().next() {
        None | Some(Yaml::Null) => return Ok(Frontmatter::default()),
        Some(doc @ Yaml::Hash(_)) => doc,
        Some(_) => return Err("not a mapping".to_owned()),
    };
    let string = |key: &str| match &doc[key] {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Real(r) => Some(r.clone()),
        _ => None,
    };
    let allowed_tools = match &doc["allowed-tools"] {
        Yaml::String(s) => s
            .split(',')
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect(),
        Yaml::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    // `true`/`false`, also as the strings YAML 1.1 files tend to use.
    let flag = |key: &str| match &doc[key] {
        Yaml::Boolean(b) => Some(*b),
        Yaml::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" => Some(true),
            "false" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    };
    Ok(Frontmatter {
        description: string("description"),
        argument_hint: string("argument-hint"),
        allowed_tools,
        model: string("model"),
        name: string("name"),
        context: string("context"),
        agent: string("agent"),
        user_invocable: flag("user-invocable"),
        disable_model_invocation: flag("disable-model-invocation"),
        keep_coding_instructions: flag("keep-coding-instructions"),
    })
}

/// Reads a markdown file with an optional frontmatter (a command, a
/// `SKILL.md`, an output style), bounded as every configuration file is:
/// (frontmatter, body), or why it cannot be used.
pub fn read_markdown(path: &std::path::Path) -> Result<(Frontmatter, String), String> {
    let text = tack_sys::read_config_file(path, tack_sys::MAX_CONFIG_BYTES)
        .map_err(|e| format!("cannot read it ({e})"))?;
    let (front, body) = split_frontmatter(&text);
    let front = match front {
        Some(yaml) => parse_frontmatter(yaml).map_err(|e| format!("bad frontmatter: {e}"))?,
        None => Frontmatter::default(),
    };
    Ok((front, body.to_owned()))
}

/// `---\n<yaml>\n---\n<body>`: (frontmatter, body); the one splitter, shared
/// with memory rules.
pub use tack_core::context::split_frontmatter;

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn every_key_and_both_tool_list_forms() {
        assert_eq!(
            parse_frontmatter(
                "description: Review a PR\nargument-hint: <pr>\nallowed-tools: Bash(gh pr view:*), Read\nmodel: haiku\n"
            ),
            Ok(Frontmatter {
                description: Some("Review a PR".into()),
                argument_hint: Some("<pr>".into()),
                allowed_tools: vec!["Bash(gh pr view:*)".into(), "Read".into()],
                model: Some("haiku".into()),
                ..Frontmatter::default()
            })
        );
        assert_eq!(
            parse_frontmatter(
                "name: deploy\ncontext: fork\nagent: Explore\nuser-invocable: false\ndisable-model-invocation: \"true\"\nkeep-coding-instructions: yes\n"
            ),
            Ok(Frontmatter {
                name: Some("deploy".into()),
                context: Some("fork".into()),
                agent: Some("Explore".into()),
                user_invocable: Some(false),
                disable_model_invocation: Some(true),
                keep_coding_instructions: Some(true),
                ..Frontmatter::default()
            })
        );
        assert_eq!(
            parse_frontmatter("allowed-tools:\n  - Bash(git log:*)\n  - Grep\n"),
            Ok(Frontmatter {
                allowed_tools: vec!["Bash(git log:*)".into(), "Grep".into()],
                ..Frontmatter::default()
            })
        );
        assert_eq!(parse_frontmatter(""), Ok(Frontmatter::default()));
        assert_eq!(parse_frontmatter("- a\n- b\n"), Err("not a mapping".into()));
        // Alias expansion is bounded: a billion laughs is an error, not a hang.
        let mut laughs = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .zip(["b", "c", "d", "e", "f", "g", "h", "i"])
        {
            laughs.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        assert!(parse_frontmatter(&laughs).is_err());
    }

    #[test]
    fn splits_only_a_closed_frontmatter() {
        assert_eq!(
            split_frontmatter("---\na: 1\n---\nbody\n"),
            (Some("a: 1\n"), "body\n")
        );
        assert_eq!(
            split_frontmatter("---\r\na: 1\r\n---\r\nbody"),
            (Some("a: 1\r\n"), "body")
        );
        assert_eq!(
            split_frontmatter("---\nnever closed\n"),
            (None, "---\nnever closed\n")
        );
        assert_eq!(split_frontmatter("just a body"), (None, "just a body"));
    }
}
