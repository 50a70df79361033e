//! Command-line flags, with Claude Code's names (`claude -p` scripts must work
//! unchanged with `tack -p`).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use tack_runtime::PermissionMode;

#[derive(Debug, Parser)]
#[command(
    name = "tack",
    version,
    disable_version_flag = true,
    about = "tack: an agentic coding CLI, compatible with Claude Code (its terminal UI without -p, its headless mode with -p)",
    after_help = "Examples:
  tack                                  the terminal UI in this folder
  tack -p \"why does the test fail?\"     one prompt, the answer printed
  tack -c                               continue the last session here
  tack demo                             a real session against a scripted model: no API key

Flags only the Agent SDKs pass are accepted and not listed."
)]
pub struct Cli {
    /// Print the version (`-v` as Claude Code's, and `-V`).
    #[arg(short = 'v', long = "version", short_alias = 'V', action = clap::ArgAction::Version)]
    version: (),

    #[command(subcommand)]
    pub command: Option<Command>,

    /// The prompt (with -p; stdin is read too when it is not a terminal).
    pub prompt: Option<String>,

    /// Print the response and exit (non-interactive).
    #[arg(help_heading = "Print mode (-p)", short = 'p', long = "print")]
    pub print: bool,

    /// Output format (with -p).
    #[arg(help_heading = "Print mode (-p)", long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,

    /// Input format (with -p): `stream-json` reads user messages as JSON lines from stdin.
    #[arg(help_heading = "Print mode (-p)", long, value_enum, default_value_t = InputFormat::Text)]
    pub input_format: InputFormat,

    /// Full turn-by-turn output (required for -p with stream-json output).
    #[arg(help_heading = "Print mode (-p)", long)]
    pub verbose: bool,

    /// Emit `stream_event` records with partial messages (stream-json only).
    #[arg(help_heading = "Print mode (-p)", long)]
    pub include_partial_messages: bool,

    /// Maximum number of model calls in one turn (at least 1).
    #[arg(help_heading = "Print mode (-p)", long)]
    pub max_turns: Option<u32>,

    /// Model alias (`sonnet`, `opus`, `haiku`) or full id.
    #[arg(help_heading = "Model", long)]
    pub model: Option<String>,

    /// Model to use when the primary one is overloaded.
    #[arg(help_heading = "Model", long)]
    pub fallback_model: Option<String>,

    /// Stop once the estimated spend reaches this many US dollars.
    #[arg(help_heading = "Print mode (-p)", long)]
    pub max_budget_usd: Option<f64>,

    /// Print mode: a hard wall-clock limit in seconds. The running turn is
    /// interrupted, its result printed, and tack exits with code 124.
    #[arg(help_heading = "Print mode (-p)", long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Run the session in a new git worktree, `.claude/worktrees/<name>/` on
    /// branch `worktree-<name>` (a name is made up when none is given).
    /// Removed at the end if nothing changed; otherwise kept and named.
    #[arg(help_heading = "Sessions", short = 'w', long, value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
    pub worktree: Option<String>,

    /// Continue the most recent session in this directory.
    #[arg(help_heading = "Sessions", short = 'c', long = "continue")]
    pub continue_session: bool,

    /// Resume a session by id.
    #[arg(help_heading = "Sessions", short = 'r', long, num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// Use this id (a UUID) for the new session.
    #[arg(help_heading = "Sessions", long)]
    pub session_id: Option<String>,

    /// Replace the default system prompt.
    #[arg(help_heading = "Context and extensions", long)]
    pub system_prompt: Option<String>,

    /// Append to the system prompt.
    #[arg(help_heading = "Context and extensions", long)]
    pub append_system_prompt: Option<String>,

    /// Permission mode for the session.
    #[arg(help_heading = "Permissions and sandbox", long, value_parser = permission_mode())]
    pub permission_mode: Option<PermissionMode>,

    /// Allowed tools / rules, comma- or space-separated (e.g. "Read,Bash(git diff *)").
    #[arg(help_heading = "Permissions and sandbox", long = "allowedTools", visible_alias = "allowed-tools", action = clap::ArgAction::Append)]
    pub allowed_tools: Vec<String>,

