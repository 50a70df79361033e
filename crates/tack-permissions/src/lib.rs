//! tack's permission layer: Claude Code's permission rules, modes and checks,
//! as pure decision logic (no I/O beyond resolving paths and editing the local
//! settings file).
//!
//! # The model
//! The agent loop asks [`PermissionContext::decide`] about every tool call before
//! running it, passing the tool's name, aliases, input, `is_read_only(input)` and
//! `paths_touched(input)`. The answer is a [`Decision`]: `Allow`, `Deny` (the reason
//! goes to the model as the tool result) or `Ask` (the terminal UI prompts; print
//! mode turns it into a denial with [`Decision::without_prompt`] and lists it in
//! `permission_denials`; a `--permission-prompt-tool` or SDK callback may answer
//! instead). "Allow always" adds one of the `Ask`'s suggestions to the
//! [`RuleSet`] and to the local settings file with
//! [`add_allow_rule_to_local_settings`].
//!
//! Precedence is deny → ask → (plan) → (bypass) → allow → mode default, whatever
//! the source of each rule (see [`engine`]). Auto mode puts its safety checks
//! (protected paths, shell start-up files: `Ask`) before the allow rules, sets
//! aside the allow rules that run interpreters ([`sets_aside`]), allows what its
//! fast paths prove (read-only, inside the working directories) and answers
//! [`Decision::Classify`] for the rest: the caller's classifier model decides. Bash commands are parsed with
//! tree-sitter-bash ([`bash`]); every simple command of a compound command must be
//! allowed, and redirection targets are checked as file writes/reads. Paths are
//! resolved (`~`, `..`, symlinks) before any check ([`path`]).
//!
//! # Where things are
//!
//! Each concept of this crate and the files that hold it (moved here from
//! `ARCHITECTURE.md`, which keeps a one-line map of the workspace).
//!
//! - permission rules, modes, bash parsing, path resolution:
//!   `tack-permissions/src/{rule,mode,path}.rs`, `bash/`
//! - permission decisions: tool calls, then Bash scripts command by command:
//!   `tack-permissions/src/engine/{mod,bash_decision}.rs`
//! - auto mode: its options and set-aside rules `engine/auto.rs`, its Bash safety
//!   check and read-only fast path `engine/bash_auto.rs`, the commands the parser
//!   proves read-only `bash/read_only.rs`

pub mod bash;
pub mod engine;
pub mod mode;
pub mod path;
pub mod rule;
pub mod settings_rules;

pub use engine::{AutoOptions, Decision, PermissionContext, sets_aside};
pub use mode::{PermissionMode, UnknownMode};
pub use rule::{LEGACY_TOOL_NAMES, Rule, Specifier, ToolPattern, canonical_tool_name, parse_rule};
pub use settings_rules::{
    LocalSettingsError, RuleBehavior, RuleError, RuleLists, RuleSet, RuleSource, SourcedRule,
    add_allow_rule_to_local_settings,
};
