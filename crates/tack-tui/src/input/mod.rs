//! The prompt input: editor, history, pastes, mentions, modes.

pub mod editor;
pub mod external_editor;
pub mod history;
pub mod mention;
pub mod paste;
pub mod vim;

pub use editor::Editor;
pub use history::PromptHistory;
pub use mention::{FileIndex, mention_at};
pub use paste::Pastes;
pub use vim::{Vim, VimKey, VimMode, insert_remaps};

/// What a submitted input means, from its first character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputMode {
    /// A prompt for the model.
    Prompt,
    /// `!command`: run in the shell, output into the conversation.
    Shell,
    /// `#note`: a line for the memory file.
    Memory,
}

impl InputMode {
    /// The mode of `text` and the text without its prefix.
    pub fn of(text: &str) -> (InputMode, &str) {
        if let Some(rest) = text.strip_prefix('!') {
            (InputMode::Shell, rest.trim_start())
        } else if let Some(rest) = text.strip_prefix('#') {
            (InputMode::Memory, rest.trim_start())
        } else {
            (InputMode::Prompt, text)
        }
    }
}
