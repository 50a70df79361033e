//! The `/model` picker: the models a session can switch to, each with its
//! alias, description and price per million tokens; the one in use marked.
//! Enter switches to the selected alias, Esc leaves.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use super::{boxed, one_line, row_marker};
use crate::event::ModelOption;
use crate::theme::Theme;

#[derive(Debug, Clone, PartialEq)]
pub struct ModelPicker {
    options: Vec<ModelOption>,
    /// The row of the model in use, if one names it.
    current: Option<usize>,
    selected: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelOutcome {
    Open,
    Cancelled,
    /// The alias picked.
    Picked(String),
}

impl ModelPicker {
    /// `current` is the session's model (an id or an alias): the first row
    /// whose alias or model it is gets the mark, and the selection starts there.
    pub fn new(options: Vec<ModelOption>, current: &str) -> ModelPicker {
        let current = options
            .iter()
            .position(|o| o.alias == current || o.model == current);
        ModelPicker {
            options,
            current,
            selected: current.unwrap_or(0),
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> ModelOutcome {
        let last = self.options.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc => return ModelOutcome::Cancelled,
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                if let Some(o) = self.options.get(self.selected) {
                    return ModelOutcome::Picked(o.alias.clone());
                }
            }
            _ => {}
        }
        ModelOutcome::Open
    }

    pub fn render(&self, theme: &Theme, width: u16) -> Vec<Line<'static>> {
        let mut lines = vec![
            Line::styled("Select model", theme.heading().patch(theme.accent())),
            Line::styled(
                "Switches from the next turn on; /model <name> takes any model id.",
                theme.dim(),
            ),
            Line::default(),
        ];
        let alias_width = self
            .options
            .iter()
            .map(|o| o.alias.len())
            .max()
            .unwrap_or(0);
        for (i, o) in self.options.iter().enumerate() {
            let (marker, style) = row_marker(theme, i == self.selected);
            let mark = if Some(i) == self.current { " ✔" } else { "" };
            lines.push(Line::from(vec![
                Span::styled(marker, style),
                Span::styled(format!("{:alias_width$}  ", one_line(&o.alias)), style),
                Span::styled(one_line(&o.description), style),
                Span::styled(mark, theme.accent()),
            ]));
            lines.push(Line::styled(
                format!(
                    "  {:alias_width$}  {} · ${}/${} per Mtok in/out",
                    "",
                    one_line(&o.model),
                    o.input_usd,
                    o.output_usd
                ),
                theme.dim(),
            ));
        }
        lines.push(Line::default());
        lines.push(Line::styled(
            "↑/↓ select · enter switch · esc cancel",
            theme.dim(),
        ));
        boxed(lines, theme, width)
    }
}
