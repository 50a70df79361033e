//! Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.
//!
//! | Rule | Parsed as |
//! |---|---|
//! | `Bash`, `Bash(*)` | tool-wide |
//! | `Bash(npm run test:*)`, `Bash(npm run test *)`, `Bash(git diff)`, `Bash(ls*)` | [`BashPattern`] |
//! | `Read(./src/**)`, `Edit(//abs/**)`, `Read(~/x)`, `Edit(/docs/**)`, `Read(*.env)` | [`PathPattern`] |
//! | `WebFetch(domain:example.com)`, `WebFetch(domain:*.example.com)` | domain |
//! | `Agent(Explore)` | subagent type |
//! | `Skill(deploy)`, `Skill(deploy*)` | skill name (`*` a wildcard) |
//! | `Agent(model:opus)`, `Bash(run_in_background:true)` | input parameter (deny/ask only) |
//! | `mcp__github`, `mcp__github__*`, `mcp__github__get_issue` | MCP server / tool |
//!
//! Legacy tool names are mapped to current ones, in rules and in tool calls alike
//! ([`canonical_tool_name`]): `BashOutput`→`TaskOutput`, `KillShell`/`KillBash`→
//! `TaskStop`, `Task`→`Agent`.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::bash::{BashPattern, glob_match};
use crate::path::{CASE_INSENSITIVE, lexical_normalize, resolve_dir};

/// Claude Code's renamed tools: (legacy name, current name).
pub const LEGACY_TOOL_NAMES: &[(&str, &str)] = &[
    ("BashOutput", "TaskOutput"),
    ("KillShell", "TaskStop"),
    ("KillBash", "TaskStop"),
    ("Task", "Agent"),
];

/// Tools whose rule specifier is a path pattern.
const PATH_TOOLS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Glob",
    "Grep",
    "LS",
];

/// Input parameters of Bash that `Bash(key:value)` rules may name.
const BASH_PARAMS: &[&str] = &[
    "run_in_background",
    "timeout",
    "description",
    "dangerouslyDisableSandbox",
];

/// The current name of a tool (legacy names mapped, others unchanged).
pub fn canonical_tool_name(name: &str) -> &str {
    LEGACY_TOOL_NAMES
        .iter()
        .find(|(old, _)| *old == name)
        .map_or(name, |(_, new)| new)
}

/// Which tools a rule names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolPattern {
    /// One tool, by its canonical name.
    Name(String),
    /// `mcp__server`: every tool of that MCP server.
    McpServer(String),
    /// A tool-name glob (`*`, `mcp__*`, `mcp__srv__get_*`).
    Glob(String),
}

impl ToolPattern {
    /// True when the pattern names `tool` (a canonical tool name or alias).
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            ToolPattern::Name(n) => n == tool || canonical_tool_name(tool) == n,
            ToolPattern::McpServer(s) => tool
                .strip_prefix("mcp__")
                .and_then(|t| t.strip_prefix(s.as_str()))
                .is_some_and(|t| t.starts_with("__")),
            ToolPattern::Glob(g) => glob_match(g, tool),
        }
    }
}

/// Where a path pattern is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// `//abs/path`.
    Absolute,
    /// `~/path`.
    Home,
    /// `/path`: relative to the settings file's root (project root for project
    /// settings; see [`crate::RuleSource::root`]).
    SettingsRoot,
    /// `./path` or bare `path`: relative to the cwd.
    Cwd,
}

/// A gitignore-style path pattern: `*` stays within a component, `**` spans
/// components, a pattern matches a path when it matches the path or one of its
/// ancestors (so `Read(./secrets)` covers `./secrets/key`), and a bare pattern
/// without `/` (`*.env`) matches at any depth below the cwd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    /// The anchor.
    pub anchor: Anchor,
    /// The pattern below the anchor (`/`-separated, may be empty).
    pub pattern: String,
    /// Matches at any depth below the anchor.
    pub any_depth: bool,
}

/// The directories path patterns are anchored to.
#[derive(Debug, Clone)]
pub struct PathBases<'a> {
    /// The session's cwd.
    pub cwd: &'a Path,
    /// The user's home.
    pub home: &'a Path,
    /// The rule source's root (`None`: the cwd).
    pub root: Option<&'a Path>,
}

