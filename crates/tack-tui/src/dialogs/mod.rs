//! Dialogs that take the place of the input: permission, resume picker,
//! rewind picker, auto-mode decisions, trust. The pickers share one list:
//! [`window`] keeps the selected row in view and [`row_marker`] marks it.

mod decisions;
mod model;
mod permission;
mod plugins;
mod resume;
mod rewind;
mod trust;

use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

pub use decisions::{DecisionsOutcome, DecisionsView};
pub use model::{ModelOutcome, ModelPicker};
pub use permission::{DialogOutcome, PermissionDialog};
pub use plugins::{PluginBrowser, PluginOutcome};
pub use resume::{PickerOutcome, ResumePicker};
pub use rewind::{RewindOutcome, RewindPicker};
pub use trust::{TrustDialog, TrustOutcome};

use crate::theme::Theme;
use crate::wrap::line_width;

/// `lines` inside a rounded box `width` columns wide; lines too long are cut.
pub(crate) fn boxed(lines: Vec<Line<'static>>, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(4));
    let inner = width - 4;
    let border = theme.border();
    let mut out = vec![Line::styled(format!("╭{}╮", "─".repeat(width - 2)), border)];
    for line in lines {
        let line = cut(line, inner);
        let pad = inner.saturating_sub(line_width(&line));
        let mut spans = vec![Span::styled("│ ", border)];
        spans.extend(line.spans);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(" │", border));
        out.push(Line::from(spans));
    }
    out.push(Line::styled(format!("╰{}╯", "─".repeat(width - 2)), border));
    out
}

/// The rows of a list of `len` that show, at most `rows` of them, with
/// `selected` the last one when it is further down.
pub(crate) fn window(selected: usize, len: usize, rows: usize) -> Range<usize> {
    let start = selected.saturating_sub(rows.saturating_sub(1));
    start..len.min(start + rows)
}

/// How a list row starts, and its style: `❯ ` and the selection's colour
/// for the selected row.
pub(crate) fn row_marker(theme: &Theme, selected: bool) -> (&'static str, Style) {
    if selected {
        ("❯ ", theme.selected())
    } else {
        ("  ", theme.text())
    }
}

/// What a key did to a filtered list ([`list_key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKey {
    /// Moved, or typed into the filter: the list stays open.
    Moved,
    Cancelled,
    /// Enter on the selected row.
    Chose,
    /// A key the list does not use.
    Other,
}

/// The keys every filtered picker shares: ↑/↓ move `selected` within
/// `count` rows, typing and Backspace edit `filter` (back to the first row),
/// Enter chooses, Esc cancels.
pub(crate) fn list_key(
    key: crossterm::event::KeyEvent,
    selected: &mut usize,
    filter: &mut String,
    count: usize,
) -> ListKey {
    use crossterm::event::{KeyCode, KeyModifiers};
    match key.code {
        KeyCode::Esc => return ListKey::Cancelled,
        KeyCode::Enter => return ListKey::Chose,
        KeyCode::Up => *selected = selected.saturating_sub(1),
        KeyCode::Down => *selected = (*selected + 1).min(count.saturating_sub(1)),
        KeyCode::Home => *selected = 0,
        KeyCode::End => *selected = count.saturating_sub(1),
        KeyCode::Backspace => {
            filter.pop();
            *selected = 0;
        }
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            filter.push(c);
            *selected = 0;
        }
        _ => return ListKey::Other,
    }
    ListKey::Moved
}

/// A filtered picker's first lines: its title, the filter typed (or how to
/// type one), a blank line.
pub(crate) fn picker_header(theme: &Theme, title: &str, filter: &str) -> Vec<Line<'static>> {
    let filter = match filter.is_empty() {
        true => "type to filter".to_string(),
        false => filter.to_owned(),
    };
    vec![
        Line::styled(title.to_owned(), theme.heading().patch(theme.accent())),
        Line::from(vec![
            Span::styled("Search: ", theme.dim()),
            Span::raw(filter),
        ]),
        Line::default(),
    ]
}

/// Text from outside (a prompt, a command) on one line, made safe for the
/// terminal.
pub(crate) fn one_line(text: &str) -> String {
    crate::cells::sanitize(text).replace('\n', " ")
}

/// `line` cut to `width` columns.
pub(crate) fn cut(line: Line<'static>, width: usize) -> Line<'static> {
    if line_width(&line) <= width {
        return line;
    }
    let mut used = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        let mut text = String::new();
        for ch in span.content.chars() {
            let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
            if used + w > width.saturating_sub(1) {
                break;
            }
            used += w;
            text.push(ch);
        }
        let full = text.len() == span.content.len();
        spans.push(Span::styled(text, span.style));
        if !full {
            spans.push(Span::raw("…"));
            break;
        }
    }
    Line::from(spans)
}
