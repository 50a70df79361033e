//! Skills, as Claude Code reads them: a folder with a `SKILL.md` (YAML
//! frontmatter, then instructions) under `<Claude user dir>/skills/`
//! (`~/.claude/skills`, or `$CLAUDE_CONFIG_DIR/skills`), tack's
//! `<config dir>/skills/`, and a trusted project's `.claude/skills/` (also
//! the `.claude/skills/` of folders between the project root and the cwd,
//! listed as `apps/web:deploy`). Loaded once when a session starts, so every
//! front end sees the same set; a plugin's skills are one more [`SkillSource`].
//!
//! Progressive disclosure: only names and descriptions reach the model (a
//! `<system-reminder>` listing on the first prompt, as Claude Code's
//! `skill_listing` attachment); the `Skill` tool (tack-runtime's
//! `skill_tool.rs`) loads a body on demand ([`Skill::tool_text`]),
//! `${CLAUDE_SKILL_DIR}` replaced by the skill's folder. `/name args` invokes
//! a user-invocable skill like a custom command (tack-runtime's `slash.rs`).

mod load;

use std::path::PathBuf;

use tack_protocol::extensions::SlashCommand;
use tack_protocol::{ContentBlock, Message};
use tack_sys::terminal_text::visible;

use crate::custom_commands::inline_shell::ShellOwner;
use crate::custom_commands::{CommandScope, CustomCommand};

pub use load::{SkillDirs, load_skills};

/// Where a skill was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillSource {
    Project,
    User,
    /// A plugin's (`plugin:skill`).
    Plugin,
}

/// One skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// `deploy`; a nested project folder's: `apps/web:deploy`.
    pub name: String,
    pub source: SkillSource,
    pub description: String,
    pub argument_hint: Option<String>,
    /// Permission rules added while the skill's turn runs (`/name`).
    pub allowed_tools: Vec<String>,
    pub model: Option<String>,
    /// `context: fork`: meant to run in a sub-agent (of type `agent`).
    pub fork: bool,
    pub agent: Option<String>,
    /// `/name` invokes it (`user-invocable`, default true).
    pub user_invocable: bool,
    /// Offered to the model (not `disable-model-invocation`).
    pub model_invocable: bool,
    /// The instructions, as written.
    pub body: String,
    /// The folder holding `SKILL.md` (`${CLAUDE_SKILL_DIR}`).
    pub dir: PathBuf,
}

impl Skill {
    /// Who holds this skill's `` !`command` `` lines, loaded by `invoked_by`.
    pub fn shell_owner(&self, invoked_by: &'static str) -> ShellOwner {
        ShellOwner {
            name: self.name.clone(),
            source: Some(self.scope().setting_source()),
            invoked_by,
        }
    }

    /// Where it comes from, as a command's scope.
    fn scope(&self) -> CommandScope {
        match self.source {
            SkillSource::Project => CommandScope::Project,
            SkillSource::User => CommandScope::User,
            SkillSource::Plugin => CommandScope::Plugin,
        }
    }

    /// How a front end lists `/name`, its text made safe for a terminal (the
    /// model's [`Skills::listing`] keeps the description as written).
    pub fn listed(&self) -> SlashCommand {
        SlashCommand {
            name: visible(&self.name).into_owned(),
            description: visible(&self.description).into_owned(),
            argument_hint: visible(self.argument_hint.as_deref().unwrap_or_default()).into_owned(),
            source: self.scope().listed(),
        }
    }

    /// The body for `args`: `${CLAUDE_SKILL_DIR}` replaced, then the
    /// arguments placed as in a custom command (`$ARGUMENTS`, `$1`..).
    pub fn expand(&self, args: &str) -> String {
        self.as_command().expand(args)
    }

    /// What the `Skill` tool returns: the folder (so the model can read the
    /// files the skill names), then the instructions.
    pub fn tool_text(&self, args: &str) -> String {
        format!(
            "Base directory for this skill: {}\n\n{}",
            self.dir.display(),
            self.expand(args)
        )
    }

    /// The user message of `/name args` (Claude Code's command tags, then the
    /// expanded body, then the message's other blocks).
    pub fn message(&self, args: &str, rest: Vec<ContentBlock>) -> Message {
        self.as_command().message(args, rest)
    }

    fn as_command(&self) -> CustomCommand {
        let dir = self.dir.to_string_lossy();
        CustomCommand {
            name: self.name.clone(),
            scope: self.scope(),
            description: Some(self.description.clone()),
            argument_hint: self.argument_hint.clone(),
            allowed_tools: self.allowed_tools.clone(),
            model: self.model.clone(),
            body: self.body.replace("${CLAUDE_SKILL_DIR}", &dir),
            path: self.dir.join("SKILL.md"),
            // An untrusted project's skills do not load at all.
            runs_shell: true,
        }
    }
}

