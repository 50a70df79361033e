//! Diffs of what Edit, MultiEdit and Write change, as styled lines.

use ratatui::text::{Line, Span};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::theme::Theme;

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The file change a tool call makes: (before, after), each a whole file when the
/// original is known, otherwise the edited fragments. `None` for other tools.
pub fn tool_change(tool: &str, input: &Value, original: Option<&str>) -> Option<(String, String)> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    match tool {
        "Write" => {
            let content = s(input, "content")?;
            Some((original.unwrap_or("").to_string(), content))
        }
        "Edit" => {
            let edit = Edit::from(input)?;
            match original {
                Some(orig) if orig.contains(&edit.old) => {
                    Some((orig.to_string(), edit.apply(orig)))
                }
                _ => Some((edit.old, edit.new)),
            }
        }
        "MultiEdit" => {
            let edits: Vec<Edit> = input
                .get("edits")?
                .as_array()?
                .iter()
                .filter_map(Edit::from)
                .collect();
            if let Some(orig) = original {
                let mut text = orig.to_string();
                let applies = edits.iter().all(|e| {
                    let found = text.contains(&e.old);
                    text = e.apply(&text);
                    found
                });
                if applies {
                    return Some((orig.to_string(), text));
                }
            }
            let old: Vec<&str> = edits.iter().map(|e| e.old.as_str()).collect();
            let new: Vec<&str> = edits.iter().map(|e| e.new.as_str()).collect();
            Some((old.join("\n"), new.join("\n")))
        }
        _ => None,
    }
}

struct Edit {
    old: String,
    new: String,
    all: bool,
}

impl Edit {
    fn from(v: &Value) -> Option<Edit> {
        Some(Edit {
            old: v.get("old_string")?.as_str()?.to_string(),
            new: v.get("new_string")?.as_str()?.to_string(),
            all: v
                .get("replace_all")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }

    fn apply(&self, text: &str) -> String {
        if self.all {
            text.replace(&self.old, &self.new)
        } else {
            text.replacen(&self.old, &self.new, 1)
        }
    }
}

/// How many lines were added and removed.
pub fn diff_stats(before: &str, after: &str) -> (usize, usize) {
    let diff = TextDiff::from_lines(before, after);
    let mut added = 0;
    let mut removed = 0;
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    (added, removed)
}

/// The changed hunks as lines: `  12 - old`, `  12 + new`, context in between,
/// hunks separated by `⋯`. At most `max_lines` lines, then a "… +N lines" line.
pub fn render_diff(
    before: &str,
    after: &str,
    theme: &Theme,
    max_lines: usize,
) -> Vec<Line<'static>> {
    let diff = TextDiff::from_lines(before, after);
    let groups = diff.grouped_ops(CONTEXT);
    let last_line = before.lines().count().max(after.lines().count()).max(1);
    let num_width = last_line.to_string().len();
    let mut lines = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        if g > 0 {
            lines.push(Line::styled(format!("{:>num_width$}   ⋯", ""), theme.dim()));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let (sign, style, number) = match change.tag() {
                    ChangeTag::Delete => ("-", theme.diff_removed(), change.old_index()),
                    ChangeTag::Insert => ("+", theme.diff_added(), change.new_index()),
                    ChangeTag::Equal => (" ", theme.text(), change.new_index()),
                };
                let number = number.map(|n| (n + 1).to_string()).unwrap_or_default();
                let text = change
                    .value()
                    .trim_end_matches(['\n', '\r'])
                    .replace('\t', "    ");
                lines.push(Line::from(vec![
                    Span::styled(format!("{number:>num_width$} "), theme.dim()),
                    Span::styled(format!("{sign} {text}"), style),
                ]));
            }
        }
    }
    if lines.len() > max_lines {
        let more = lines.len() - max_lines;
        lines.truncate(max_lines);
        lines.push(Line::styled(format!("… +{more} lines"), theme.dim()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::ThemeKind;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn plain(lines: &[Line<'static>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn edit_against_the_original_file_has_real_line_numbers() {
        let original = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let input = json!({"file_path": "x", "old_string": "g\n", "new_string": "G\nG2\n"});
        let (before, after) = tool_change("Edit", &input, Some(original)).unwrap();
        let theme = Theme::new(ThemeKind::Dark, false);
        assert_eq!(
            plain(&render_diff(&before, &after, &theme, 100)),
            vec![
                "4   d", "5   e", "6   f", "7 - g", "7 + G", "8 + G2", "9   h"
            ]
        );
        assert_eq!(diff_stats(&before, &after), (2, 1));
    }

    #[test]
    fn write_of_a_new_file_is_all_additions_and_is_cut() {
        let input = json!({"file_path": "x", "content": "1\n2\n3\n4\n"});
        let (before, after) = tool_change("Write", &input, None).unwrap();
        let theme = Theme::new(ThemeKind::Dark, false);
        assert_eq!(
            plain(&render_diff(&before, &after, &theme, 2)),
            vec!["1 + 1", "2 + 2", "… +2 lines"]
        );
    }

    #[test]
    fn multi_edit_applies_edits_in_order() {
        let original = "let a = 1;\nlet b = 2;\n";
        let input = json!({"file_path": "x", "edits": [
            {"old_string": "a = 1", "new_string": "a = 10"},
            {"old_string": "a = 10", "new_string": "a = 100"},
        ]});
        let (_, after) = tool_change("MultiEdit", &input, Some(original)).unwrap();
        assert_eq!(after, "let a = 100;\nlet b = 2;\n");
    }
}
