//! Command-line flags, with Claude Code's names (`claude -p` scripts must work
//! unchanged with `tack -p`).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use tack_permissions::PermissionMode;

#[derive(Debug, Parser)]
#[command(
    name = "tack",
    version = concat!(env!("CARGO_PKG_VERSION"), " (tack)"),
    about = "tack: an agentic coding CLI, compatible with Claude Code's headless mode",
    after_help = "Try it without an API key: `tack demo`."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The prompt (with -p; stdin is read too when it is not a terminal).
    pub prompt: Option<String>,

    /// Print the response and exit (non-interactive).
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    /// Output format (with -p).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,

    /// Input format (with -p): `stream-json` reads user messages as JSON lines from stdin.
    #[arg(long, value_enum, default_value_t = InputFormat::Text)]
    pub input_format: InputFormat,

    /// Full turn-by-turn output (required for -p with stream-json output).
    #[arg(long)]
    pub verbose: bool,

    /// Emit `stream_event` records with partial messages (stream-json only).
    #[arg(long)]
    pub include_partial_messages: bool,

    /// Maximum number of model calls in one turn.
    #[arg(long)]
    pub max_turns: Option<u32>,

    /// Model alias (`sonnet`, `opus`, `haiku`) or full id.
    #[arg(long)]
    pub model: Option<String>,

    /// Model to use when the primary one is overloaded.
    #[arg(long)]
    pub fallback_model: Option<String>,

    /// Stop once the estimated spend reaches this many US dollars.
    #[arg(long)]
    pub max_budget_usd: Option<f64>,

    /// Continue the most recent session in this directory.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,

    /// Resume a session by id.
    #[arg(short = 'r', long, num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// Use this id (a UUID) for the new session.
    #[arg(long)]
    pub session_id: Option<String>,

    /// Replace the default system prompt.
    #[arg(long)]
    pub system_prompt: Option<String>,

    /// Append to the system prompt.
    #[arg(long)]
    pub append_system_prompt: Option<String>,

    /// Permission mode for the session.
    #[arg(long, value_parser = permission_mode())]
    pub permission_mode: Option<PermissionMode>,

    /// Allowed tools / rules, comma- or space-separated (e.g. "Read,Bash(git diff *)").
    #[arg(long = "allowedTools", visible_alias = "allowed-tools", action = clap::ArgAction::Append)]
    pub allowed_tools: Vec<String>,

    /// Disallowed tools / rules.
    #[arg(long = "disallowedTools", visible_alias = "disallowed-tools", action = clap::ArgAction::Append)]
    pub disallowed_tools: Vec<String>,

    /// Allow every tool call without asking (same as --permission-mode bypassPermissions).
    #[arg(long)]
    pub dangerously_skip_permissions: bool,

    /// Additional working directory (repeatable).
    #[arg(long, action = clap::ArgAction::Append)]
    pub add_dir: Vec<PathBuf>,

    /// Settings file or inline JSON (highest settings layer).
    #[arg(long)]
    pub settings: Option<String>,

    /// MCP server config files or JSON strings (accepted; MCP is not wired up yet).
    #[arg(long, action = clap::ArgAction::Append)]
    pub mcp_config: Vec<String>,

    /// Do not write the session transcript.
    #[arg(long)]
    pub no_session_persistence: bool,

    /// Sub-agent definitions as JSON: {"name": {"description", "prompt", "tools", "model"}}.
    #[arg(long)]
    pub agents: Option<String>,

    /// Run the built-in demo session (no API key, no network).
    #[arg(long)]
    pub demo: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a real session end to end against a built-in scripted model:
    /// no API key, no network.
    Demo,
    /// Trust this folder (or DIR): its project settings may then allow tools,
    /// run hooks and set the environment, as the terminal UI's trust dialog does.
    Trust {
        /// The folder to trust (default: the project of the current directory).
        dir: Option<PathBuf>,
        /// Also let its CLAUDE.md / AGENTS.md import files from outside the project.
        #[arg(long)]
        allow_external_imports: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    #[value(name = "stream-json")]
    StreamJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    Text,
    #[value(name = "stream-json")]
    StreamJson,
}

/// The permission mode names (`manual` is `default`), parsed into
/// tack-permissions' one [`PermissionMode`].
fn permission_mode() -> impl clap::builder::TypedValueParser<Value = PermissionMode> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new([
        "default",
        "manual",
        "acceptEdits",
        "plan",
        "auto",
        "dontAsk",
        "bypassPermissions",
    ])
    .try_map(|s| s.parse::<PermissionMode>())
}

/// Splits `--allowedTools` values on commas and spaces, except inside
/// parentheses (`"Read,Bash(git diff *)"` → `Read`, `Bash(git diff *)`).
pub fn split_rules(values: &[String]) -> Vec<String> {
    let mut rules = Vec::new();
    for value in values {
        let mut depth = 0usize;
        let mut current = String::new();
        for c in value.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 && (c == ',' || c.is_whitespace()) {
                if !current.is_empty() {
                    rules.push(std::mem::take(&mut current));
                }
            } else {
                current.push(c);
            }
        }
        if !current.is_empty() {
            rules.push(current);
        }
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_split_outside_parentheses() {
        let values = vec!["Read,Bash(git diff *) Edit".to_owned(), "Write".to_owned()];
        assert_eq!(
            split_rules(&values),
            ["Read", "Bash(git diff *)", "Edit", "Write"]
        );
    }

    #[test]
    fn the_flags_parse() {
        let cli = Cli::try_parse_from([
            "tack",
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Read",
            "--disallowed-tools",
            "Bash",
            "--permission-mode",
            "acceptEdits",
            "-r",
            "abc",
            "--max-turns",
            "3",
        ])
        .unwrap();
        assert_eq!(cli.prompt.as_deref(), Some("hi"));
        assert_eq!(cli.output_format, OutputFormat::StreamJson);
        assert_eq!(cli.allowed_tools, ["Read"]);
        assert_eq!(cli.disallowed_tools, ["Bash"]);
        assert_eq!(cli.permission_mode, Some(PermissionMode::AcceptEdits));
        assert_eq!(cli.resume.as_deref(), Some("abc"));
        let cli = Cli::try_parse_from(["tack", "-p", "-r"]).unwrap();
        assert_eq!(cli.resume.as_deref(), Some(""));
        assert!(Cli::try_parse_from(["tack", "--bogus"]).is_err());
        assert!(matches!(
            Cli::try_parse_from(["tack", "demo"]).unwrap().command,
            Some(Command::Demo)
        ));
    }
}
