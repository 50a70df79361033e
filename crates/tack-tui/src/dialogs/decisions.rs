//! `/permissions`' auto-mode decisions: what auto mode allowed and blocked
//! lately, newest last, each with what decided it and why; `a` on a block
//! turns it into an allow rule.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use super::{boxed, one_line, row_marker, window};
use crate::event::AutoDecision;
use crate::theme::Theme;

/// Decisions shown at once (two rows each).
const VISIBLE: usize = 6;

#[derive(Debug, Clone, PartialEq)]
pub struct DecisionsView {
    decisions: Vec<AutoDecision>,
    selected: usize,
    /// The last thing said (a rule added, why it was not).
    said: Option<String>,
    /// Rules added from here: not offered again.
    added: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecisionsOutcome {
    Open,
    Closed,
    /// Allow calls like the selected block: this rule.
    AddRule(String),
}

impl DecisionsView {
    /// The newest block is selected first (else the newest decision).
    pub fn new(decisions: Vec<AutoDecision>) -> DecisionsView {
        let selected = decisions
            .iter()
            .rposition(|d| !d.allowed)
            .unwrap_or(decisions.len().saturating_sub(1));
        DecisionsView {
            decisions,
            selected,
            said: None,
            added: Vec::new(),
        }
    }

    /// Shows `text` under the list (what became of a rule).
    pub fn say(&mut self, text: String) {
        self.said = Some(text);
    }

    /// `rule` was saved: it is not offered again.
    pub fn rule_saved(&mut self, rule: &str) {
        self.added.push(rule.to_owned());
    }

    /// The rule `a` would add: the selected decision's, if it is a block
    /// and the rule was not added yet.
    fn rule(&self) -> Option<&str> {
        let decision = self.decisions.get(self.selected)?;
        let rule = decision.rule.as_deref().filter(|_| !decision.allowed)?;
        (!self.added.iter().any(|a| a == rule)).then_some(rule)
    }

    pub fn key(&mut self, key: KeyEvent) -> DecisionsOutcome {
        match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => return DecisionsOutcome::Closed,
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.decisions.len().saturating_sub(1));
            }
            KeyCode::Char('a') => match self.rule() {
                Some(rule) => return DecisionsOutcome::AddRule(rule.to_owned()),
                None => {
                    let why = match self.decisions.get(self.selected) {
                        Some(d) if d.allowed => "This call was allowed: nothing to add.",
                        Some(d) if d.rule.is_some() => "Its rule was added.",
                        _ => "No rule fits this call: add one in a settings file.",
                    };
                    self.said = Some(why.to_owned());
                }
            },
            _ => {}
        }
        DecisionsOutcome::Open
    }

    pub fn render(&self, theme: &Theme, width: u16) -> Vec<Line<'static>> {
        let mut lines = vec![
            Line::styled("Auto mode decisions", theme.heading().patch(theme.accent())),
            Line::styled(
                "What auto mode allowed and blocked lately, newest last.",
                theme.dim(),
            ),
            Line::default(),
        ];
        if self.decisions.is_empty() {
            lines.push(Line::styled("No decisions yet", theme.dim()));
        }
        for i in window(self.selected, self.decisions.len(), VISIBLE) {
            let d = &self.decisions[i];
            let (marker, style) = row_marker(theme, i == self.selected);
            let verdict = if d.allowed {
                Span::styled("✓ allowed ", theme.success())
            } else {
                Span::styled("✗ blocked ", theme.error())
            };
            lines.push(Line::from(vec![
                Span::styled(marker, style),
                verdict,
                Span::styled(format!("{} ", one_line(&d.tool_name)), style),
                Span::styled(one_line(&d.summary), style),
            ]));
            lines.push(Line::styled(
                format!(
                    "    {} · {}",
                    one_line(&d.decided_by.describe()),
                    one_line(&d.reason)
                ),
                theme.dim(),
            ));
        }
        lines.push(Line::default());
        if let Some(said) = &self.said {
            lines.push(Line::styled(one_line(said), theme.text()));
        }
        let keys = match self.rule() {
            Some(rule) => format!(
                "↑/↓ select · a allow calls like this ({}) · esc close",
                one_line(rule)
            ),
            None => "↑/↓ select · esc close".to_owned(),
        };
        lines.push(Line::styled(keys, theme.dim()));
        boxed(lines, theme, width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Decider;
    use crate::theme::ThemeKind;
    use pretty_assertions::assert_eq;

    #[test]
    fn what_the_model_wrote_cannot_drive_the_terminal() {
        let view = DecisionsView::new(vec![AutoDecision {
            tool_name: "Bash\x1b]0;title\x07".into(),
            summary: "rm -rf x\n\x1b[2Jclear".into(),
            allowed: false,
            decided_by: Decider::Classifier { stage: 1 },
            reason: "deletes\x1b[31m files".into(),
            rule: Some("Bash(rm\x1b[0m:*)".into()),
        }]);
        let lines = view.render(&Theme::new(ThemeKind::Dark, false), 100);
        let text: String = lines
            .iter()
            .flat_map(|l| l.spans.iter().map(|s| s.content.as_ref()))
            .collect();
        assert!(!text.chars().any(|c| c.is_control()), "{text:?}");
        assert!(text.contains("rm -rf x clear"), "{text:?}");
        assert_eq!(lines.len(), 9);
    }
}
