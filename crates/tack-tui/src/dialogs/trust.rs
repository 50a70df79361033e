//! The workspace trust dialog, on the first start in a folder.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use super::{boxed, row_marker};
use crate::theme::Theme;
use crate::wrap::wrap_spans;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustDialog {
    dir: String,
    selected: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustOutcome {
    Open,
    Answered(bool),
}

impl TrustDialog {
    pub fn new(dir: impl Into<String>) -> TrustDialog {
        TrustDialog {
            dir: dir.into(),
            selected: 0,
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> TrustOutcome {
        match key.code {
            KeyCode::Up | KeyCode::Down | KeyCode::Tab | KeyCode::BackTab => {
                self.selected = 1 - self.selected
            }
            KeyCode::Enter => return TrustOutcome::Answered(self.selected == 0),
            KeyCode::Char('1') | KeyCode::Char('y') => return TrustOutcome::Answered(true),
            KeyCode::Char('2') | KeyCode::Char('n') | KeyCode::Esc => {
                return TrustOutcome::Answered(false);
            }
            _ => {}
        }
        TrustOutcome::Open
    }

    pub fn render(&self, theme: &Theme, width: u16) -> Vec<Line<'static>> {
        let inner = width.saturating_sub(4).max(10);
        let mut lines = vec![
            Line::styled(
                "Do you trust the files in this folder?",
                theme.heading().patch(theme.accent()),
            ),
            Line::default(),
            Line::styled(
                self.dir.clone(),
                theme.text().add_modifier(ratatui::style::Modifier::BOLD),
            ),
            Line::default(),
        ];
        lines.extend(wrap_spans(
            &[ratatui::text::Span::styled(
                "tack may read, write and run files in this folder. Files here (settings, hooks, \
                 commands, MCP servers) can make it run code. Only continue with folders you trust.",
                theme.dim(),
            )],
            inner,
            &[],
            &[],
        ));
        lines.push(Line::default());
        for (i, option) in ["Yes, proceed", "No, exit"].iter().enumerate() {
            let (marker, style) = row_marker(theme, i == self.selected);
            lines.push(Line::styled(format!("{marker}{}. {option}", i + 1), style));
        }
        boxed(lines, theme, width)
    }
}
