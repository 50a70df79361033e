//! tack's settings: Claude Code's `settings.json` files, read from tack's own
//! directories and from Claude Code's (so existing projects work unchanged),
//! merged into one [`Settings`].
//!
//! # Sources and precedence
//!
//! Lowest first; [`Locations::files`] lists them, [`Settings::load`] reads them:
//!
//! | # | Scope | File |
//! |---|---|---|
//! | 1 | user | `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` if set) |
//! | 2 | user | `~/.tack/settings.json` (`$TACK_CONFIG_DIR/settings.json` if set) |
//! | 3 | project | `<project>/.claude/settings.json` |
//! | 4 | project | `<project>/.tack/settings.json` |
//! | 5 | local | `<project>/.claude/settings.local.json` |
//! | 6 | local | `<project>/.tack/settings.local.json` |
//! | 7 | flag | `--settings <file-or-json>` |
//!
//! Command-line flags (`--model`, `--permission-mode`, `--allowedTools`, ...)
//! come above all of them; the CLI applies them. Managed (enterprise) settings
//! are not read yet. At each level tack's file overrides Claude Code's.
//!
//! `<project>` is the nearest ancestor of the cwd containing `.git`, else the
//! cwd ([`find_project_dir`]). A file reachable at two levels (tack started in
//! the home directory) is read once, at the lower level. Missing files are
//! skipped; a `--settings` file that does not exist is an error.
//!
//! # Merging
//!
//! - Scalars (`model`, `apiKeyHelper`, `cleanupPeriodDays`,
//!   `permissions.defaultMode`, `fallbackModel` as a whole, ...): the highest
//!   source that sets the key wins.
//! - `permissions.allow` / `ask` / `deny` / `additionalDirectories` and the MCP
//!   server lists: concatenated over all sources, lowest first, without
//!   repeats; each rule and directory remembers its [`Source`].
//! - `env`: merged by variable, the highest source wins.
//! - `hooks`: per event, every source's matcher groups, lowest first (all
//!   run): [`Settings::hooks_json`], or [`Settings::hooks_by_source`].
//!
//! Environment variables are not a level: they are per variable, applied by
//! the caller (`ANTHROPIC_MODEL` beats `model`, `--model` beats both). The
//! `env` object itself overrides the inherited environment (as in Claude Code,
//! where a settings `env` value beats a shell export).
//!
//! # Errors
//!
//! Unknown keys are kept ([`Settings::unknown_keys`]) and otherwise ignored;
//! each key that neither tack nor Claude Code reads (a typo like `permisions`)
//! is a [`SettingsWarning`] with file:line and the nearest known key
//! ([`Settings::warnings`]), for the caller to show.
//! A file that is not JSON, or a known key with the wrong type or value, is a
//! [`ConfigError`] naming the file, line, column (and key); an unreadable file
//! is one too. Any error in a user or `--settings` source means no
//! [`Settings`] at all; a project or local file (which a checkout controls) with
//! an error is skipped with a [`SettingsWarning::SkippedFile`] instead, so a
//! repository cannot stop tack from starting.
//!
//! [`load_yaml`] is the one loader for YAML a repository wrote (agent and
//! command frontmatter): alias expansion, nesting and size are bounded.
//!
//! The library reads no environment variables and changes nothing: the caller
//! passes the directories in ([`Locations::discover`] takes a lookup).
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - the one loader of repository YAML (frontmatter): alias expansion, nesting and size
//!   bounded; the one frontmatter splitter (rules, commands, skills, output styles, agents):
//!   `tack-config/src/yaml.rs`; `tack-core/src/context/rules.rs` (`split_frontmatter`)
//! - `sandbox.*` settings merged, Claude Code's path forms, an untrusted project only
//!   tightening them: `tack-config/src/sandbox.rs`
//! - settings sources and merge, apiKeyHelper:
//!   `tack-config/src/{source,settings,file,helper}.rs`
//! - unknown settings keys: file:line and the nearest known key:
//!   `tack-config/src/unknown_keys.rs`
//! - `providers` (`api`, `baseUrl`, `apiKeyEnv`, `headers`) and `modelPrices` settings:
//!   `tack-config/src/providers.rs`

mod error;
mod file;
mod helper;
pub mod json_object_file;
mod providers;
mod sandbox;
mod settings;
mod source;
mod unknown_keys;
pub mod yaml;

pub use error::ConfigError;
pub use file::WorktreeBase;
pub use helper::{API_KEY_HELPER_TIMEOUT, run_api_key_helper, run_otel_headers_helper};
pub use providers::{ModelPrice, Provider, ProviderApi, check_http_url};
pub use sandbox::SandboxSettings;
pub use settings::{DEFAULT_CLEANUP_PERIOD_DAYS, IgnoredUntrusted, Permissions, Settings, Sourced};
pub use source::{Locations, Scope, Source, find_project_dir};
pub use unknown_keys::SettingsWarning;
pub use yaml::{YamlError, load_yaml};
