//! What the history is made of: prompts, answers, thinking, tool calls, notices.
//! Each cell renders to lines at a width; the history writes those lines once,
//! the transcript view renders cells again (expanded) on demand.

mod diff;
mod todo;
mod tool;
mod welcome;

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

pub use diff::{diff_stats, render_diff, tool_change};
pub use todo::render_todos;
pub use tool::{ToolCall, ToolResult, render_call, summary};
pub use welcome::render_welcome;

use crate::event::NoticeLevel;
use crate::input::InputMode;
use crate::markdown::render_markdown;
use crate::theme::Theme;
use crate::wrap::wrap_spans;

/// One entry of the session's history.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryCell {
    /// What the user typed (after paste expansion), in its input mode.
    User {
        mode: InputMode,
        text: String,
    },
    /// An assistant message (markdown source).
    Assistant(String),
    /// Extended thinking (markdown source), shown dimmed.
    Thinking(String),
    Tool(ToolCall),
    Notice {
        level: NoticeLevel,
        text: String,
    },
    /// The conversation was summarised.
    Compacted {
        summary: String,
    },
    /// The lines at start: version, model, directory (shortened).
    Welcome {
        version: String,
        model: String,
        cwd: String,
    },
    /// The turn was interrupted or failed.
    TurnEnd {
        interrupted: bool,
        error: Option<String>,
    },
}

impl HistoryCell {
    /// The cell's rows at `width`; `expanded` is the transcript view (whole tool
    /// results, the compaction summary).
    pub fn render(&self, theme: &Theme, width: u16, expanded: bool) -> Vec<Line<'static>> {
        match self {
            HistoryCell::User { mode, text } => render_user(*mode, text, theme, width),
            HistoryCell::Assistant(src) => render_markdown(src, width, theme),
            HistoryCell::Thinking(src) => {
                let style = theme.thinking();
                let mut lines = vec![Line::styled("∴ Thinking…", style)];
                lines.extend(render_markdown(src, width, theme).into_iter().map(|l| {
                    Line::from(
                        l.spans
                            .into_iter()
                            .map(|s| {
                                let st = s.style.patch(style);
                                s.style(st)
                            })
                            .collect::<Vec<_>>(),
                    )
                }));
                lines
            }
            HistoryCell::Tool(call) => render_call(call, theme, width, expanded),
            HistoryCell::Notice { level, text } => render_notice(*level, text, theme, width),
            HistoryCell::Compacted { summary } => {
                let mut lines = vec![Line::styled(
                    "✻ Conversation compacted (ctrl+o to see the summary)",
                    theme.dim(),
                )];
                if expanded {
                    lines.extend(render_markdown(summary, width, theme));
                }
                lines
            }
            HistoryCell::Welcome {
                version,
                model,
                cwd,
            } => render_welcome(version, model, cwd, theme),
            HistoryCell::TurnEnd { interrupted, error } => {
                let text = match (interrupted, error) {
                    (_, Some(e)) => format!("Error: {}", sanitize(e)),
                    (true, None) => "Interrupted · What should tack do instead?".to_string(),
                    (false, None) => return Vec::new(),
                };
                wrap_spans(
                    &[Span::styled(text, theme.error())],
                    width,
                    &[Span::styled("  ⎿  ", theme.dim())],
                    &[Span::raw("     ")],
                )
            }
        }
    }
}

/// `> prompt` (or `! command`, `# note`), wrapped, lines of a multi-line prompt kept.
pub fn render_user(mode: InputMode, text: &str, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let (marker, style) = match mode {
        InputMode::Prompt => ("> ", theme.user_prompt()),
        InputMode::Shell => ("! ", theme.mode()),
        InputMode::Memory => ("# ", theme.accent()),
    };
    let mut lines = Vec::new();
    for (i, line) in sanitize(text).split('\n').enumerate() {
        let first = if i == 0 {
            vec![Span::styled(marker, style.add_modifier(Modifier::BOLD))]
        } else {
            vec![Span::raw("  ")]
        };
        lines.extend(wrap_spans(
            &[Span::styled(line.to_string(), style)],
            width,
            &first,
            &[Span::raw("  ")],
        ));
    }
    lines
}

fn render_notice(level: NoticeLevel, text: &str, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let (marker, style) = match level {
        NoticeLevel::Info => ("  ⎿  ", theme.dim()),
        NoticeLevel::Warning => ("⚠ ", theme.warning()),
        NoticeLevel::Error => ("✗ ", theme.error()),
    };
    let mut lines = Vec::new();
    for (i, line) in sanitize(text).split('\n').enumerate() {
        // A line's own indentation is kept (wrapping drops leading spaces).
        let body = line.trim_start_matches(' ');
        let indent = " ".repeat(line.len() - body.len());
        let lead = if i == 0 {
            format!("{marker}{indent}")
        } else {
            format!("{}{indent}", " ".repeat(marker.chars().count()))
        };
        lines.extend(wrap_spans(
            &[Span::styled(body.to_string(), style)],
            width,
            &[Span::styled(lead.clone(), style)],
            &[Span::raw(" ".repeat(lead.chars().count()))],
        ));
    }
    lines
}

/// Text safe to print: ANSI escape sequences removed, tabs expanded, other
/// control characters (but newlines) dropped, CR LF made LF.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                // CSI: ESC [ params final; OSC: ESC ] ... BEL or ESC \; others: ESC x.
                match chars.next() {
                    Some('[') => {
                        for c in chars.by_ref() {
                            if ('@'..='~').contains(&c) {
                                break;
                            }
                        }
                    }
                    Some(']') => {
                        while let Some(c) = chars.next() {
                            if c == '\x07' {
                                break;
                            }
                            if c == '\x1b' && chars.peek() == Some(&'\\') {
                                chars.next();
                                break;
                            }
                        }
                    }
                    _ => {}
                }
            }
            '\t' => out.push_str("    "),
            '\n' => out.push('\n'),
            '\r' if chars.peek() == Some(&'\n') => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn sanitize_strips_escapes_and_controls() {
        assert_eq!(
            sanitize("\x1b[31mred\x1b[0m\ttab\r\nnext\x07\x1b]0;title\x07end"),
            "red    tab\nnextend"
        );
    }
}