impl PathPattern {
    fn parse(spec: &str) -> Result<PathPattern, String> {
        if spec.is_empty() {
            return Err("empty path pattern".into());
        }
        let (anchor, rest) = if let Some(r) = spec.strip_prefix("//") {
            (Anchor::Absolute, r)
        } else if spec == "~" {
            (Anchor::Home, "")
        } else if let Some(r) = spec.strip_prefix("~/") {
            (Anchor::Home, r)
        } else if let Some(r) = spec.strip_prefix('/') {
            (Anchor::SettingsRoot, r)
        } else if spec == "." {
            (Anchor::Cwd, "")
        } else if let Some(r) = spec.strip_prefix("./") {
            (Anchor::Cwd, r)
        } else if spec.starts_with('~') {
            return Err("`~user` paths are not supported; use `~/` or `//`".into());
        } else {
            (Anchor::Cwd, spec)
        };
        let trimmed = rest.trim_end_matches('/');
        let any_depth = !spec.starts_with("./")
            && anchor == Anchor::Cwd
            && !trimmed.is_empty()
            && !trimmed.contains('/');
        let pattern = normalize_pattern(trimmed);
        let p = PathPattern {
            anchor,
            pattern,
            any_depth,
        };
        p.globset(&[PathBuf::from("/")])?;
        Ok(p)
    }

    fn bases(&self, b: &PathBases) -> Vec<PathBuf> {
        let raw = match self.anchor {
            Anchor::Absolute => PathBuf::from("/"),
            Anchor::Home => b.home.to_path_buf(),
            Anchor::SettingsRoot => b.root.unwrap_or(b.cwd).to_path_buf(),
            Anchor::Cwd => b.cwd.to_path_buf(),
        };
        let lexical = lexical_normalize(&raw);
        let real = resolve_dir(&raw, b.cwd, b.home);
        if real == lexical {
            vec![lexical]
        } else {
            vec![lexical, real]
        }
    }

    fn globset(&self, bases: &[PathBuf]) -> Result<GlobSet, String> {
        let mut set = GlobSetBuilder::new();
        for base in bases {
            let mut g = globset::escape(base.to_string_lossy().trim_end_matches('/'));
            if self.any_depth {
                g.push_str("/**");
            }
            if !self.pattern.is_empty() {
                g.push('/');
                g.push_str(&self.pattern);
            }
            if g.is_empty() {
                g.push('/');
            }
            let glob = GlobBuilder::new(&g)
                .literal_separator(true)
                .case_insensitive(CASE_INSENSITIVE)
                .backslash_escape(true)
                .build()
                .map_err(|e| format!("invalid path pattern: {e}"))?;
            set.add(glob);
        }
        set.build()
            .map_err(|e| format!("invalid path pattern: {e}"))
    }

    /// True when `path` (absolute, resolved) or one of its ancestors matches.
    pub fn matches(&self, path: &Path, bases: &PathBases) -> bool {
        let Ok(set) = self.globset(&self.bases(bases)) else {
            return false;
        };
        path.ancestors().any(|a| set.is_match(a))
    }
}

/// Removes `.` segments and applies `..` to preceding literal segments.
fn normalize_pattern(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != ".." && *l != "**") {
                    out.pop();
                } else {
                    out.push(seg);
                }
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

/// What a rule says about the call's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specifier {
    /// Tool-wide (`Bash`, `Read`, `mcp__srv__tool`, `Bash(*)`).
    None,
    /// A Bash command pattern.
    Bash(BashPattern),
    /// A path pattern (Read/Edit-family tools).
    Path(PathPattern),
    /// `domain:host` for WebFetch (lower-cased; may start with `*.`).
    Domain(String),
    /// A subagent type for Agent.
    AgentType(String),
    /// A skill name (may hold `*`) for Skill.
    SkillName(String),
    /// `key:value`: a top-level scalar input parameter equals `value`.
    Param {
        /// The parameter name.
        key: String,
        /// The value, compared with the parameter rendered as a string.
        value: String,
    },
}

/// A parsed rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The rule as written.
    pub text: String,
    /// The tools it names.
    pub tool: ToolPattern,
    /// What it says about the input.
    pub specifier: Specifier,
}

