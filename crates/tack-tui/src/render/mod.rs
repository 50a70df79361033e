//! Writing to the terminal.

mod ansi;
mod inline;

pub use inline::InlineTerminal;
