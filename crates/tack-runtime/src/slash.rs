//! The slash commands a session understands when they arrive as a user
//! message, whichever front end sent it (`-p`, an SDK's user message, the
//! terminal UI's prompt): the built-ins `/compact`, `/clear` (with its
//! aliases `/reset` and `/new`) and `/skills`, the session's custom commands
//! (tack-extensions' `custom_commands`) and its user-invocable skills
//! (tack-extensions' `skills`).
//! Also what a front end lists (the
//! Agent SDKs' `initialize` answer, stream-json's `slash_commands`, the
//! terminal UI's menu).

use std::path::Path;

use tack_extensions::custom_commands::inline_shell::{InlineShell, ShellOwner};
use tack_extensions::custom_commands::{
    CustomCommand, CustomCommands, parse_invocation, plain_name_of,
};
use tack_extensions::skills::{Skill, SkillSource, Skills};
use tack_protocol::ContentBlock;
use tack_protocol::extensions::{CommandSource, SlashCommand};

use crate::init_prompt::INIT_PROMPT;
use crate::protocol::op::{TurnOptions, UserInput};

const COMPACT: &str = "compact";
/// `/clear` and Claude Code's aliases for it.
const CLEAR: [&str; 3] = ["clear", "reset", "new"];
/// Has the model write a first CLAUDE.md ([`INIT_PROMPT`]).
const INIT: &str = "init";

fn builtin(name: &str) -> bool {
    name == COMPACT || name == INIT || CLEAR.contains(&name)
}

/// Lists the session's skills (answered without a model call).
const SKILLS: &str = "skills";

/// The built-ins, then the session's custom commands, then its
/// user-invocable skills (a built-in hides a command of its name, a command a
/// skill of its name).
pub fn slash_commands(custom: &CustomCommands, skills: &Skills) -> Vec<SlashCommand> {
    let builtins = [
        SlashCommand {
            name: CLEAR[0].to_owned(),
            description: "Clear conversation history and free up context".to_owned(),
            argument_hint: String::new(),
            source: CommandSource::Builtin,
        },
        SlashCommand {
            name: COMPACT.to_owned(),
            description: "Clear conversation history but keep a summary in context. Optional: /compact [instructions for summarization]".to_owned(),
            argument_hint: "<optional custom summarization instructions>".to_owned(),
            source: CommandSource::Builtin,
        },
        SlashCommand {
            name: INIT.to_owned(),
            description: "Initialize a new CLAUDE.md file with codebase documentation".to_owned(),
            argument_hint: String::new(),
            source: CommandSource::Builtin,
        },
    ];
    builtins
        .into_iter()
        .chain(
            custom
                .iter()
                .filter(|c| !builtin(&c.name))
                .map(CustomCommand::listed),
        )
        .chain(
            skills
                .iter()
                .filter(|s| s.user_invocable && !builtin(&s.name) && custom.get(&s.name).is_none())
                .map(Skill::listed),
        )
        .collect()
}

/// What a user message is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Dispatch {
    /// A prompt for the model, as it came.
    Prompt(UserInput),
    /// `/compact [instructions]`.
    Compact(Option<String>),
    /// `/clear`: a new conversation; the message's uuid.
    Clear(Option<String>),
    /// A custom command or a skill, expanded, with its settings for the turn.
    Custom(UserInput, TurnOptions),
    /// `/skills`: the list, answered without a model call.
    Skills { uuid: Option<String> },
    /// A skill with `context: fork`: it runs in a sub-agent as when the
    /// model invokes it (the user's message as it came, the skill, its args).
    ForkedSkill {
        input: UserInput,
        name: String,
        args: String,
    },
    /// `/name` that names no command: answered without a model call. Claude
    /// Code does the same ("Unknown skill"), rather than spending a request on
    /// a typo; a path such as `/tmp` that exists is a prompt.
    Unknown { name: String, uuid: Option<String> },
    /// `/loop [interval] <prompt>` (the session's schedule runs it).
    Loop { input: UserInput, args: String },
}

