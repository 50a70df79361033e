//! The live area: streaming output, spinner, todos, queue, input or dialog,
//! completion popup, footer and status line.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::keys::Popup;
use super::{App, Overlay};
use crate::cells::render_todos;
use crate::dialogs::cut;
use crate::input::InputMode;
use crate::status::{mode_indicator, tokens};

const SPINNER: &[&str] = &["·", "✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳", "✢"];

impl App {
    /// The live area, `width` columns wide and at most `max_height` rows (the
    /// bottom rows are kept when it is taller). Costs the size of the live
    /// area, never of the history.
    pub fn render_live(&self, width: u16, max_height: u16) -> Buffer {
        let width = width.max(1);
        let lines = match &self.overlay {
            Some(Overlay::Transcript { scroll }) => {
                self.transcript_lines(width, max_height, *scroll)
            }
            _ => self.live_lines(width, max_height),
        };
        let rows = lines.len().min(usize::from(max_height.max(1)));
        let skip = lines.len() - rows;
        let mut buf = Buffer::empty(Rect::new(0, 0, width, rows as u16));
        for (y, line) in lines.iter().skip(skip).enumerate() {
            buf.set_line(0, y as u16, line, width);
        }
        buf
    }

    fn live_lines(&self, width: u16, max_height: u16) -> Vec<Line<'static>> {
        let theme = &self.theme;
        let mut lines = self.live.render(width, theme, self.history_started);
        if let Some(turn) = &self.turn {
            if !lines.is_empty() || self.history_started {
                lines.push(Line::default());
            }
            let elapsed = turn.elapsed(self.now.unwrap_or(turn.started));
            let frame = SPINNER
                [(elapsed.as_millis() / super::SPINNER_TICK.as_millis()) as usize % SPINNER.len()];
            let verb = if turn.thinking { "Thinking" } else { "Working" };
            let mut detail = format!("{}s", elapsed.as_secs());
            if turn.shown_streamed > 0 {
                detail.push_str(&format!(
                    " · ↓ {} tokens",
                    tokens(turn.shown_streamed as u64 / 4)
                ));
            }
            detail.push_str(" · esc to interrupt");
            lines.push(Line::from(vec![
                Span::styled(format!("{frame} "), theme.accent()),
                Span::styled(format!("{verb}… "), theme.accent()),
                Span::styled(format!("({detail})"), theme.dim()),
            ]));
        }
        if !self.todos.is_empty() && self.show_todos && self.turn.is_some() {
            for (i, todo) in render_todos(&self.todos, theme).into_iter().enumerate() {
                let lead = if i == 0 { "  ⎿  " } else { "     " };
                let mut spans = vec![Span::styled(lead, theme.dim())];
                spans.extend(todo.spans);
                lines.push(Line::from(spans));
            }
        }
        for (_, display) in &self.queue {
            let first = display.lines().next().unwrap_or("");
            lines.push(cut(
                Line::styled(format!("  ⎿ queued: {first}"), theme.dim()),
                usize::from(width),
            ));
        }
        if !lines.is_empty() || self.history_started {
            lines.push(Line::default());
        }
        match &self.overlay {
            Some(Overlay::Permission(dialog)) => {
                let room = max_height.saturating_sub(3).max(8);
                lines.extend(dialog.render(theme, width, room));
            }
            Some(Overlay::Resume(picker)) => lines.extend(picker.render(theme, width)),
            Some(Overlay::Rewind(picker)) => lines.extend(picker.render(theme, width)),
            Some(Overlay::Model(picker)) => lines.extend(picker.render(theme, width)),
            Some(Overlay::Plugins(browser)) => lines.extend(browser.render(theme, width)),
            Some(Overlay::Trust(dialog)) => lines.extend(dialog.render(theme, width)),
            Some(Overlay::Decisions(view)) => lines.extend(view.render(theme, width)),
            Some(Overlay::Transcript { .. }) | None => lines.extend(self.input_box(width)),
        }
        lines.extend(self.below_input(width));
        lines
    }

    fn input_box(&self, width: u16) -> Vec<Line<'static>> {
        let theme = &self.theme;
        let inner = width.saturating_sub(4).max(1);
        let (mode, _) = InputMode::of(self.editor.text());
        let (border, marker) = match mode {
            InputMode::Prompt => (theme.border(), theme.text()),
            InputMode::Shell => (theme.mode(), theme.mode()),
            InputMode::Memory => (theme.accent(), theme.accent()),
        };
        let mut rows: Vec<Line<'static>> = Vec::new();
        if let Some(search) = &self.search {
            let found = search
                .found
                .and_then(|i| self.history.entries().get(i))
                .map(|s| s.replace('\n', " ⏎ "))
                .unwrap_or_default();
            rows.push(Line::from(vec![
                Span::styled(
                    format!("(reverse-i-search)`{}': ", search.query),
                    theme.dim(),
                ),
                Span::raw(found),
            ]));
        } else if self.editor.is_empty() {
            rows.push(Line::from(vec![
                Span::styled("> ", marker),
                Span::styled("T", theme.dim().add_modifier(Modifier::REVERSED)),
                Span::styled(
                    "ry \"explain this codebase\" · / for commands · @ for files",
                    theme.dim(),
                ),
            ]));
        } else {
            let text_rows = self.editor.render_selected(
                inner.saturating_sub(2),
                theme.text(),
                self.overlay.is_none(),
                self.vim_selection(),
            );
            for (i, row) in text_rows.into_iter().enumerate() {
                let lead = if i == 0 {
                    Span::styled("> ", marker)
                } else {
                    Span::raw("  ")
                };
                let mut spans = vec![lead];
                spans.extend(row.spans);
                rows.push(Line::from(spans));
            }
        }
        let w = usize::from(width.max(4));
        let mut out = vec![Line::styled(format!("╭{}╮", "─".repeat(w - 2)), border)];
        for row in rows {
            let row = cut(row, w - 4);
            let pad = (w - 4).saturating_sub(row.spans.iter().map(|s| s.content.width()).sum());
            let mut spans = vec![Span::styled("│ ", border)];
            spans.extend(row.spans);
            spans.push(Span::raw(" ".repeat(pad)));
            spans.push(Span::styled(" │", border));
            out.push(Line::from(spans));
        }
        out.push(Line::styled(format!("╰{}╯", "─".repeat(w - 2)), border));
        out
    }

    fn below_input(&self, width: u16) -> Vec<Line<'static>> {
        let theme = &self.theme;
        let w = usize::from(width);
        let mut lines = Vec::new();
        match self.popup() {
            Some(Popup::Commands(entries)) => {
                let name_width = entries
                    .iter()
                    .map(|e| e.name.width() + 1)
                    .max()
                    .unwrap_or(0)
                    + 2;
                let start = self
                    .popup_selected
                    .saturating_sub(super::keys::POPUP_ROWS - 1);
                for (i, e) in entries
                    .iter()
                    .enumerate()
                    .skip(start)
                    .take(super::keys::POPUP_ROWS)
                {
                    let (style, marker) = if i == self.popup_selected {
                        (theme.selected(), "❯ ")
                    } else {
                        (theme.text(), "  ")
                    };
                    let name = format!("{marker}/{:<name_width$}", e.name);
                    let mut description = e.description.clone();
                    if let Some(hint) = &e.argument_hint {
                        description = format!("{hint} · {description}");
                    }
                    lines.push(cut(
                        Line::from(vec![
                            Span::styled(name, style),
                            Span::styled(description, theme.dim()),
                        ]),
                        w,
                    ));
                }
                return lines;
            }
            Some(Popup::Files { paths, .. }) => {
                for (i, p) in paths.iter().enumerate() {
                    let (style, marker) = if i == self.popup_selected {
                        (theme.selected(), "❯ ")
                    } else {
                        (theme.text(), "  ")
                    };
                    lines.push(cut(Line::styled(format!("{marker}@{p}"), style), w));
                }
                return lines;
            }
            None => {}
        }
        if self.show_help {
            for row in self.help_rows() {
                lines.push(cut(Line::styled(format!("  {row}"), theme.dim()), w));
            }
        }
        let (mode, _) = InputMode::of(self.editor.text());
        let vim = self.vim_indicator().filter(|_| self.hint.is_none());
        let mut footer = if let Some((hint, _)) = &self.hint {
            Line::styled(format!("  {hint}"), theme.dim())
        } else if mode == InputMode::Shell {
            Line::styled(
                "  ! shell mode: the output goes into the conversation",
                theme.mode(),
            )
        } else if mode == InputMode::Memory {
            Line::styled(
                "  # memory mode: the line is added to CLAUDE.md",
                theme.accent(),
            )
        } else if let Some(indicator) = mode_indicator(self.status.permission_mode) {
            Line::styled(format!("  {indicator}"), theme.mode())
        } else if self.status.custom_line.is_none() && vim.is_none() {
            Line::styled("  ? for shortcuts", theme.dim())
        } else {
            // Hidden while a statusLine command is set, and beside vim's
            // indicator, as in Claude Code.
            Line::default()
        };
        if let Some(indicator) = vim {
            // Before the rest of the row: `-- INSERT -- ⏵⏵ accept edits on`.
            let rest = std::mem::take(&mut footer.spans);
            footer
                .spans
                .push(Span::styled(format!("  {indicator}"), theme.dim()));
            for (i, mut span) in rest.into_iter().enumerate() {
                if i == 0 {
                    span.content = format!(" {}", span.content.trim_start()).into();
                }
                footer.spans.push(span);
            }
        }
        if !footer.spans.is_empty() {
            lines.push(cut(footer, w));
        }
        for row in self.status.render(theme) {
            let mut status = vec![Span::raw("  ")];
            status.extend(row.spans);
            lines.push(cut(Line::from(status), w));
        }
        lines
    }

    /// The transcript view: every cell expanded, bottom-anchored. Only the cells
    /// that can be seen are rendered.
    fn transcript_lines(&self, width: u16, max_height: u16, scroll: usize) -> Vec<Line<'static>> {
        let theme = &self.theme;
        let want = usize::from(max_height.saturating_sub(1)).max(1) + scroll;
        let mut collected: Vec<Vec<Line<'static>>> = Vec::new();
        let mut count = 0;
        let live = self.live.render(width, theme, false);
        if !live.is_empty() {
            count += live.len() + 1;
            collected.push(live);
        }
        for cell in self.cells.iter().rev() {
            if count >= want {
                break;
            }
            let lines = cell.render(theme, width, true);
            count += lines.len() + 1;
            collected.push(lines);
        }
        let mut all: Vec<Line<'static>> = Vec::new();
        for lines in collected.into_iter().rev() {
            if !all.is_empty() {
                all.push(Line::default());
            }
            all.extend(lines);
        }
        let end = all.len().saturating_sub(scroll);
        let start = end.saturating_sub(usize::from(max_height.saturating_sub(1)).max(1));
        // The view fills the screen, content at the bottom.
        let rows = end - start;
        let mut out: Vec<Line<'static>> =
            vec![Line::default(); usize::from(max_height.saturating_sub(1)).saturating_sub(rows)];
        out.extend(all[start..end].iter().cloned());
        out.push(Line::styled(
            "  Transcript · ↑/↓ PgUp/PgDn scroll · esc or ctrl+o to close",
            theme.dim(),
        ));
        out
    }
}
