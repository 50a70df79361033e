//! Custom slash commands: markdown files under `.claude/commands/` (the
//! project's), `~/.claude/commands/` and `<config dir>/commands/` (the
//! user's), as Claude Code reads them. Loaded once when a session starts, so
//! every front end (`-p`, stream-json, the terminal UI) gets the same ones.
//!
//! `review.md` is `/review`; `frontend/component.md` is `/frontend:component`.
//! An optional YAML frontmatter gives `description`, `argument-hint`,
//! `allowed-tools` (a string or a list) and `model`. In the body, `$ARGUMENTS`
//! is replaced by everything typed after the command, `$1`..`$9` by its
//! whitespace-separated words.
//!
//! A plugin's commands are `/plugin:name` (also plain `/name` when no other
//! command or skill has that name, as Claude Code allows: tack-runtime's
//! `slash.rs`).
//!
//! A body's `` !`cmd` `` lines run before the prompt is sent, their output in
//! their place ([`inline_shell`] finds them; tack-runtime runs them): each
//! under the permission rules plus the command's `allowed-tools`, as a Bash
//! call would be; one that is not allowed does not run and the prompt says
//! why. An untrusted project's commands run none.

pub mod inline_shell;
mod load;

use std::path::PathBuf;

use tack_protocol::extensions::{CommandSource, SlashCommand};
use tack_protocol::{ContentBlock, Message};
use tack_sys::terminal_text::visible;

pub use load::{CommandDirs, load_commands};

/// Where a command was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandScope {
    Project,
    User,
    /// A plugin's (`plugin:name`).
    Plugin,
}

impl CommandScope {
    /// Claude Code's name for where a command or skill comes from
    /// (PreSkillShellCommand's `command_source`).
    pub fn setting_source(self) -> &'static str {
        match self {
            CommandScope::Project => "projectSettings",
            CommandScope::User => "userSettings",
            CommandScope::Plugin => "plugin",
        }
    }
}

impl CommandScope {
    /// Where a front end's list says a command or skill comes from.
    pub fn listed(self) -> CommandSource {
        match self {
            CommandScope::Project => CommandSource::Project,
            CommandScope::User => CommandSource::User,
            CommandScope::Plugin => CommandSource::Plugin,
        }
    }
}

/// One custom command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// Without the slash: `review`, `frontend:component`.
    pub name: String,
    pub scope: CommandScope,
    pub description: Option<String>,
    pub argument_hint: Option<String>,
    /// Permission rules added for the command's turn.
    pub allowed_tools: Vec<String>,
    /// The model of the command's turn.
    pub model: Option<String>,
    /// The prompt template.
    pub body: String,
    pub path: PathBuf,
    /// Its `` !`cmd` `` lines may run (not an untrusted project's command).
    pub runs_shell: bool,
}

impl CustomCommand {
    /// The prompt for `args` (what was typed after the command name). As in
    /// Claude Code, arguments given to a template with no placeholder are
    /// appended, so they still reach the model.
    pub fn expand(&self, args: &str) -> String {
        let words: Vec<&str> = args.split_whitespace().collect();
        let placeholder = self.body.contains("$ARGUMENTS")
            || (1..=9).any(|i| self.body.contains(&format!("${i}")));
        let mut out = self.body.replace("$ARGUMENTS", args);
        // $9 first so that $1 does not eat the start of a (hypothetical) $10.
        for i in (1..=9).rev() {
            let value = words.get(i - 1).copied().unwrap_or("");
            out = out.replace(&format!("${i}"), value);
        }
        if !placeholder && !args.is_empty() {
            out = format!("{}\n\nARGUMENTS: {args}", out.trim_end());
        }
        out
    }

    /// Its description, else the first line of its body.
    pub fn summary(&self) -> String {
        let first_line = self
            .body
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        self.description
            .clone()
            .unwrap_or_else(|| first_line.to_owned())
    }

    /// How a front end lists it, its text made safe for a terminal (a
    /// repository's description cannot send escape sequences).
    pub fn listed(&self) -> SlashCommand {
        SlashCommand {
            name: visible(&self.name).into_owned(),
            description: visible(&self.summary()).into_owned(),
            argument_hint: visible(self.argument_hint.as_deref().unwrap_or_default()).into_owned(),
            source: self.scope.listed(),
        }
    }

