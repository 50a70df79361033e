//! Incremental markdown: finished blocks leave for history as soon as they are
//! known to be finished; only the block being written stays live.

use ratatui::style::Style;
use ratatui::text::Line;

use super::render::{render_block, top_level_blocks};
use crate::theme::Theme;

/// A markdown text that arrives in pieces.
///
/// A block is finished when a later block has started on a complete line: only
/// text up to the last newline is looked at, so a line whose meaning depends on
/// characters still to come (`2` that becomes `2. item` and joins the list above)
/// never decides anything. Each delta re-parses only the unfinished tail, so the
/// cost of a delta does not grow with the length of the message.
#[derive(Debug, Clone, Default)]
pub struct MarkdownStream {
    source: String,
    /// Start of the unfinished tail in `source`.
    committed: usize,
    /// Whether a block was already committed (the next one gets a blank line).
    any_committed: bool,
    /// Applied over every rendered line (thinking is dimmed).
    patch: Style,
}

impl MarkdownStream {
    pub fn new() -> MarkdownStream {
        MarkdownStream::default()
    }

    /// A stream whose lines all get `patch` applied (e.g. dim italic for thinking).
    pub fn with_style(patch: Style) -> MarkdownStream {
        MarkdownStream {
            patch,
            ..MarkdownStream::default()
        }
    }

    /// The whole text so far.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// Adds `delta`; returns the lines of blocks it finished (for history).
    pub fn push(&mut self, delta: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        self.source.push_str(delta);
        let tail = &self.source[self.committed..];
        let Some(last_newline) = tail.rfind('\n') else {
            return Vec::new();
        };
        let blocks = top_level_blocks(&tail[..=last_newline]);
        if blocks.len() < 2 {
            return Vec::new();
        }
        let mut lines = Vec::new();
        for block in &blocks[..blocks.len() - 1] {
            if self.any_committed {
                lines.push(Line::default());
            }
            lines.extend(render_block(&tail[block.clone()], width, theme));
            self.any_committed = true;
        }
        self.committed += blocks[blocks.len() - 1].start;
        self.styled(lines)
    }

    /// The unfinished tail as it would look now (for the live area), with the
    /// blank line that will separate it from the blocks already committed.
    pub fn live_lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let tail = &self.source[self.committed..];
        let mut lines = Vec::new();
        for (i, block) in top_level_blocks(tail).into_iter().enumerate() {
            if i > 0 || self.any_committed {
                lines.push(Line::default());
            }
            lines.extend(render_block(&tail[block], width, theme));
        }
        self.styled(lines)
    }

    /// The message is complete: returns the lines of everything not yet committed.
    pub fn finish(&mut self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let tail = &self.source[self.committed..];
        let mut lines = Vec::new();
        for block in top_level_blocks(tail) {
            if self.any_committed {
                lines.push(Line::default());
            }
            lines.extend(render_block(&tail[block], width, theme));
            self.any_committed = true;
        }
        self.committed = self.source.len();
        self.styled(lines)
    }

    fn styled(&self, lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
        if self.patch == Style::new() {
            return lines;
        }
        lines
            .into_iter()
            .map(|l| {
                let spans = l
                    .spans
                    .into_iter()
                    .map(|s| {
                        let style = s.style.patch(self.patch);
                        s.style(style)
                    })
                    .collect::<Vec<_>>();
                Line::from(spans)
            })
            .collect()
    }
}