    /// Disallowed tools / rules.
    #[arg(help_heading = "Permissions and sandbox", long = "disallowedTools", visible_alias = "disallowed-tools", action = clap::ArgAction::Append)]
    pub disallowed_tools: Vec<String>,

    /// Allow every tool call without asking (same as --permission-mode bypassPermissions).
    #[arg(help_heading = "Permissions and sandbox", long)]
    pub dangerously_skip_permissions: bool,

    /// Additional working directory (repeatable).
    #[arg(help_heading = "Permissions and sandbox", long, action = clap::ArgAction::Append)]
    pub add_dir: Vec<PathBuf>,

    /// Confine Bash commands (Codex's modes): read-only, workspace-write, or off.
    /// Beats the `sandbox.enabled` setting.
    #[arg(help_heading = "Permissions and sandbox", long, value_parser = sandbox_mode())]
    pub sandbox: Option<tack_runtime::SandboxMode>,

    /// Settings file or inline JSON (highest settings layer).
    #[arg(help_heading = "Context and extensions", long)]
    pub settings: Option<String>,

    /// MCP server configuration: files or JSON strings (`{"mcpServers": {...}}`).
    #[arg(help_heading = "Context and extensions", long, num_args = 1.., action = clap::ArgAction::Append)]
    pub mcp_config: Vec<String>,

    /// Load a plugin from this folder for this session only (repeatable).
    #[arg(help_heading = "Context and extensions", long = "plugin-dir", value_name = "DIR", action = clap::ArgAction::Append)]
    pub plugin_dir: Vec<PathBuf>,
    /// As `--plugin-dir`, without the plugin's MCP servers (the TypeScript
    /// SDK's `skipMcpDiscovery`).
    #[arg(long = "plugin-dir-no-mcp", value_name = "DIR", hide = true, action = clap::ArgAction::Append)]
    pub plugin_dir_no_mcp: Vec<PathBuf>,
    /// Use only the `--mcp-config` servers.
    #[arg(help_heading = "Context and extensions", long)]
    pub strict_mcp_config: bool,

    /// Do not write the session transcript.
    #[arg(help_heading = "Sessions", long)]
    pub no_session_persistence: bool,

    /// Sub-agent definitions as JSON: {"name": {"description", "prompt", "tools", "model"}}.
    #[arg(help_heading = "Context and extensions", long)]
    pub agents: Option<String>,

    /// Run the session as this agent (its prompt, tools, model and mode;
    /// overrides the `agent` setting).
    #[arg(help_heading = "Context and extensions", long)]
    pub agent: Option<String>,

    /// Run the built-in demo session (no API key, no network).
    #[arg(hide = true, long)]
    pub demo: bool,

    /// Serve the session on this Unix socket instead of printing it: clients
    /// drive it with the session protocol (one JSON object a line), attach,
    /// detach and attach again; the session ends when a client ends its
    /// input. The base of background sessions.
    #[arg(long, value_name = "SOCKET", hide = true)]
    pub serve: Option<PathBuf>,

    /// Run the session in the background: print its id and return at once
    /// (`tack agents` lists it, `tack logs ID` shows it, `tack stop ID` ends it).
    #[arg(long)]
    pub bg: bool,

    /// The background session's name in `tack agents` (else the prompt's
    /// first words); `attach`, `logs` and `stop` take it as well as the id.
    #[arg(short = 'n', long, value_name = "NAME")]
    pub name: Option<String>,

    /// Where agent-team teammates run: `auto` (tmux panes inside tmux, else
    /// in-process), `in-process`, or `tmux` (a background session each).
    #[arg(long, value_name = "MODE", value_parser = tack_runtime::teams::backend::TeammateMode::parse)]
    pub teammate_mode: Option<tack_runtime::teams::backend::TeammateMode>,

    /// The background session of this job folder (what `--bg` starts).
    #[arg(long, value_name = "JOB_DIR", hide = true)]
    pub bg_job: Option<PathBuf>,

    // ----- Agent SDK mode (`--input-format stream-json`; see sdk/) -----
    /// Who answers permission prompts: `stdio` (the Agent SDK's `canUseTool`
    /// callback, over the control protocol) or an MCP tool (`mcp__server__tool`).
    #[arg(hide = true, long)]
    pub permission_prompt_tool: Option<String>,

