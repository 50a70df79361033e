//! Markdown (CommonMark + tables, strikethrough, task lists) to styled lines.
//!
//! A document is rendered one top-level block at a time, blocks separated by a
//! blank line; that is what lets [`super::MarkdownStream`] commit finished blocks
//! (and the finished lines of the last one) to history while the rest is still
//! arriving. A single newline in a paragraph is a line break, as in chat UIs:
//! models write lists, poems, addresses and logs that way; only rows too long
//! for the terminal are wrapped.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::highlight::highlight_code;
use crate::theme::Theme;
use crate::wrap::wrap_spans;

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// What kind of top-level block: what [`super::MarkdownStream`] may commit
/// before the block ends depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Paragraph,
    List,
    Quote,
    /// Code, tables, headings, rules, HTML: committed whole.
    Other,
}

/// A top-level block: its byte range in the source, and its kind.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub(crate) range: Range<usize>,
    pub(crate) kind: BlockKind,
}

/// The top-level blocks of `src`, in order. A block starts at the start of its
/// first line (the parser's range of an indented code block starts after the
/// indentation, which is part of its meaning).
pub(crate) fn top_level_blocks(src: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    let line_start = |at: usize| src[..at].rfind('\n').map_or(0, |i| i + 1);
    for (event, mut range) in Parser::new_ext(src, options()).into_offset_iter() {
        range.start = line_start(range.start);
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match tag {
                        Tag::Paragraph => BlockKind::Paragraph,
                        Tag::List(_) => BlockKind::List,
                        Tag::BlockQuote(_) => BlockKind::Quote,
                        _ => BlockKind::Other,
                    };
                    blocks.push(Block { range, kind });
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Rule | Event::Html(_) if depth == 0 => blocks.push(Block {
                range,
                kind: BlockKind::Other,
            }),
            _ => {}
        }
    }
    blocks
}

/// Renders one top-level block (its source text).
pub(crate) fn render_block(src: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut r = BlockRenderer {
        theme,
        width,
        lines: Vec::new(),
        spans: Vec::new(),
        styles: vec![Style::new()],
        containers: Vec::new(),
        code: None,
        links: Vec::new(),
        table: None,
        blank_pending: false,
    };
    for event in Parser::new_ext(src, options()) {
        r.event(event);
    }
    r.flush();
    r.lines
}

#[derive(Debug)]
enum Container {
    Quote,
    /// A list; `next` is the number of the next item of an ordered list.
    List {
        next: Option<u64>,
        depth: usize,
    },
    /// A list item; `marker` is written on its first row, spaces after.
    Item {
        marker: String,
        started: bool,
    },
}

#[derive(Debug, Default)]
struct Table {
    rows: Vec<Vec<Vec<Span<'static>>>>,
    header_rows: usize,
}

struct BlockRenderer<'t> {
    theme: &'t Theme,
    width: u16,
    lines: Vec<Line<'static>>,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    containers: Vec<Container>,
    code: Option<(String, String)>,
    links: Vec<String>,
    table: Option<Table>,
    blank_pending: bool,
}