    /// The user message of `/name args`: Claude Code's command tags, then the
    /// expanded template, then the message's other blocks (`rest`).
    pub fn message(&self, args: &str, rest: Vec<ContentBlock>) -> Message {
        let name = &self.name;
        let mut tags = format!(
            "<command-message>{name}</command-message>\n<command-name>/{name}</command-name>"
        );
        if !args.is_empty() {
            tags.push_str(&format!("\n<command-args>{args}</command-args>"));
        }
        let mut content = vec![
            ContentBlock::text(tags),
            ContentBlock::text(self.expand(args)),
        ];
        content.extend(rest);
        Message::user(content)
    }
}

/// A session's custom commands, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomCommands(pub Vec<CustomCommand>);

impl CustomCommands {
    /// The command `/name` invokes: the one of that name, else the one
    /// plugin command whose name ends in `:name`.
    /// The command named `name` exactly.
    pub fn get(&self, name: &str) -> Option<&CustomCommand> {
        self.0.iter().find(|c| c.name == name)
    }

    /// The plugin commands `plugin:name` for a plain `name`.
    pub fn plugin_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a CustomCommand> {
        self.0
            .iter()
            .filter(move |c| c.scope == CommandScope::Plugin && plain_name_of(&c.name, name))
    }

    pub fn iter(&self) -> impl Iterator<Item = &CustomCommand> {
        self.0.iter()
    }
}

/// Whether a plugin's `qualified` name (`plugin:name`, `plugin:dir:name`)
/// ends with the plain `name`.
pub fn plain_name_of(qualified: &str, name: &str) -> bool {
    qualified
        .strip_suffix(name)
        .is_some_and(|rest| rest.ends_with(':'))
}

/// `/name args` at the start of `text`: (name, args). `None` when the text
/// is not a command: no slash, or a name that is no command name (Claude
/// Code's test: letters, digits, `:`, `-`, `_`), such as `/usr/bin/env`.
pub fn parse_invocation(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let command_like = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_'));
    command_like.then(|| (name, args.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn command(body: &str) -> CustomCommand {
        CustomCommand {
            name: "review".into(),
            scope: CommandScope::Project,
            description: None,
            argument_hint: None,
            allowed_tools: vec![],
            model: None,
            body: body.into(),
            path: PathBuf::from("/p/.claude/commands/review.md"),
            runs_shell: true,
        }
    }

    #[test]
    fn placeholders_are_filled_and_arguments_without_one_appended() {
        let c = command("Review PR $ARGUMENTS, first $1, then $2.\n");
        assert_eq!(
            c.expand("42 urgent"),
            "Review PR 42 urgent, first 42, then urgent.\n"
        );
        assert_eq!(c.expand(""), "Review PR , first , then .\n");
        let plain = command("Review the diff.\n");
        assert_eq!(
            plain.expand("carefully"),
            "Review the diff.\n\nARGUMENTS: carefully"
        );
        assert_eq!(plain.expand(""), "Review the diff.\n");
    }

    #[test]
    fn the_message_carries_the_command_tags_then_the_prompt() {
        let c = command("Review $ARGUMENTS.\n");
        let image = ContentBlock::text("an attachment");
        assert_eq!(
            c.message("foo bar", vec![image.clone()]),
            Message::user(vec![
                ContentBlock::text(
                    "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>foo bar</command-args>"
                ),
                ContentBlock::text("Review foo bar.\n"),
                image,
            ])
        );
        assert_eq!(
            c.message("", vec![]),
            Message::user(vec![
                ContentBlock::text(
                    "<command-message>review</command-message>\n<command-name>/review</command-name>"
                ),
                ContentBlock::text("Review .\n"),
            ])
        );
    }

    #[test]
    fn parses_command_names_only() {
        assert_eq!(
            parse_invocation("/review  foo bar "),
            Some(("review", "foo bar"))
        );
        assert_eq!(parse_invocation("  /a:b-c_d"), Some(("a:b-c_d", "")));
        assert_eq!(parse_invocation("/usr/bin/env x"), None);
        assert_eq!(parse_invocation("/"), None);
        assert_eq!(parse_invocation("review"), None);
    }
}
