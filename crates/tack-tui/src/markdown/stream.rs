//! Incremental markdown: finished lines leave for history as soon as they are
//! known to be finished; only what may still change stays live.

use ratatui::style::Style;
use ratatui::text::Line;

use super::render::{Block, BlockKind, render_block, top_level_blocks};
use crate::theme::Theme;

/// A markdown text that arrives in pieces.
///
/// Only complete lines decide anything, one line at a time, so a line whose
/// meaning depends on characters still to come (`2` that becomes `2. item`)
/// never does, and however the text is cut into deltas the result is the same
/// ([`render_markdown`] is this stream fed the whole text). After each line:
/// - every block before the last is finished (a later block has started);
/// - a paragraph's lines are final as they complete (single newlines are line
///   breaks), except a last line with a `|`, which may be the header of a
///   table whose delimiter row comes next;
/// - a list's or a quote's lines but the last are final when rendering them
///   apart gives the rows rendering them together gives (the last line may
///   still gain a continuation);
/// - anything else (a code fence, a table, a heading, HTML) waits until the
///   block ends: it stays live, whole, until then.
///
/// A block cut this way goes on in the next tail with no blank line before it.
/// What a later line does to lines already final is not undone: a setext
/// underline (`===`) under a paragraph makes a line of its own, and emphasis
/// or inline code spanning a line break is shown as typed. Each line re-parses
/// only the unfinished tail, so its cost does not grow with the message.
#[derive(Debug, Clone, Default)]
pub struct MarkdownStream {
    source: String,
    /// Start of the unfinished tail in `source`.
    committed: usize,
    /// Whether anything was committed (the next block gets a blank line).
    any_committed: bool,
    /// The tail goes on with a block of this kind whose first lines are
    /// committed: such a block at the tail's start gets no blank line.
    continues: Option<BlockKind>,
    /// The tail is one open code fence: only a fence line can end it, so the
    /// lines before one are not parsed again (a long code block stays linear).
    fence_open: bool,
    /// Applied over every rendered line (thinking is dimmed).
    patch: Style,
}

/// Renders a whole markdown text at `width` columns: what streaming it gives.
pub fn render_markdown(src: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut stream = MarkdownStream::new();
    let mut lines = stream.push(src, width, theme);
    lines.extend(stream.finish(width, theme));
    lines
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

    /// Adds `delta`; returns the lines it made final (for history).
    pub fn push(&mut self, delta: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let mut from = self.source.len();
        self.source.push_str(delta);
        let mut lines = Vec::new();
        while let Some(i) = self.source[from..].find('\n') {
            from += i + 1;
            self.line_complete(from, width, theme, &mut lines);
        }
        self.styled(lines)
    }

    /// The unfinished tail as it would look now (for the live area), with the
    /// blank line that will separate it from what is committed.
    pub fn live_lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let tail = &self.source[self.committed..];
        let mut lines = Vec::new();
        for (i, block) in top_level_blocks(tail).into_iter().enumerate() {
            if self.separated(i, &block) {
                lines.push(Line::default());
            }
            lines.extend(render_block(&tail[block.range], width, theme));
        }
        self.styled(lines)
    }

    /// The message is complete: returns the lines of everything not yet committed.
    pub fn finish(&mut self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let lines = self.live_lines(width, theme);
        self.any_committed |= !lines.is_empty();
        self.committed = self.source.len();
        self.continues = None;
        lines
    }

    /// `source[..end]` ends with a newline: commits what that line made final.
    fn line_complete(
        &mut self,
        end: usize,
        width: u16,
        theme: &Theme,
        out: &mut Vec<Line<'static>>,
    ) {
        let line_start = self.source[..end - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = &self.source[line_start..end];
        if self.fence_open && !is_fence(line) {
            return;
        }
        self.fence_open = false;
        let tail = &self.source[self.committed..end];
        let blocks = top_level_blocks(tail);
        let Some(last) = blocks.last() else {
            return;
        };
        let (finished, cut) = match final_part(tail, last, width, theme) {
            Some(cut) => (blocks.len(), cut),
            None if blocks.len() > 1 => (blocks.len() - 1, last.range.start),
            None => {
                let opening = tail[last.range.start..].lines().next().unwrap_or_default();
                let opened_here = tail.len() - last.range.start == opening.len() + 1;
                self.fence_open = last.kind == BlockKind::Other
                    && is_fence(opening)
                    && (opened_here || !is_fence(line));
                return;
            }
        };
        for (i, block) in blocks[..finished].iter().enumerate() {
            if self.separated(i, block) {
                out.push(Line::default());
            }
            let range = block.range.start..block.range.end.min(cut);
            out.extend(render_block(&tail[range], width, theme));
            self.any_committed = true;
        }
        let cut_inside = finished == blocks.len() && !ends_with_blank_line(&tail[..cut]);
        self.continues = cut_inside.then_some(last.kind);
        self.committed += cut;
    }

    /// Whether the `i`th block of the tail gets a blank line before it.
    fn separated(&self, i: usize, block: &Block) -> bool {
        let continued = i == 0 && block.range.start == 0 && self.continues == Some(block.kind);
        self.any_committed && !continued
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

/// Where the final part of the tail's last block ends (`tail` ends with a
/// newline), if some of it is final.
fn final_part(tail: &str, last: &Block, width: u16, theme: &Theme) -> Option<usize> {
    let last_line = tail[..tail.len() - 1].rfind('\n').map_or(0, |i| i + 1);
    match last.kind {
        BlockKind::Paragraph if tail[last_line..].contains('|') => {
            (last_line > last.range.start).then_some(last_line)
        }
        BlockKind::Paragraph => Some(tail.len()),
        BlockKind::List | BlockKind::Quote => {
            let head = &tail[last.range.start..last_line];
            if last_line <= last.range.start || ends_with_blank_line(head) {
                return None;
            }
            let mut apart = render_block(head, width, theme);
            apart.extend(render_block(&tail[last_line..], width, theme));
            (apart == render_block(&tail[last.range.start..], width, theme)).then_some(last_line)
        }
        BlockKind::Other => None,
    }
}

/// Whether `line` opens or closes a code fence (at most 3 spaces, then three
/// backticks or tildes).
fn is_fence(line: &str) -> bool {
    let text = line.trim_start_matches(' ');
    line.len() - text.len() <= 3 && (text.starts_with("```") || text.starts_with("~~~"))
}

/// Whether the last line of `text` (which ends with a newline) is blank.
fn ends_with_blank_line(text: &str) -> bool {
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.rsplit('\n').next().is_none_or(|l| l.trim().is_empty())
}
