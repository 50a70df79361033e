//! The status line: model, context, cost, permission mode, git branch; or the
//! output of the `statusLine` command from settings.

mod command;
mod input;
mod sgr;

use ratatui::text::{Line, Span};
use tack_protocol::PermissionMode;

pub use command::{StatusLineCommand, StatusLineError, run_status_line};
pub use input::{ContextWindow, Cost, LastUsage, StatusLineInput, Worktree};

use crate::event::StatusPatch;
use crate::theme::Theme;

/// What the status line shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusInfo {
    pub model: String,
    pub context_used: u64,
    pub context_window: u64,
    pub session_cost_usd: f64,
    pub permission_mode: PermissionMode,
    pub git_branch: Option<String>,
    pub custom_line: Option<String>,
    pub session_id: String,
}

impl StatusInfo {
    pub fn apply(&mut self, patch: StatusPatch) {
        let StatusPatch {
            model,
            context_used,
            context_window,
            session_cost_usd,
            permission_mode,
            git_branch,
            custom_line,
            session_id,
        } = patch;
        if let Some(v) = model {
            self.model = v;
        }
        if let Some(v) = context_used {
            self.context_used = v;
        }
        if let Some(v) = context_window {
            self.context_window = v;
        }
        if let Some(v) = session_cost_usd {
            self.session_cost_usd = v;
        }
        if let Some(v) = permission_mode {
            self.permission_mode = v;
        }
        if let Some(v) = git_branch {
            self.git_branch = v;
        }
        if let Some(v) = custom_line {
            self.custom_line = v;
        }
        if let Some(v) = session_id {
            self.session_id = v;
        }
    }

    /// The rows: the custom command's (one per line it printed, as Claude
    /// Code shows them), else `model · 12% context (176k left) · $0.42 · ⎇ main`.
    pub fn render(&self, theme: &Theme) -> Vec<Line<'static>> {
        match &self.custom_line {
            Some(custom) => custom
                .lines()
                .take(MAX_CUSTOM_ROWS)
                .map(|row| sgr::styled_row(row, theme.dim()))
                .collect(),
            None => vec![self.built_in(theme)],
        }
    }

    fn built_in(&self, theme: &Theme) -> Line<'static> {
        let sep = || Span::styled(" · ", theme.dim());
        let mut spans = vec![Span::styled(self.model.clone(), theme.dim())];
        if self.context_window > 0 {
            let used = self.context_used.min(self.context_window);
            let pct = used * 100 / self.context_window;
            let left = self.context_window - used;
            let style = if pct >= 80 {
                theme.warning()
            } else {
                theme.dim()
            };
            spans.push(sep());
            spans.push(Span::styled(
                format!("{pct}% context ({} left)", tokens(left)),
                style,
            ));
        }
        spans.push(sep());
        spans.push(Span::styled(
            format!("${:.2}", self.session_cost_usd),
            theme.dim(),
        ));
        if let Some(branch) = &self.git_branch {
            spans.push(sep());
            spans.push(Span::styled(format!("⎇ {branch}"), theme.dim()));
        }
        Line::from(spans)
    }
}

/// Rows of a custom status line shown at most.
const MAX_CUSTOM_ROWS: usize = 8;

/// 1234 → "1.2k", 176000 → "176k".
pub fn tokens(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..10_000 => format!("{:.1}k", n as f64 / 1_000.0),
        10_000..1_000_000 => format!("{}k", n / 1_000),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// The permission mode as the footer shows it; `None` for the default mode.
pub fn mode_indicator(mode: PermissionMode) -> Option<&'static str> {
    match mode {
        PermissionMode::Default => None,
        PermissionMode::AcceptEdits => Some("⏵⏵ accept edits on (shift+tab to cycle)"),
        PermissionMode::Plan => Some("⏸ plan mode on (shift+tab to cycle)"),
        PermissionMode::Auto => Some("⏵⏵ auto mode on (shift+tab to cycle)"),
        PermissionMode::BypassPermissions => Some("⏵⏵ bypass permissions on (shift+tab to cycle)"),
        PermissionMode::DontAsk => Some("⏵⏵ don't ask on (shift+tab to cycle)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ThemeKind;
    use pretty_assertions::assert_eq;

    #[test]
    fn built_in_line() {
        let info = StatusInfo {
            model: "claude-sonnet-4-5".into(),
            context_used: 24_000,
            context_window: 200_000,
            session_cost_usd: 0.4251,
            permission_mode: PermissionMode::Default,
            git_branch: Some("main".into()),
            custom_line: None,
            session_id: "s".into(),
        };
        let lines = info.render(&Theme::new(ThemeKind::Dark, false));
        let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(
            text,
            "claude-sonnet-4-5 · 12% context (176k left) · $0.43 · ⎇ main"
        );
        assert_eq!(tokens(1234), "1.2k");
        assert_eq!(tokens(999), "999");
        assert_eq!(tokens(2_500_000), "2.5M");
    }

    #[test]
    fn a_custom_line_shows_each_row_it_printed() {
        let info = StatusInfo {
            custom_line: Some("  row one\n\x1b[2Jrow two\n".into()),
            ..StatusInfo::default()
        };
        let rows: Vec<String> = info
            .render(&Theme::new(ThemeKind::Dark, false))
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(rows, ["  row one", "row two"]);
    }
}
