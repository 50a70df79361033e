//! What extends a tack session, loaded from files as Claude Code reads them:
//! custom slash commands, skills, output styles, the plugins a session loads
//! and their components, and sub-agent definitions.
//!
//! # The model
//! Every loader takes plain inputs (folders, a trust flag, the settings'
//! [`Locations`](tack_config::Locations) and [`Settings`](tack_config::Settings))
//! and returns values and its warnings as data (`warning: <file>: why` lines,
//! or [`PluginFailure`](tack_protocol::extensions::PluginFailure)s): nothing
//! here emits, spawns, runs a command or needs an async runtime, so each kind
//! is tested from real folders without a session. A file that cannot be used
//! is one warning and the others load; files a repository wrote are read
//! bounded (`tack_sys::read_config_file`, `tack_config::load_yaml`).
//!
//! A session (tack-runtime's `extensions.rs`) calls these once at start,
//! emits the warnings as notices, and keeps what runs: the `Skill` tool, the
//! Agent tool and sub-agents, the `` !`cmd` `` lines of a command's body,
//! `/name` dispatch.
//!
//! # Where things are
//!
//! - frontmatter of commands, skills and output styles (one YAML parse,
//!   bounded; the splitter shared with memory rules and agent files):
//!   `tack-extensions/src/frontmatter.rs`
//! - custom slash commands (`.claude/commands/*.md`, `~/.claude/commands`,
//!   `<config dir>/commands`, plugins' `/plugin:name`): what a command is, its
//!   expansion into Claude Code's `<command-name>` message, `/name args`
//!   parsing, loading and precedence, an untrusted project's commands without
//!   `allowed-tools` or shell: `tack-extensions/src/custom_commands/{mod,load}.rs`;
//!   finding a body's `` !`cmd` `` lines (`InlineShell`, `ShellOwner`):
//!   `custom_commands/inline_shell.rs`
//! - skills (`<Claude user dir>/skills/<name>/SKILL.md`, `<config dir>/skills`,
//!   a trusted project's `.claude/skills` and those of folders down to the cwd
//!   as `dir:name`, plugins' `plugin:name`): loading, the model's listing,
//!   `/skills`' report (descriptions made terminal-safe), a skill's text for
//!   the `Skill` tool: `tack-extensions/src/skills/{mod,load}.rs`
//! - output styles: the built-ins (tack's own words), `output-styles/*.md` of
//!   the user, a trusted project and plugins, `outputStyle`'s choice
//!   (`OutputStyles::choose`), a style's system prompt part and reminder:
//!   `tack-extensions/src/output_styles/{mod,builtin,load}.rs`
//! - plugins of a session (`--plugin-dir`s as `PluginDir`, then the installed,
//!   enabled ones): each plugin's components read once (`SessionPlugins`:
//!   command, skill and agent paths, hooks with `${CLAUDE_PLUGIN_ROOT}` /
//!   `${CLAUDE_PLUGIN_DATA}` replaced, MCP servers `plugin:<plugin>:<server>`,
//!   output style paths), failures as `PluginFailure`s:
//!   `tack-extensions/src/plugins/mod.rs`; the installed ones the settings
//!   enable and the settings layers: `plugins/installed.rs`
//! - sub-agent definitions: built-ins, files, `--agents` JSON, precedence
//!   (built-in < plugin < user < project < `--agents`):
//!   `tack-extensions/src/agents/{definition,parse,load}.rs`

pub mod agents;
pub mod custom_commands;
pub mod frontmatter;
pub mod output_styles;
pub mod plugins;
pub mod skills;
