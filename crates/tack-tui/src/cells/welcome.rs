//! The welcome lines at start: tack's version, the model, where it runs.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use super::sanitize;
use crate::theme::Theme;

/// `✻ tack v0.1.0`, then the model and the directory (already shortened).
pub fn render_welcome(version: &str, model: &str, cwd: &str, theme: &Theme) -> Vec<Line<'static>> {
    vec![
        Line::from(vec![
            Span::styled("✻ ", theme.accent()),
            Span::styled("tack", theme.text().add_modifier(Modifier::BOLD)),
            Span::styled(format!(" v{}", sanitize(version)), theme.dim()),
        ]),
        Line::from(vec![
            Span::raw("  "),
            Span::styled(sanitize(model), theme.text()),
            Span::styled(" · /help for commands", theme.dim()),
        ]),
        Line::styled(format!("  {}", sanitize(cwd)), theme.dim()),
    ]
}