impl BlockRenderer<'_> {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, patch: Style) {
        let s = self.style().patch(patch);
        self.styles.push(s);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn text(&mut self, text: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
            return;
        }
        let style = self.style();
        self.spans.push(Span::styled(text.to_string(), style));
    }

    /// The prefix of the next row: quote bars and item markers or indentation.
    fn prefix(&mut self, first: bool) -> Vec<Span<'static>> {
        let mut out = Vec::new();
        let dim = self.theme.dim();
        for c in &mut self.containers {
            match c {
                Container::Quote => out.push(Span::styled("│ ", dim)),
                Container::List { .. } => {}
                Container::Item { marker, started } => {
                    if first && !*started {
                        out.push(Span::raw(marker.clone()));
                        *started = true;
                    } else {
                        out.push(Span::raw(" ".repeat(marker.width())));
                    }
                }
            }
        }
        out
    }

    fn blank_line_if_pending(&mut self) {
        if self.blank_pending && !self.lines.is_empty() {
            let bars: Vec<Span<'static>> = self
                .containers
                .iter()
                .filter(|c| matches!(c, Container::Quote))
                .map(|_| Span::styled("│", self.theme.dim()))
                .collect();
            self.lines.push(Line::from(bars));
        }
        self.blank_pending = false;
    }

    /// Writes the pending inline text as wrapped rows.
    fn flush(&mut self) {
        if self.spans.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.spans);
        let first = self.prefix(true);
        let rest = self.prefix(false);
        self.lines
            .extend(wrap_spans(&spans, self.width, &first, &rest));
    }

    fn start_block(&mut self) {
        self.flush();
        self.blank_line_if_pending();
    }

    fn end_block(&mut self) {
        self.flush();
        self.blank_pending = true;
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                let style = self.style().patch(self.theme.inline_code());
                self.spans.push(Span::styled(t.to_string(), style));
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
            Event::Html(t) | Event::InlineHtml(t) => {
                let style = self.style().patch(self.theme.dim());
                let text = t.trim_end_matches('\n');
                if self.code.is_none() {
                    for (i, part) in text.split('\n').enumerate() {
                        if i > 0 {
                            self.flush();
                        }
                        self.spans.push(Span::styled(part.to_string(), style));
                    }
                }
            }
            Event::FootnoteReference(t) => self.text(&format!("[^{t}]")),
            Event::SoftBreak | Event::HardBreak => self.flush(),
            Event::Rule => {
                self.start_block();
                let prefix = self.prefix(true);
                let used: usize = prefix.iter().map(|s| s.content.width()).sum();
                let len = usize::from(self.width).saturating_sub(used).clamp(1, 80);
                let mut spans = prefix;
                spans.push(Span::styled("─".repeat(len), self.theme.dim()));
                self.lines.push(Line::from(spans));
                self.blank_pending = true;
            }
            Event::TaskListMarker(done) => {
                self.text(if done { "[x] " } else { "[ ] " });
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.start_block(),
            Tag::Heading { level, .. } => {
                self.start_block();
                let style = match level {
                    HeadingLevel::H1 => self.theme.heading().add_modifier(Modifier::UNDERLINED),
                    HeadingLevel::H2 => self.theme.heading(),
                    _ => self.theme.heading().add_modifier(Modifier::ITALIC),
                };
                self.push_style(style);
            }
            Tag::BlockQuote(_) => {
                self.start_block();
                self.containers.push(Container::Quote);
                self.push_style(self.theme.quote());
            }
            Tag::CodeBlock(kind) => {
                self.start_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::HtmlBlock => self.start_block(),
            Tag::List(start) => {
                // A list inside an item's text starts on its own row, no blank.
                self.flush();
                if self.blank_pending
                    && !self
                        .containers
                        .iter()
                        .any(|c| matches!(c, Container::Item { .. }))
                {
                    self.blank_line_if_pending();
                }
                self.blank_pending = false;
                let depth = self
                    .containers
                    .iter()
                    .filter(|c| matches!(c, Container::List { .. }))
                    .count();
                self.containers.push(Container::List { next: start, depth });
            }
            Tag::Item => {
                self.flush();
                self.blank_line_if_pending();
                let marker = match self.containers.last_mut() {
                    Some(Container::List { next: Some(n), .. }) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    Some(Container::List { depth, .. }) => match depth {
                        0 => "• ".to_string(),
                        1 => "◦ ".to_string(),
                        _ => "▪ ".to_string(),
                    },
                    _ => "• ".to_string(),
                };
                self.containers.push(Container::Item {
                    marker,
                    started: false,
                });
            }
            Tag::FootnoteDefinition(label) => {
                self.start_block();
                self.text(&format!("[^{label}]: "));
            }
            Tag::Table(_) => {
                self.start_block();
                self.table = Some(Table::default());
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                    t.header_rows = 1;
                }
            }
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.spans.clear(),
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => {
                self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT));
            }
            Tag::Link { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(self.theme.link());
            }
            Tag::Image { .. } => {
                self.links.push(String::new());
                self.text("[image: ");
            }
            Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.start_block(),
            Tag::Superscript | Tag::Subscript => self.push_style(Style::new()),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.end_block(),
            TagEnd::Heading(_) => {
                self.pop_style();
                self.end_block();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.pop_style();
                self.containers.pop();
                self.blank_pending = true;
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    for line in highlight_code(&code, &lang, self.theme) {
                        let mut spans = self.prefix(true);
                        spans.extend(line.spans);
                        self.lines.push(Line::from(spans));
                    }
                }
                self.blank_pending = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.containers.pop();
                self.blank_pending = true;
            }
            TagEnd::Item => {
                self.flush();
                if let Some(Container::Item { started: false, .. }) = self.containers.last() {
                    // An empty item still shows its marker.
                    let prefix = self.prefix(true);
                    self.lines.push(Line::from(prefix));
                }
                self.containers.pop();
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => self.end_block(),
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.render_table(table);
                }
                self.blank_pending = true;
            }
            TagEnd::TableHead | TagEnd::TableRow => {}
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.spans);
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(cell);
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Superscript | TagEnd::Subscript => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(url) = self.links.pop() {
                    let text: String = self
                        .spans
                        .iter()
                        .rev()
                        .take(1)
                        .map(|s| s.content.to_string())
                        .collect();
                    if !url.is_empty() && text != url && !url.starts_with('#') {
                        let style = self.style().patch(self.theme.dim());
                        self.spans.push(Span::styled(format!(" ({url})"), style));
                    }
                }
            }
            TagEnd::Image => {
                self.links.pop();
                self.text("]");
            }
        }
    }

    fn render_table(&mut self, table: Table) {
        let cols = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return;
        }
        let cell_width =
            |c: &Vec<Span<'static>>| c.iter().map(|s| s.content.width()).sum::<usize>();
        let mut widths = vec![1usize; cols];
        for row in &table.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(cell_width(cell));
            }
        }
        let prefix_width: usize = self.prefix(false).iter().map(|s| s.content.width()).sum();
        let budget = usize::from(self.width)
            .saturating_sub(prefix_width + 3 * (cols - 1))
            .max(cols);
        // Shrink the widest column until the table fits.
        while widths.iter().sum::<usize>() > budget {
            let Some((i, _)) = widths.iter().enumerate().max_by_key(|(_, w)| **w) else {
                break;
            };
            if widths[i] <= 1 {
                break;
            }
            widths[i] -= 1;
        }
        let sep = self.theme.dim();
        for (r, row) in table.rows.iter().enumerate() {
            let mut spans = self.prefix(true);
            for (i, width) in widths.iter().enumerate() {
                if i > 0 {
                    spans.push(Span::styled(" │ ", sep));
                }
                let cell = row.get(i).cloned().unwrap_or_default();
                let header = r < table.header_rows;
                spans.extend(fit_cell(cell, *width, header));
            }
            self.lines.push(Line::from(trim_trailing(spans)));
            if r + 1 == table.header_rows {
                let mut rule = self.prefix(true);
                let parts: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                rule.push(Span::styled(parts.join("─┼─"), sep));
                self.lines.push(Line::from(rule));
            }
        }
    }
}

