//! The `/rewind` picker (Esc twice on an empty prompt): the conversation's
//! prompts, newest last as Claude Code lists them; then what to restore.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use super::{boxed, one_line, row_marker, window};
use crate::cells::sanitize;
use crate::event::{Restore, RewindChoice};
use crate::theme::Theme;

/// Rows of prompts shown at once.
const VISIBLE: usize = 10;
/// Files named in a prompt's row (more are counted).
const FILES_NAMED: usize = 3;
/// Files listed under a code restore.
const FILES_SHOWN: usize = 5;

#[derive(Debug, Clone, PartialEq)]
pub struct RewindPicker {
    points: Vec<RewindChoice>,
    selected: usize,
    /// The prompt picked, and the option selected for it.
    picked: Option<(usize, usize)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewindOutcome {
    Open,
    Cancelled,
    Picked { id: String, restore: Restore },
}

impl RewindPicker {
    /// The newest prompt is selected first.
    pub fn new(points: Vec<RewindChoice>) -> RewindPicker {
        RewindPicker {
            selected: points.len().saturating_sub(1),
            points,
            picked: None,
        }
    }

    /// Whether a prompt is picked and what to restore is being chosen (a
    /// plain list, no longer the prompts).
    pub fn choosing_restore(&self) -> bool {
        self.picked.is_some()
    }

    /// What can be done with prompt `i`: the code options only when a
    /// checkpoint would change files; `None` is "Never mind".
    fn options(&self, i: usize) -> Vec<Option<Restore>> {
        let code = self.points[i]
            .code
            .as_ref()
            .is_some_and(|c| !c.files.is_empty());
        let mut options = Vec::new();
        if code {
            options.push(Some(Restore::CodeAndConversation));
        }
        options.push(Some(Restore::Conversation));
        if code {
            options.push(Some(Restore::Code));
        }
        options.push(None);
        options
    }

    pub fn key(&mut self, key: KeyEvent) -> RewindOutcome {
        if let Some((point, option)) = self.picked {
            let options = self.options(point);
            match key.code {
                KeyCode::Esc => self.picked = None,
                KeyCode::Up => self.picked = Some((point, option.saturating_sub(1))),
                KeyCode::Down => {
                    self.picked = Some((point, (option + 1).min(options.len() - 1)));
                }
                KeyCode::Enter => match options[option] {
                    Some(restore) => {
                        let id = self.points[point].id.clone();
                        return RewindOutcome::Picked { id, restore };
                    }
                    None => self.picked = None,
                },
                _ => {}
            }
            return RewindOutcome::Open;
        }
        match key.code {
            KeyCode::Esc => return RewindOutcome::Cancelled,
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.points.len().saturating_sub(1));
            }
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = self.points.len().saturating_sub(1),
            KeyCode::Enter if self.selected < self.points.len() => {
                self.picked = Some((self.selected, 0));
            }
            _ => {}
        }
        RewindOutcome::Open
    }

    pub fn render(&self, theme: &Theme, width: u16) -> Vec<Line<'static>> {
        let title = theme.heading().patch(theme.accent());
        let mut lines = vec![Line::styled("Rewind", title)];
        match self.picked {
            Some((point, option)) => self.render_options(&mut lines, theme, point, option),
            None => self.render_list(&mut lines, theme),
        }
        boxed(lines, theme, width)
    }

    fn render_list(&self, lines: &mut Vec<Line<'static>>, theme: &Theme) {
        lines.push(Line::styled(
            "Restore the code and/or conversation to the point before…",
            theme.dim(),
        ));
        lines.push(Line::default());
        if self.points.is_empty() {
            lines.push(Line::styled("No prompts to rewind to", theme.dim()));
        }
        for i in window(self.selected, self.points.len(), VISIBLE) {
            let point = &self.points[i];
            let (marker, style) = row_marker(theme, i == self.selected);
            let first = point.text.lines().find(|l| !l.trim().is_empty());
            lines.push(Line::from(vec![
                Span::styled(marker, style),
                Span::styled(one_line(first.unwrap_or("")), style),
                Span::styled(format!("  · {}", changed(&point.files)), theme.dim()),
            ]));
        }
        lines.push(Line::default());
        lines.push(Line::styled(
            "↑/↓ select · enter choose · esc cancel",
            theme.dim(),
        ));
    }

    fn render_options(
        &self,
        lines: &mut Vec<Line<'static>>,
        theme: &Theme,
        point: usize,
        option: usize,
    ) {
        let chosen = &self.points[point];
        lines.push(Line::from(vec![
            Span::styled("Before: ", theme.dim()),
            Span::raw(one_line(&chosen.text)),
        ]));
        match chosen.code.as_ref().filter(|c| !c.files.is_empty()) {
            Some(code) => {
                let head = format!("The code will be restored: {}", summary(code));
                lines.push(Line::styled(head, theme.dim()));
                for file in code.files.iter().take(FILES_SHOWN) {
                    lines.push(Line::styled(format!("  {}", sanitize(file)), theme.dim()));
                }
                if code.files.len() > FILES_SHOWN {
                    let more = format!("  … and {} more", code.files.len() - FILES_SHOWN);
                    lines.push(Line::styled(more, theme.dim()));
                }
            }
            None if chosen.code.is_some() => {
                lines.push(Line::styled("The code has not changed since.", theme.dim()));
            }
            None => {
                let text =
                    "No code checkpoint for this prompt: only the conversation can be restored.";
                lines.push(Line::styled(text, theme.dim()));
            }
        }
        lines.push(Line::default());
        for (i, restore) in self.options(point).into_iter().enumerate() {
            let label = match restore {
                Some(Restore::CodeAndConversation) => "Restore code and conversation",
                Some(Restore::Conversation) => "Restore conversation",
                Some(Restore::Code) => "Restore code",
                None => "Never mind",
            };
            let (marker, style) = row_marker(theme, i == option);
            lines.push(Line::styled(format!("{marker}{}. {label}", i + 1), style));
        }
        lines.push(Line::default());
        lines.push(Line::styled(
            "↑/↓ select · enter confirm · esc back",
            theme.dim(),
        ));
    }
}

/// What a prompt's turn changed: its files by name, up to
/// [`FILES_NAMED`] of them, else how many.
fn changed(files: &[String]) -> String {
    match files.len() {
        0 => "no code changes".to_owned(),
        n if n <= FILES_NAMED => files
            .iter()
            .map(|f| sanitize(f))
            .collect::<Vec<_>>()
            .join(", "),
        n => format!("{n} files changed"),
    }
}

/// `2 files changed (+3 -1)`.
fn summary(code: &crate::event::CodeChanges) -> String {
    let n = code.files.len();
    let files = if n == 1 { "file" } else { "files" };
    format!(
        "{n} {files} changed (+{} -{})",
        code.insertions, code.deletions
    )
}
