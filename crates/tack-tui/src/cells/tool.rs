//! Tool calls as one-line summaries, with their results collapsed.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::diff::{diff_stats, edit_first_line, render_diff, tool_change};
use super::sanitize;
use super::todo::render_todos;
use crate::theme::Theme;
use crate::wrap::wrap_spans;

/// Result lines shown under a collapsed call.
const COLLAPSED_LINES: usize = 3;
/// Diff lines shown under a collapsed Edit / MultiEdit / Write.
const COLLAPSED_DIFF_LINES: usize = 12;

/// One tool call and, once it finished, its result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
    pub result: Option<ToolResult>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub is_error: bool,
    pub content: String,
}

fn str_field<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// `Bash(npm test)`, `Read(src/main.rs)`, `Grep("fn main" in src)`.
pub fn summary(name: &str, input: &Value) -> String {
    let arg = match name {
        "Bash" => str_field(input, "command").map(|c| c.lines().next().unwrap_or("").to_string()),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            str_field(input, "file_path").map(str::to_string)
        }
        "Glob" => str_field(input, "pattern").map(str::to_string),
        "Grep" => str_field(input, "pattern").map(|p| match str_field(input, "path") {
            Some(path) => format!("\"{p}\" in {path}"),
            None => format!("\"{p}\""),
        }),
        "LS" => str_field(input, "path").map(str::to_string),
        "WebFetch" => str_field(input, "url").map(str::to_string),
        "WebSearch" => str_field(input, "query").map(str::to_string),
        "Agent" | "Task" => str_field(input, "description").map(str::to_string),
        "TodoWrite" => Some("update todos".to_string()),
        "TaskOutput" | "TaskStop" => str_field(input, "task_id").map(str::to_string),
        _ => match input {
            Value::Object(map) if map.is_empty() => None,
            Value::Null => None,
            other => Some(serde_json::to_string(other).unwrap_or_default()),
        },
    };
    // The call as it is (a permission dialog shows this): control characters
    // made visible, not dropped.
    let arg = arg
        .map(|a| tack_sys::terminal_text::visible(&a).replace('\t', "    "))
        .unwrap_or_default();
    let arg = truncate(&arg, 120);
    if arg.is_empty() {
        name.to_string()
    } else {
        format!("{name}({arg})")
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The call's rows: a bullet and its summary, then the result under `⎿`.
/// `expanded` shows the whole result (the transcript view).
pub fn render_call(
    call: &ToolCall,
    theme: &Theme,
    width: u16,
    expanded: bool,
) -> Vec<Line<'static>> {
    let bullet_style = match &call.result {
        None => theme.dim(),
        Some(r) if r.is_error => theme.error(),
        Some(_) => theme.success(),
    };
    let head = vec![
        Span::styled("● ", bullet_style),
        Span::styled(
            summary(&call.name, &call.input),
            theme.text().add_modifier(Modifier::BOLD),
        ),
    ];
    let mut lines = wrap_spans(&head, width, &[], &[Span::raw("  ")]);
    let Some(result) = &call.result else {
        return lines;
    };
    let body = result_lines(call, result, theme, expanded);
    for (i, line) in body.into_iter().enumerate() {
        let lead = if i == 0 { "  ⎿  " } else { "     " };
        let first = vec![Span::styled(lead, theme.dim())];
        let rest = vec![Span::raw("     ")];
        if expanded || i > 0 || line.spans.iter().any(|s| s.style.bg.is_some()) {
            // Diff rows and full output are not re-wrapped (the terminal wraps them).
            let mut spans = first;
            spans.extend(line.spans);
            lines.push(Line::from(spans));
        } else {
            lines.extend(wrap_spans(&line.spans, width, &first, &rest));
        }
    }
    lines
}

fn result_lines(
    call: &ToolCall,
    result: &ToolResult,
    theme: &Theme,
    expanded: bool,
) -> Vec<Line<'static>> {
    let content = sanitize(&result.content);
    let all: Vec<&str> = content.lines().collect();
    if result.is_error {
        let shown = if expanded { all.len() } else { COLLAPSED_LINES };
        let mut lines: Vec<Line<'static>> = all
            .iter()
            .take(shown)
            .map(|l| Line::styled(l.to_string(), theme.error()))
            .collect();
        more(&mut lines, all.len(), shown, theme);
        return lines;
    }
    if let Some((before, after)) = tool_change(&call.name, &call.input, None) {
        let (added, removed) = diff_stats(&before, &after);
        let path = str_field(&call.input, "file_path").unwrap_or("");
        let verb = if call.name == "Write" && before.is_empty() {
            "Wrote"
        } else {
            "Updated"
        };
        let mut lines = vec![Line::from(format!(
            "{verb} {path} with {added} addition{} and {removed} removal{}",
            plural(added),
            plural(removed)
        ))];
        let max = if expanded {
            usize::MAX
        } else {
            COLLAPSED_DIFF_LINES
        };
        // Without the original file the diff is of the fragments: number them
        // where the Edit's snippet shows they landed.
        let first = match call.name.as_str() {
            "Edit" => edit_first_line(&call.input, &result.content).unwrap_or(1),
            _ => 1,
        };
        lines.extend(render_diff(&before, &after, first, theme, max));
        return lines;
    }
    if call.name == "TodoWrite" {
        let todos: Vec<tack_protocol::TodoItem> = call
            .input
            .get("todos")
            .cloned()
            .and_then(|t| serde_json::from_value(t).ok())
            .unwrap_or_default();
        return render_todos(&todos, theme);
    }
    if !expanded {
        let count = all.len();
        let noun = match call.name.as_str() {
            "Read" => Some("line"),
            "Glob" => Some("file"),
            "Grep" if str_field(&call.input, "output_mode") == Some("content") => Some("line"),
            "Grep" => Some("file"),
            _ => None,
        };
        if let Some(noun) = noun {
            let verb = if call.name == "Read" { "Read" } else { "Found" };
            return vec![Line::from(vec![
                Span::raw(format!("{verb} ")),
                Span::styled(count.to_string(), theme.text().add_modifier(Modifier::BOLD)),
                Span::raw(format!(" {noun}{}", plural(count))),
            ])];
        }
    }
    if all.is_empty() {
        return vec![Line::styled("(No content)", theme.dim())];
    }
    let shown = if expanded { all.len() } else { COLLAPSED_LINES };
    let mut lines: Vec<Line<'static>> = all
        .iter()
        .take(shown)
        .map(|l| Line::raw(l.to_string()))
        .collect();
    more(&mut lines, all.len(), shown, theme);
    lines
}

fn more(lines: &mut Vec<Line<'static>>, total: usize, shown: usize, theme: &Theme) {
    if total > shown {
        lines.push(Line::styled(
            format!("… +{} lines (ctrl+o to expand)", total - shown),
            theme.dim(),
        ));
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn summaries_name_the_argument_that_matters() {
        assert_eq!(
            summary("Bash", &json!({"command": "npm test\necho hi"})),
            "Bash(npm test)"
        );
        assert_eq!(
            summary("Read", &json!({"file_path": "src/lib.rs"})),
            "Read(src/lib.rs)"
        );
        assert_eq!(
            summary("Grep", &json!({"pattern": "fn main", "path": "src"})),
            "Grep(\"fn main\" in src)"
        );
        assert_eq!(
            summary("mcp__x__y", &json!({"a": 1})),
            "mcp__x__y({\"a\":1})"
        );
        assert_eq!(
            summary("TodoWrite", &json!({"todos": []})),
            "TodoWrite(update todos)"
        );
    }
}