    /// Which settings files load: a comma-separated subset of `user,project,local`.
    #[arg(help_heading = "Context and extensions", long)]
    pub setting_sources: Option<String>,

    /// The built-in tools offered to the model: `default` (all), `""` (none), or
    /// names (`Bash,Edit,Read`).
    #[arg(help_heading = "Context and extensions", long)]
    pub tools: Option<String>,

    /// With --continue/--resume: continue in a new session (new id and transcript).
    #[arg(help_heading = "Sessions", long)]
    pub fork_session: bool,

    /// Resume only up to this message (a message uuid), with --resume/--continue.
    #[arg(hide = true, long)]
    pub resume_session_at: Option<String>,

    /// With --resume-session-at: the prompt (a uuid) whose turn the
    /// truncation drops; the resume is refused unless everything cut belongs
    /// to that turn.
    #[arg(long, hide = true)]
    pub resume_drops_turn: Option<String>,

    /// Also write each transcript record to stdout as a `transcript_mirror`
    /// frame (the Agent SDKs' session stores; stream-json).
    #[arg(long, hide = true)]
    pub session_mirror: bool,

    /// Echo each stdin user message on stdout (stream-json in and out).
    #[arg(hide = true, long)]
    pub replay_user_messages: bool,

    /// Emit hook lifecycle records (stream-json).
    #[arg(hide = true, long)]
    pub include_hook_events: bool,

    /// Extended thinking with this token budget (0 turns thinking off).
    #[arg(help_heading = "Model", long)]
    pub max_thinking_tokens: Option<u32>,

    /// `adaptive` or `disabled` thinking.
    #[arg(help_heading = "Model", long, value_parser = ["adaptive", "disabled"])]
    pub thinking: Option<String>,

    /// How thinking is shown (`summarized`, `omitted`, ...), with thinking on.
    #[arg(hide = true, long)]
    pub thinking_display: Option<String>,

    /// The model's effort (`output_config.effort`).
    #[arg(help_heading = "Model", long, value_parser = ["low", "medium", "high", "xhigh", "max"])]
    pub effort: Option<String>,

    /// More `anthropic-beta` values, comma-separated.
    #[arg(help_heading = "Model", long, action = clap::ArgAction::Append)]
    pub betas: Vec<String>,

    /// Structured output: a JSON Schema the final answer must match.
    #[arg(help_heading = "Print mode (-p)", long)]
    pub json_schema: Option<String>,

    /// Let the session switch to bypassPermissions later without starting in it.
    #[arg(help_heading = "Permissions and sandbox", long)]
    pub allow_dangerously_skip_permissions: bool,

    /// Replace the default system prompt with this file's text.
    #[arg(
        help_heading = "Context and extensions",
        long,
        conflicts_with = "system_prompt"
    )]
    pub system_prompt_file: Option<PathBuf>,

    /// Append this file's text to the system prompt.
    #[arg(
        help_heading = "Context and extensions",
        long,
        conflicts_with = "append_system_prompt"
    )]
    pub append_system_prompt_file: Option<PathBuf>,

    /// Accepted for the Agent SDKs' `debug` option; tack has no debug log yet
    /// (hook, permission and API problems go to stderr as they happen).
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "")]
    pub debug: Option<String>,
    /// Accepted with `--debug`; nothing is written there yet.
    #[arg(long, hide = true)]
    pub debug_file: Option<String>,

    /// `--permission-prompts host|none` (the TypeScript SDK's
    /// `permissionPrompts`): `none` denies what would ask, asking nobody.
    #[arg(long, hide = true)]
    pub permission_prompts: Option<String>,

    /// Flags the Agent SDKs pass for features tack does not have yet: each is
    /// refused with an error naming it (see `unsupported_flags`).
    #[command(flatten)]
    pub unsupported: UnsupportedFlags,
}