/// Parses one rule. The error is a message; [`crate::RuleSet`] adds the rule text
/// and the source file.
pub fn parse_rule(text: &str) -> Result<Rule, String> {
    let t = text.trim();
    let (name, spec) = match t.find('(') {
        Some(open) => {
            let Some(inner) = t[open + 1..].strip_suffix(')') else {
                return Err("missing closing `)` at the end".into());
            };
            (&t[..open], Some(inner))
        }
        None => {
            if t.contains(')') {
                return Err("unbalanced `)`".into());
            }
            (t, None)
        }
    };
    if name.is_empty() {
        return Err("missing tool name".into());
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'*' | b'.'))
    {
        return Err(format!("`{name}` is not a valid tool name"));
    }
    let tool = if name.contains('*') {
        ToolPattern::Glob(name.to_string())
    } else if let Some(rest) = name.strip_prefix("mcp__") {
        if rest.is_empty() {
            return Err("missing MCP server name after `mcp__`".into());
        }
        if rest.contains("__") {
            ToolPattern::Name(name.to_string())
        } else {
            ToolPattern::McpServer(rest.to_string())
        }
    } else {
        ToolPattern::Name(canonical_tool_name(name).to_string())
    };
    let canonical = match &tool {
        ToolPattern::Name(n) => n.as_str(),
        ToolPattern::McpServer(_) | ToolPattern::Glob(_) => "",
    };
    let specifier = match spec {
        None => Specifier::None,
        Some(s) => parse_specifier(canonical, s.trim())?,
    };
    if !matches!(specifier, Specifier::None) && !matches!(tool, ToolPattern::Name(_)) {
        return Err("a tool-name pattern cannot take a specifier".into());
    }
    Ok(Rule {
        text: t.to_string(),
        tool,
        specifier,
    })
}

fn param(spec: &str) -> Option<(String, String)> {
    let (k, v) = spec.split_once(':')?;
    let key_ok = k
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    (key_ok && !v.is_empty() && !v.contains(char::is_whitespace) && !v.contains('*'))
        .then(|| (k.to_string(), v.to_string()))
}

fn parse_specifier(tool: &str, spec: &str) -> Result<Specifier, String> {
    if spec.is_empty() {
        return Err(format!("empty `()`: write `{tool}` for the whole tool"));
    }
    // Monitor runs a shell command: its rules name the command as Bash's do.
    if tool == "Bash" || tool == "Monitor" {
        if let Some((k, v)) = param(spec)
            && BASH_PARAMS.contains(&k.as_str())
        {
            return Ok(Specifier::Param { key: k, value: v });
        }
        return match BashPattern::parse(spec)? {
            BashPattern::Any => Ok(Specifier::None),
            p => Ok(Specifier::Bash(p)),
        };
    }
    if PATH_TOOLS.contains(&tool) {
        return PathPattern::parse(spec).map(Specifier::Path);
    }
    if tool == "WebFetch" {
        let Some(d) = spec.strip_prefix("domain:") else {
            return Err("WebFetch rules take `domain:<host>`".into());
        };
        let d = d.trim().to_ascii_lowercase();
        if d.is_empty() || d.contains(['/', ':', ' ', '@']) {
            return Err(format!("`{d}` is not a host name"));
        }
        return Ok(Specifier::Domain(d));
    }
    if let Some((key, value)) = param(spec) {
        return Ok(Specifier::Param { key, value });
    }
    if tool == "Agent" {
        return Ok(Specifier::AgentType(spec.to_string()));
    }
    if tool == "Skill" && spec != "*" {
        return Ok(Specifier::SkillName(
            spec.trim().trim_start_matches('/').to_string(),
        ));
    }
    if spec == "*" {
        return Ok(Specifier::None);
    }
    Err(format!("`{tool}` rules take no specifier (got `{spec}`)"))
}

