//! Markdown for the terminal: rendering, streaming, code highlighting.

mod highlight;
mod render;
mod stream;

pub use highlight::{highlight_code, highlighted_languages, preload_highlighter};
pub use stream::{MarkdownStream, render_markdown};
