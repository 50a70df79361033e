//! The slash commands a session understands when they arrive as a user
//! message (what a front end lists: the Agent SDKs' `initialize` answer,
//! stream-json's `slash_commands`).

/// One slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlashCommand {
    /// Without the leading `/`.
    pub name: &'static str,
    pub description: &'static str,
    /// `""` when it takes no arguments.
    pub argument_hint: &'static str,
}

/// The commands the runtime itself handles (see `Command::Submit`).
pub fn slash_commands() -> Vec<SlashCommand> {
    vec![SlashCommand {
        name: "compact",
        description: "Clear conversation history but keep a summary in context. Optional: /compact [instructions for summarization]",
        argument_hint: "<optional custom summarization instructions>",
    }]
}