/// A session's skills, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skills(pub Vec<Skill>);

impl Skills {
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.0.iter().find(|s| s.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Skill> {
        self.0.iter()
    }

    /// Every skill's name (`system/init`'s `skills`).
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|s| s.name.clone()).collect()
    }

    /// The reminder that tells the model which skills the `Skill` tool
    /// loads; `None` when it may invoke none.
    pub fn listing(&self) -> Option<String> {
        let lines: Vec<String> = self
            .0
            .iter()
            .filter(|s| s.model_invocable)
            .map(|s| format!("- {}: {}", s.name, s.description))
            .collect();
        (!lines.is_empty()).then(|| {
            format!(
                "The following skills are available for use with the Skill tool:\n\n{}",
                lines.join("\n")
            )
        })
    }

    /// What `/skills` answers, safe for a terminal: a description's escape
    /// sequences and other controls are shown, not sent.
    pub fn report(&self) -> String {
        if self.0.is_empty() {
            return "No skills found.".to_owned();
        }
        let lines: Vec<String> = self
            .0
            .iter()
            .map(|s| {
                let source = match s.source {
                    SkillSource::Project => "project",
                    SkillSource::User => "user",
                    SkillSource::Plugin => "plugin",
                };
                visible(&format!("/{} ({source}): {}", s.name, s.description)).into_owned()
            })
            .collect();
        format!("Skills:\n{}", lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    pub(crate) fn skill(name: &str, model_invocable: bool) -> Skill {
        Skill {
            name: name.into(),
            source: SkillSource::User,
            description: format!("{name} things"),
            argument_hint: None,
            allowed_tools: vec![],
            model: None,
            fork: false,
            agent: None,
            user_invocable: true,
            model_invocable,
            body: "Run ${CLAUDE_SKILL_DIR}/go.sh $ARGUMENTS\n".into(),
            dir: PathBuf::from("/h/.claude/skills").join(name),
        }
    }

    #[test]
    fn the_listing_leaves_out_skills_the_model_may_not_invoke() {
        let skills = Skills(vec![skill("a", true), skill("b", false)]);
        assert_eq!(
            skills.listing(),
            Some(
                "The following skills are available for use with the Skill tool:\n\n- a: a things"
                    .into()
            )
        );
        assert_eq!(Skills(vec![skill("b", false)]).listing(), None);
        assert_eq!(
            skills.report(),
            "Skills:\n/a (user): a things\n/b (user): b things"
        );
    }

    #[test]
    fn what_a_terminal_shows_of_a_skill_or_command_has_no_escape_sequence() {
        let hostile = "Deploys\x1b]0;pwned\x07 \u{9b}2J\x1b[8m";
        let evil = Skill {
            description: hostile.into(),
            argument_hint: Some("<stage\x1b[2K>".into()),
            ..skill("evil", true)
        };
        let skills = Skills(vec![evil.clone()]);
        assert_eq!(
            skills.report(),
            "Skills:\n/evil (user): Deploys␛]0;pwned␇ <U+009B>2J␛[8m"
        );
        assert_eq!(
            evil.listed(),
            SlashCommand {
                name: "evil".into(),
                description: "Deploys␛]0;pwned␇ <U+009B>2J␛[8m".into(),
                argument_hint: "<stage␛[2K>".into(),
                source: tack_protocol::extensions::CommandSource::User,
            }
        );
        let command = CustomCommand {
            description: None,
            ..evil.as_command()
        };
        assert_eq!(
            command.listed().description,
            "Run /h/.claude/skills/evil/go.sh $ARGUMENTS"
        );
        let command = CustomCommand {
            body: format!("{hostile}\n"),
            ..command
        };
        assert_eq!(
            command.listed().description,
            "Deploys␛]0;pwned␇ <U+009B>2J␛[8m"
        );
        // The model's listing is text, as written.
        assert_eq!(
            skills.listing(),
            Some(format!(
                "The following skills are available for use with the Skill tool:\n\n- evil: {hostile}"
            ))
        );
    }

    #[test]
    fn the_body_gets_its_folder_and_arguments() {
        assert_eq!(
            skill("a", true).tool_text("now"),
            "Base directory for this skill: /h/.claude/skills/a\n\nRun /h/.claude/skills/a/go.sh now\n"
        );
    }
}
