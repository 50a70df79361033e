//! The todo list (TodoWrite).

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use tack_protocol::{TodoItem, TodoStatus};

use crate::theme::Theme;

/// One row per item: `☐ pending`, `☐ in progress` (bold), `☒ done` (struck out).
pub fn render_todos(todos: &[TodoItem], theme: &Theme) -> Vec<Line<'static>> {
    todos
        .iter()
        .map(|t| match t.status {
            TodoStatus::Pending => Line::from(vec![Span::raw("☐ "), Span::raw(t.content.clone())]),
            TodoStatus::InProgress => Line::from(vec![
                Span::styled("☐ ", theme.accent()),
                Span::styled(
                    t.content.clone(),
                    theme.accent().add_modifier(Modifier::BOLD),
                ),
            ]),
            TodoStatus::Completed => Line::from(vec![
                Span::styled("☒ ", theme.success()),
                Span::styled(
                    t.content.clone(),
                    theme.dim().add_modifier(Modifier::CROSSED_OUT),
                ),
            ]),
        })
        .collect()
}
