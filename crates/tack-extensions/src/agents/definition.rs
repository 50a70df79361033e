//! What a sub-agent is: its name, when to use it, its system prompt, its
//! tools and its model. Built-ins here; files and `--agents` in
//! [`super::parse`]; which one wins in [`Catalog`].

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where a definition came from, lowest precedence first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum AgentSource {
    BuiltIn,
    /// A plugin's `agents/` (named `plugin:agent`).
    Plugin(PathBuf),
    /// `~/.claude/agents/` or `~/.tack/agents/`.
    User(PathBuf),
    /// `<project>/.claude/agents/` or `<project>/.tack/agents/`.
    Project(PathBuf),
    /// `--agents` JSON.
    Flag,
}

impl AgentSource {
    fn rank(&self) -> u8 {
        match self {
            AgentSource::BuiltIn => 0,
            AgentSource::Plugin(_) => 1,
            AgentSource::User(_) => 2,
            AgentSource::Project(_) => 3,
            AgentSource::Flag => 4,
        }
    }
}

/// Which of the session's tools a sub-agent gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentTools {
    /// Every tool of the session but the Agent tool itself.
    All,
    /// These tools (by name or alias; `Agent`/`Task` lets it start sub-agents).
    Only(Vec<String>),
}

/// The model a sub-agent runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentModel {
    /// The session's current model (`inherit`, or no `model`).
    Inherit,
    /// The session's small, fast model (the built-in Explore agent).
    SmallFast,
    /// An alias (`sonnet`, `opus`, `haiku`) or a model id.
    Named(String),
}

impl AgentModel {
    /// A definition's `model` value.
    pub fn parse(value: Option<&str>) -> AgentModel {
        match value.map(str::trim) {
            None | Some("" | "inherit") => AgentModel::Inherit,
            Some(name) => AgentModel::Named(name.to_owned()),
        }
    }
}

/// One sub-agent definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// `subagent_type` in Agent calls.
    pub name: String,
    /// When to use it (shown to the model in the Agent tool's description).
    pub description: String,
    /// Its system prompt (a file's body, `--agents`' `prompt`).
    pub prompt: String,
    pub tools: AgentTools,
    /// Tools removed from `tools` (`disallowedTools`).
    pub disallowed_tools: Vec<String>,
    pub model: AgentModel,
    /// A display colour for front ends.
    pub color: Option<String>,
    pub source: AgentSource,
    /// Shell commands only if read-only (the built-in Explore agent).
    pub read_only: bool,
    /// `isolation: worktree`: each of its agents works in a git worktree of
    /// its own (`worktree.rs`), removed if it changed nothing.
    pub worktree: bool,
    /// `permissionMode` as written (`default`, `acceptEdits`, `plan`, ...):
    /// the mode a main session run as this agent (`--agent`) starts in.
    pub permission_mode: Option<String>,
}

impl AgentDefinition {
    /// True when its tools include the Agent tool (it may start sub-agents).
    pub fn may_start_agents(&self) -> bool {
        match &self.tools {
            AgentTools::All => false,
            AgentTools::Only(names) => names.iter().any(|n| is_agent_tool_name(n)),
        }
    }

    /// True when a sub-agent of this definition is given the Agent tool: its
    /// tools include it and its disallowed tools do not.
    pub fn gets_agent_tool(&self) -> bool {
        self.may_start_agents() && !self.disallowed_tools.iter().any(|n| is_agent_tool_name(n))
    }
}

/// Claude Code's current name for the tool.
pub const AGENT_TOOL_NAME: &str = "Agent";
/// Its earlier name, accepted in rules, hooks, definitions and transcripts.
pub const LEGACY_AGENT_TOOL_NAME: &str = "Task";

/// True for either name of the Agent tool.
pub fn is_agent_tool_name(name: &str) -> bool {
    name == AGENT_TOOL_NAME || name == LEGACY_AGENT_TOOL_NAME
}

const GENERAL_PURPOSE_PROMPT: &str = "\
You are an agent for tack, a command-line coding agent. Given the user's message, use \
the tools available to complete the task. Do what has been asked; nothing more, nothing \
less. When you complete the task, respond with a detailed writeup.

Your strengths:
- Searching for code, configurations and patterns across large codebases
- Analysing multiple files to understand system architecture
- Investigating complex questions that require exploring many files
- Performing multi-step research tasks

Guidelines:
- For file searches: use Grep or Glob when you need to search broadly; use Read when \
you know the specific file path.
- For analysis: start broad and narrow down. Use multiple search strategies if the \
first does not yield results.
- Be thorough: check multiple locations, consider different naming conventions, look \
for related files.
- Never create files unless they are necessary for the task; prefer editing existing \
files. Never create documentation files unless explicitly asked.";