/// A table cell padded or cut (with `…`) to `width` columns.
fn fit_cell(cell: Vec<Span<'static>>, width: usize, header: bool) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for span in cell {
        let style = if header {
            span.style.add_modifier(Modifier::BOLD)
        } else {
            span.style
        };
        let mut text = String::new();
        for ch in span.content.chars() {
            let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
            if used + w > width {
                break;
            }
            text.push(ch);
            used += w;
        }
        let cut = text.len() < span.content.len();
        if !text.is_empty() {
            out.push(Span::styled(text, style));
        }
        if cut {
            if let Some(last) = out.last_mut() {
                let mut s = last.content.to_string();
                if let Some(removed) = s.pop() {
                    used -= unicode_width::UnicodeWidthChar::width(removed).unwrap_or(0);
                }
                s.push('…');
                used += 1;
                last.content = s.into();
            }
            break;
        }
    }
    if used < width {
        out.push(Span::raw(" ".repeat(width - used)));
    }
    out
}

fn trim_trailing(mut spans: Vec<Span<'static>>) -> Vec<Span<'static>> {
    while let Some(last) = spans.last_mut() {
        let trimmed = last.content.trim_end().to_string();
        if trimmed.is_empty() {
            spans.pop();
        } else {
            last.content = trimmed.into();
            break;
        }
    }
    spans
}