/// Flags the Agent SDKs can pass that tack does not implement yet. They parse
/// (so the error names the feature, not a parse failure) and are refused
/// before anything starts.
#[derive(Debug, Default, clap::Args)]
pub struct UnsupportedFlags {
    #[arg(long, hide = true)]
    pub task_budget: Option<String>,
    #[arg(long, hide = true, action = clap::ArgAction::Append)]
    pub channels: Vec<String>,
    #[arg(long, hide = true)]
    pub project_config_root: Option<String>,
    #[arg(long, hide = true)]
    pub await_initialize: bool,
    #[arg(long, hide = true)]
    pub initialize_fields: Option<String>,
    #[arg(long, hide = true)]
    pub managed_settings: Option<String>,
    #[arg(long, hide = true)]
    pub managed_settings_in_initialize: bool,
}

impl UnsupportedFlags {
    /// The first flag given, with what it is for.
    pub fn first(&self) -> Option<(&'static str, &'static str)> {
        let given = [
            (self.task_budget.is_some(), "--task-budget", "task budgets"),
            (!self.channels.is_empty(), "--channels", "channels"),
            (
                self.project_config_root.is_some(),
                "--project-config-root",
                "a separate project config root",
            ),
            (
                self.await_initialize,
                "--await-initialize",
                "launch options sent in initialize",
            ),
            (
                self.initialize_fields.is_some(),
                "--initialize-fields",
                "launch options sent in initialize",
            ),
            (
                self.managed_settings.is_some(),
                "--managed-settings",
                "managed settings",
            ),
            (
                self.managed_settings_in_initialize,
                "--managed-settings-in-initialize",
                "managed settings",
            ),
        ];
        given
            .into_iter()
            .find(|(on, _, _)| *on)
            .map(|(_, flag, what)| (flag, what))
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a real session end to end against a built-in scripted model:
    /// no API key, no network.
    Demo {
        /// Keep the demo's project folder (removed when the demo ends) to
        /// try tack on it afterwards.
        #[arg(long)]
        keep: bool,
    },
    /// Configure and check MCP servers (like `claude mcp`).
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Marketplaces and plugins, kept where Claude Code keeps them (like
    /// `claude plugin`).
    #[command(subcommand)]
    Plugin(PluginCommand),
    /// Report what a session here would use: credentials, settings files and
    /// their warnings, trust, hooks, model, transcripts, versions.
    Doctor,
    /// Run many headless sessions from a JSONL file of tasks, each in its own
    /// git worktree; results (with each task's patch) appended to `--out`,
    /// finished tasks skipped on a rerun.
    Batch(crate::batch::BatchArgs),
    /// Auto mode's classifier rules: `defaults`, `config` (in effect here),
    /// `critique` (a model's review of yours), `reset` (like `claude auto-mode`).
    #[command(subcommand, name = "auto-mode")]
    AutoMode(crate::auto_mode::AutoModeCommand),
    /// Open a background session in the terminal UI (← on an empty prompt detaches).
    Attach { id: String },
    /// Serve the Agent Client Protocol on stdin / stdout, for editors (Zed,
    /// JetBrains IDEs, Neovim).
    Acp,
    /// `agents`, `logs`, `stop`, `rm`, `respawn`: background sessions.
    #[command(flatten)]
    Background(BackgroundCommand),
    /// Trust this folder (or DIR): its project settings may then allow tools,
    /// run hooks and set the environment, as the terminal UI's trust dialog does.
    Trust {
        /// The folder to trust (default: the project of the current directory).
        dir: Option<PathBuf>,
        /// Also let its CLAUDE.md / AGENTS.md import files from outside the project.
        #[arg(long)]
        allow_external_imports: bool,
        /// Trust the home folder or `/` (and so every project below it).
        #[arg(long)]
        force: bool,
    },
}

/// The commands of background sessions (`--bg`), as Claude Code names them.
#[derive(Debug, Subcommand)]
pub enum BackgroundCommand {
    /// Background sessions (`--bg`): each with its id, folder, state and
    /// status (like `claude agents`).
    Agents {
        /// As JSON: `[{pid, id, cwd, kind, startedAt, sessionId, name, status, state}]`.
        #[arg(long)]
        json: bool,
        /// Also the sessions that ended.
        #[arg(long)]
        all: bool,
    },
    /// A background session's conversation so far, from its transcript.
    Logs { id: String },
    /// End a background session and its tools' processes.
    Stop { id: String },
    /// Remove an ended background session's folder.
    Rm { id: String },
    /// Start again a background session whose process died without ending
    /// (`kill -9`, a reboot): it resumes from its transcript, no prompt re-sent.
    Respawn {
        id: Option<String>,
        /// Every such session.
        #[arg(long, conflicts_with = "id", required_unless_present = "id")]
        all: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Add a server: `tack mcp add <name> -- <command> [args...]`, or
    /// `tack mcp add --transport http <name> <url>`.
    Add {
        /// `stdio` (default), `http` or `sse`.
        #[arg(short, long)]
        transport: Option<String>,
        /// `local` (default: this project, only you), `project` (.mcp.json) or `user`.
        #[arg(short, long)]
        scope: Option<String>,
        /// An environment variable for a stdio server (repeatable).
        #[arg(short, long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A header for an http or sse server (repeatable).
        #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
        headers: Vec<String>,
        name: String,
        /// The command (stdio) or URL (http, sse).
        command_or_url: String,
        /// The command's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Add a server from its JSON configuration.
    AddJson {
        #[arg(short, long)]
        scope: Option<String>,
        name: String,
        json: String,
    },
    /// Every configured server, with its live status.
    List,
    /// One server's configuration and status.
    Get { name: String },
    /// Remove a server.
    Remove {
        #[arg(short, long)]
        scope: Option<String>,
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum PluginCommand {
    /// Add, list, update or remove marketplaces.
    #[command(subcommand)]
    Marketplace(MarketplaceCommand),
    /// Install a plugin from a marketplace and enable it.
    #[command(visible_alias = "i")]
    Install {
        /// `plugin` or `plugin@marketplace`.
        plugin: String,
        /// `user` (default: every project), `project` (.claude/settings.json)
        /// or `local` (.claude/settings.local.json).
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// Uninstall a plugin from a scope.
    #[command(visible_alias = "remove")]
    Uninstall {
        plugin: String,
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// Enable an installed plugin in a scope's settings.
    Enable {
        plugin: String,
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// Disable a plugin in a scope's settings.
    Disable {
        plugin: String,
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// Installed plugins, their scope, version and status.
    List {
        #[arg(long)]
        json: bool,
        /// Also the plugins the added marketplaces offer, installed or not.
        #[arg(long)]
        available: bool,
    },
    /// Install a plugin's current version from its marketplace.
    Update {
        plugin: String,
        #[arg(short, long)]
        scope: Option<String>,
    },
    /// Check a plugin or marketplace folder (or its manifest).
    Validate { path: PathBuf },
    /// A plugin's marketplace entry, installs and components.
    Details { plugin: String },
}

#[derive(Debug, Subcommand)]
pub enum MarketplaceCommand {
    /// Add a marketplace: a folder, a path or URL to marketplace.json, a git
    /// URL (`file://` too) or GitHub's `owner/repo[@ref]`.
    Add {
        source: String,
        /// `user` (default) records it for you; `project` / `local` also
        /// declare it in that settings file's `extraKnownMarketplaces`.
        #[arg(short, long, default_value = "user")]
        scope: String,
    },
    /// The marketplaces added, and those settings declare.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Refresh one marketplace, or all.
    Update { name: Option<String> },
    /// Forget a marketplace.
    #[command(visible_alias = "rm")]
    Remove { name: String },
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

fn sandbox_mode() -> impl clap::builder::TypedValueParser<Value = tack_runtime::SandboxMode> {
    use clap::builder::TypedValueParser;
    use tack_runtime::SandboxMode;
    clap::builder::PossibleValuesParser::new(["read-only", "workspace-write", "off"]).map(|s| {
        match s.as_str() {
            "read-only" => SandboxMode::ReadOnly,
            "workspace-write" => SandboxMode::WorkspaceWrite,
            _ => SandboxMode::Off,
        }
    })
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
            Some(Command::Demo { keep: false })
        ));
        assert!(matches!(
            Cli::try_parse_from(["tack", "demo", "--keep"])
                .unwrap()
                .command,
            Some(Command::Demo { keep: true })
        ));
    }
}