const EXPLORE_PROMPT: &str = "\
You are a file search specialist for tack, a command-line coding agent. You excel at \
navigating and exploring codebases quickly.

This is a READ-ONLY task: you cannot create, modify or delete files, and shell commands \
that change anything are refused. Use Glob for broad file pattern matching, Grep to \
search file contents with regular expressions, Read when you know the file path, and \
Bash only for read-only commands (ls, git status, git log, git diff, find, cat, head, \
tail). Adapt your search to the thoroughness the caller asks for, make independent \
tool calls in parallel, and report your findings clearly in your final message, with \
absolute file paths.";

const PLAN_PROMPT: &str = "\
You are a software architect and planning specialist for tack, a command-line coding \
agent. Your job is to explore the codebase and design an implementation plan for the \
task you are given.

This is a READ-ONLY task: you cannot create, modify or delete files, and shell commands \
that change anything are refused. Read the files the task names, find the existing \
patterns and conventions with Glob, Grep and Read (and read-only Bash: ls, git log, git \
diff, find), and trace the code paths involved. Then answer with a step-by-step plan: \
the approach and why, the order of the changes, the trade-offs you weighed, what could \
go wrong, and end with the 3 to 5 files most critical to the change, as absolute paths.";

/// The tools of the read-only built-ins (Explore, Plan): searching and
/// reading, Bash limited to read-only commands, the web.
const READ_ONLY_TOOLS: [&str; 7] = [
    "Read",
    "Glob",
    "Grep",
    "LS",
    "Bash",
    "WebFetch",
    "WebSearch",
];

/// A read-only built-in agent.
fn read_only_agent(
    name: &str,
    description: &str,
    prompt: &str,
    model: AgentModel,
) -> AgentDefinition {
    AgentDefinition {
        name: name.into(),
        description: description.into(),
        prompt: prompt.into(),
        tools: AgentTools::Only(READ_ONLY_TOOLS.map(str::to_owned).to_vec()),
        disallowed_tools: Vec::new(),
        model,
        color: None,
        source: AgentSource::BuiltIn,
        read_only: true,
        worktree: false,
        permission_mode: None,
    }
}

/// The built-in agents, as Claude Code's: `general-purpose` (every tool),
/// `Explore` (read-only, on the small fast model) and `Plan` (read-only, on
/// the session's model).
pub fn built_in() -> Vec<AgentDefinition> {
    vec![
        AgentDefinition {
            name: "general-purpose".into(),
            description: "General-purpose agent for researching complex questions, \
                          searching for code, and executing multi-step tasks. When you are \
                          searching for a keyword or file and are not confident that you \
                          will find the right match in the first few tries, use this agent \
                          to perform the search for you."
                .into(),
            prompt: GENERAL_PURPOSE_PROMPT.into(),
            tools: AgentTools::All,
            disallowed_tools: Vec::new(),
            model: AgentModel::Inherit,
            color: None,
            source: AgentSource::BuiltIn,
            read_only: false,
            worktree: false,
            permission_mode: None,
        },
        read_only_agent(
            "Explore",
            "Fast agent specialized for exploring codebases. Use it to quickly find files by \
             patterns (e.g. \"src/components/**/*.tsx\"), search code for keywords (e.g. \
             \"API endpoints\"), or answer questions about the codebase (e.g. \"how do API \
             endpoints work?\"). When calling it, say how thorough it should be: \"quick\" \
             for basic searches, \"medium\" for moderate exploration, or \"very thorough\" \
             for a comprehensive analysis across several locations and naming conventions. \
             Read-only.",
            EXPLORE_PROMPT,
            AgentModel::SmallFast,
        ),
        read_only_agent(
            "Plan",
            "Software architect agent for designing implementation plans. Use it when you \
             need to plan the implementation strategy for a task. It returns step-by-step \
             plans, identifies critical files, and considers architectural trade-offs. \
             Read-only.",
            PLAN_PROMPT,
            AgentModel::Inherit,
        ),
    ]
}

/// The definitions of a session, one per name: a definition from a higher
/// source replaces one of the same name from a lower source (built-in < user
/// < project < `--agents`, as in Claude Code).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    by_name: BTreeMap<String, AgentDefinition>,
}

impl Catalog {
    /// Adds `def` unless a definition of the same name from a higher source is
    /// there; a later one from the same source replaces an earlier one.
    pub fn add(&mut self, def: AgentDefinition) {
        match self.by_name.get(&def.name) {
            Some(old) if old.source.rank() > def.source.rank() => {}
            Some(_) | None => {
                self.by_name.insert(def.name.clone(), def);
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.by_name.get(name)
    }

    /// Every definition, by name.
    pub fn iter(&self) -> impl Iterator<Item = &AgentDefinition> {
        self.by_name.values()
    }

    pub fn names(&self) -> Vec<String> {
        self.by_name.keys().cloned().collect()
    }
}
