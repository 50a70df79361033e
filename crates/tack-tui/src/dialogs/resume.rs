//! The `/resume` picker: past sessions of this project, newest first, filtered
//! by typing.

use crossterm::event::KeyEvent;
use ratatui::text::{Line, Span};
use tack_protocol::SessionSummary;

use super::{ListKey, boxed, list_key, one_line, picker_header, row_marker, window};
use crate::theme::Theme;
use crate::when::WallClock;

/// Rows of sessions shown at once.
const VISIBLE: usize = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct ResumePicker {
    sessions: Vec<SessionSummary>,
    /// Times are said from it ("3 minutes ago").
    clock: WallClock,
    filter: String,
    selected: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerOutcome {
    Open,
    Cancelled,
    Picked(String),
}

impl ResumePicker {
    pub fn new(sessions: Vec<SessionSummary>, clock: WallClock) -> ResumePicker {
        ResumePicker {
            sessions,
            clock,
            filter: String::new(),
            selected: 0,
        }
    }

    fn visible(&self) -> Vec<&SessionSummary> {
        let needle = self.filter.to_lowercase();
        self.sessions
            .iter()
            .filter(|s| {
                needle.is_empty()
                    || s.preview().to_lowercase().contains(&needle)
                    || s.session_id.starts_with(&needle)
            })
            .collect()
    }

    pub fn key(&mut self, key: KeyEvent) -> PickerOutcome {
        let count = self.visible().len();
        match list_key(key, &mut self.selected, &mut self.filter, count) {
            ListKey::Cancelled => PickerOutcome::Cancelled,
            ListKey::Chose => match self.visible().get(self.selected) {
                Some(s) => PickerOutcome::Picked(s.session_id.clone()),
                None => PickerOutcome::Open,
            },
            ListKey::Moved | ListKey::Other => PickerOutcome::Open,
        }
    }

    pub fn render(&self, theme: &Theme, width: u16) -> Vec<Line<'static>> {
        let mut lines = picker_header(theme, "Resume a session", &self.filter);
        let visible = self.visible();
        if visible.is_empty() {
            lines.push(Line::styled("No sessions to resume", theme.dim()));
        }
        for i in window(self.selected, visible.len(), VISIBLE) {
            let s = visible[i];
            let (marker, style) = row_marker(theme, i == self.selected);
            let id: String = s.session_id.chars().take(8).collect();
            let when = self.clock.when(s.modified);
            lines.push(Line::from(vec![
                Span::styled(marker, style),
                Span::styled(format!("{when:<15} "), theme.dim()),
                Span::styled(format!("{id} "), theme.dim()),
                Span::styled(one_line(s.preview()), style),
            ]));
        }
        lines.push(Line::default());
        lines.push(Line::styled(
            "↑/↓ select · enter resume · esc cancel",
            theme.dim(),
        ));
        boxed(lines, theme, width)
    }
}