/// What a `/name` runs.
enum Invocable<'a> {
    Command(&'a CustomCommand),
    Skill(&'a Skill),
}

/// The command or user-invocable skill `/name` runs: the one of that exact
/// name (a command before a skill); else, as Claude Code allows, a plugin's
/// `plugin:name` when it is the only plugin command or skill with that plain
/// name.
fn invocable<'a>(
    name: &'a str,
    custom: &'a CustomCommands,
    skills: &'a Skills,
) -> Option<Invocable<'a>> {
    if let Some(command) = custom.get(name) {
        return Some(Invocable::Command(command));
    }
    let invocable_skill = |s: &&Skill| s.user_invocable;
    if let Some(skill) = skills.get(name).filter(invocable_skill) {
        return Some(Invocable::Skill(skill));
    }
    let plugin_skills = skills
        .iter()
        .filter(|s| s.source == SkillSource::Plugin && plain_name_of(&s.name, name))
        .filter(invocable_skill)
        .map(Invocable::Skill);
    let mut found = custom
        .plugin_named(name)
        .map(Invocable::Command)
        .chain(plugin_skills);
    match (found.next(), found.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// Reads the command, if any, at the start of the message's first block.
pub(crate) fn dispatch(input: UserInput, custom: &CustomCommands, skills: &Skills) -> Dispatch {
    if input.verbatim {
        return Dispatch::Prompt(input);
    }
    let Some(ContentBlock::Text { text, .. }) = input.message.content.first() else {
        return Dispatch::Prompt(input);
    };
    let Some((name, args)) = parse_invocation(text) else {
        return Dispatch::Prompt(input);
    };
    if name == COMPACT {
        return Dispatch::Compact((!args.is_empty()).then(|| args.to_owned()));
    }
    if CLEAR.contains(&name) {
        return Dispatch::Clear(input.uuid);
    }
    if name == crate::schedule::slash_loop::LOOP {
        let args = args.to_owned();
        return Dispatch::Loop { input, args };
    }
    if name == INIT {
        let mut message = input.message.clone();
        message.content[0] = ContentBlock::text(INIT_PROMPT);
        return Dispatch::Prompt(UserInput { message, ..input });
    }
    let rest = input.message.content[1..].to_vec();
    let (message, options) = if let Some(found) = invocable(name, custom, skills) {
        match found {
            Invocable::Command(command) => {
                let options = TurnOptions {
                    allowed_tools: command.allowed_tools.clone(),
                    model: command.model.clone(),
                    inline_shell: InlineShell::of(command),
                    shell_owner: Some(ShellOwner {
                        name: command.name.clone(),
                        source: Some(command.scope.setting_source()),
                        invoked_by: "user",
                    }),
                };
                (command.message(args, rest), options)
            }
            Invocable::Skill(skill) if skill.fork => {
                return Dispatch::ForkedSkill {
                    name: skill.name.clone(),
                    args: args.to_owned(),
                    input,
                };
            }
            Invocable::Skill(skill) => {
                let options = TurnOptions {
                    allowed_tools: skill.allowed_tools.clone(),
                    model: skill.model.clone(),
                    inline_shell: InlineShell::Run,
                    shell_owner: Some(skill.shell_owner("user")),
                };
                (skill.message(args, rest), options)
            }
        }
    } else if name == SKILLS {
        return Dispatch::Skills { uuid: input.uuid };
    } else if Path::new("/").join(name).exists() {
        return Dispatch::Prompt(input);
    } else {
        return Dispatch::Unknown {
            name: name.to_owned(),
            uuid: input.uuid,
        };
    };
    Dispatch::Custom(
        UserInput {
            message,
            uuid: input.uuid,
            origin: input.origin,
            verbatim: false,
        },
        options,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tack_extensions::custom_commands::CommandScope;
    use tack_protocol::Message;

    fn commands() -> CustomCommands {
        CustomCommands(vec![CustomCommand {
            name: "review".into(),
            scope: CommandScope::User,
            description: None,
            argument_hint: Some("<pr>".into()),
            allowed_tools: vec!["Bash(gh pr view:*)".into()],
            model: Some("haiku".into()),
            body: "Review PR $1.\n".into(),
            path: "/h/.claude/commands/review.md".into(),
            runs_shell: true,
        }])
    }

    fn input(blocks: Vec<ContentBlock>) -> UserInput {
        UserInput {
            message: Message::user(blocks),
            uuid: Some("u1".into()),
            origin: None,
            verbatim: false,
        }
    }

    #[test]
    fn a_custom_command_becomes_its_prompt_and_turn_settings() {
        let typed = input(vec![
            ContentBlock::text("/review 42"),
            ContentBlock::text("attached"),
        ]);
        assert_eq!(
            dispatch(typed, &commands(), &Skills::default()),
            Dispatch::Custom(
                input(vec![
                    ContentBlock::text(
                        "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>42</command-args>"
                    ),
                    ContentBlock::text("Review PR 42.\n"),
                    ContentBlock::text("attached"),
                ]),
                TurnOptions {
                    allowed_tools: vec!["Bash(gh pr view:*)".into()],
                    model: Some("haiku".into()),
                    inline_shell: InlineShell::Run,
                    shell_owner: Some(ShellOwner {
                        name: "review".into(),
                        source: Some("userSettings"),
                        invoked_by: "user",
                    }),
                }
            )
        );
    }

    #[test]
    fn init_is_the_runtimes_own_prompt_in_every_front_end() {
        let typed = input(vec![
            ContentBlock::text("/init"),
            ContentBlock::text("more"),
        ]);
        assert_eq!(
            dispatch(typed, &commands(), &Skills::default()),
            Dispatch::Prompt(input(vec![
                ContentBlock::text(INIT_PROMPT),
                ContentBlock::text("more")
            ]))
        );
        let listed = slash_commands(&commands(), &Skills::default());
        assert!(
            listed
                .iter()
                .any(|c| c.name == "init" && c.source == CommandSource::Builtin)
        );
    }

    #[test]
    fn compact_unknown_paths_and_prompts() {
        let custom = commands();
        let text = |t: &str| input(vec![ContentBlock::text(t)]);
        assert_eq!(
            dispatch(
                text(" /compact keep the API notes"),
                &custom,
                &Skills::default()
            ),
            Dispatch::Compact(Some("keep the API notes".into()))
        );
        for clear in ["/clear", "/reset", " /new"] {
            assert_eq!(
                dispatch(text(clear), &custom, &Skills::default()),
                Dispatch::Clear(Some("u1".into()))
            );
        }
        assert_eq!(
            dispatch(text("/compact"), &custom, &Skills::default()),
            Dispatch::Compact(None)
        );
        assert_eq!(
            dispatch(text("/nosuchcommand x"), &custom, &Skills::default()),
            Dispatch::Unknown {
                name: "nosuchcommand".into(),
                uuid: Some("u1".into())
            }
        );
        for prompt in [
            "/tmp is full",
            "/usr/bin/env",
            "hello /review",
            "/compacted",
        ] {
            let expected = if prompt == "/compacted" {
                Dispatch::Unknown {
                    name: "compacted".into(),
                    uuid: Some("u1".into()),
                }
            } else {
                Dispatch::Prompt(text(prompt))
            };
            assert_eq!(
                dispatch(text(prompt), &custom, &Skills::default()),
                expected,
                "{prompt}"
            );
        }
    }

    #[test]
    fn the_list_is_the_builtins_then_the_custom_commands() {
        assert_eq!(
            slash_commands(&commands(), &Skills::default()),
            vec![
                SlashCommand {
                    name: "clear".into(),
                    description: "Clear conversation history and free up context".into(),
                    argument_hint: String::new(),
                    source: CommandSource::Builtin,
                },
                SlashCommand {
                    name: "compact".into(),
                    description: "Clear conversation history but keep a summary in context. Optional: /compact [instructions for summarization]".into(),
                    argument_hint: "<optional custom summarization instructions>".into(),
                    source: CommandSource::Builtin,
                },
                SlashCommand {
                    name: "init".into(),
                    description: "Initialize a new CLAUDE.md file with codebase documentation"
                        .into(),
                    argument_hint: String::new(),
                    source: CommandSource::Builtin,
                },
                SlashCommand {
                    name: "review".into(),
                    description: "Review PR $1.".into(),
                    argument_hint: "<pr>".into(),
                    source: CommandSource::User,
                },
            ]
        );
    }
}