/// True when a `domain:` pattern matches `host` (both lower-case).
pub fn domain_matches(pattern: &str, host: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    if let Some(suffix) = pattern.strip_prefix("*.") {
        return host.len() > suffix.len() + 1
            && host.ends_with(suffix)
            && host.as_bytes()[host.len() - suffix.len() - 1] == b'.';
    }
    if pattern.contains('*') {
        return glob_match(pattern, host);
    }
    pattern == host
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn r(s: &str) -> Rule {
        parse_rule(s).unwrap()
    }

    #[test]
    fn every_form() {
        assert_eq!(r("Bash").specifier, Specifier::None);
        assert_eq!(r("Bash(*)").specifier, Specifier::None);
        assert!(matches!(
            r("Bash(npm run test:*)").specifier,
            Specifier::Bash(BashPattern::Prefix(_))
        ));
        // The form "don't ask again" writes and the legacy one read alike.
        assert_eq!(
            r("Bash(npm run test *)").specifier,
            r("Bash(npm run test:*)").specifier
        );
        assert_eq!(
            r("Bash(run_in_background:true)").specifier,
            Specifier::Param {
                key: "run_in_background".into(),
                value: "true".into()
            }
        );
        assert_eq!(
            r("Read(./src/**)").specifier,
            Specifier::Path(PathPattern {
                anchor: Anchor::Cwd,
                pattern: "src/**".into(),
                any_depth: false
            })
        );
        assert_eq!(
            r("Edit(//abs/path/**)").specifier,
            Specifier::Path(PathPattern {
                anchor: Anchor::Absolute,
                pattern: "abs/path/**".into(),
                any_depth: false
            })
        );
        assert_eq!(
            r("Read(~/secrets/**)").specifier,
            Specifier::Path(PathPattern {
                anchor: Anchor::Home,
                pattern: "secrets/**".into(),
                any_depth: false
            })
        );
        assert_eq!(
            r("Edit(/docs/**)").specifier,
            Specifier::Path(PathPattern {
                anchor: Anchor::SettingsRoot,
                pattern: "docs/**".into(),
                any_depth: false
            })
        );
        assert_eq!(
            r("Read(*.env)").specifier,
            Specifier::Path(PathPattern {
                anchor: Anchor::Cwd,
                pattern: "*.env".into(),
                any_depth: true
            })
        );
        assert_eq!(
            r("WebFetch(domain:Example.COM)").specifier,
            Specifier::Domain("example.com".into())
        );
        assert_eq!(
            r("mcp__github").tool,
            ToolPattern::McpServer("github".into())
        );
        assert_eq!(
            r("mcp__github__get_issue").tool,
            ToolPattern::Name("mcp__github__get_issue".into())
        );
        assert_eq!(
            r("mcp__github__*").tool,
            ToolPattern::Glob("mcp__github__*".into())
        );
        assert_eq!(r("Task(Explore)").tool, ToolPattern::Name("Agent".into()));
        assert_eq!(
            r("Skill(/deploy*)").specifier,
            Specifier::SkillName("deploy*".into())
        );
        assert_eq!(
            r("Agent(Explore)").specifier,
            Specifier::AgentType("Explore".into())
        );
        assert_eq!(
            r("Agent(model:opus)").specifier,
            Specifier::Param {
                key: "model".into(),
                value: "opus".into()
            }
        );
        assert_eq!(r("BashOutput").tool, ToolPattern::Name("TaskOutput".into()));
        assert_eq!(r("KillShell").tool, ToolPattern::Name("TaskStop".into()));
    }

    #[test]
    fn errors() {
        for bad in [
            "Bash(git diff",
            "Bash()",
            "(x)",
            "Bash(git:*diff)",
            "WebFetch(example.com)",
            "Read([)",
            "Bad Name",
            "mcp__",
            "Glob()",
            "TodoWrite(x)",
            "Read(~root/x)",
        ] {
            assert!(parse_rule(bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn tool_patterns() {
        assert!(ToolPattern::McpServer("gh".into()).matches("mcp__gh__x"));
        assert!(!ToolPattern::McpServer("gh".into()).matches("mcp__ghx__x"));
        assert!(ToolPattern::Glob("mcp__*".into()).matches("mcp__a__b"));
        assert!(ToolPattern::Name("TaskOutput".into()).matches("BashOutput"));
    }

    #[test]
    fn domains() {
        assert!(domain_matches("example.com", "example.com"));
        assert!(!domain_matches("example.com", "a.example.com"));
        assert!(domain_matches("*.example.com", "a.b.example.com"));
        assert!(!domain_matches("*.example.com", "example.com"));
        assert!(!domain_matches("*.example.com", "evilexample.com"));
    }

    #[test]
    fn path_patterns_match_ancestors_and_depth() {
        let cwd = Path::new("/nonexistent-proj");
        let b = PathBases {
            cwd,
            home: Path::new("/nonexistent-home"),
            root: None,
        };
        let p = |s: &str| match r(s).specifier {
            Specifier::Path(p) => p,
            other => panic!("{other:?}"),
        };
        assert!(p("Read(./secrets)").matches(Path::new("/nonexistent-proj/secrets/k"), &b));
        assert!(p("Read(*.env)").matches(Path::new("/nonexistent-proj/a/b/.env"), &b));
        assert!(p("Read(*.env)").matches(Path::new("/nonexistent-proj/a/prod.env"), &b));
        assert!(!p("Read(./*.env)").matches(Path::new("/nonexistent-proj/a/prod.env"), &b));
        assert!(p("Read(./src/**)").matches(Path::new("/nonexistent-proj/src/a/b.rs"), &b));
        assert!(!p("Read(./src/**)").matches(Path::new("/nonexistent-proj/srcx/b.rs"), &b));
        assert!(p("Read(~/.ssh/**)").matches(Path::new("/nonexistent-home/.ssh/id"), &b));
        assert!(p("Edit(//etc/**)").matches(Path::new("/etc/passwd"), &b));
        assert!(p("Read(./src/../secret)").matches(Path::new("/nonexistent-proj/secret"), &b));
    }
}
