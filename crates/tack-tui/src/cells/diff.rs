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

/// Where an Edit's fragments sit in the file: the line number (1-based) of
/// `new_string`'s first line in the numbered snippet of the file that the Edit
/// tool returns (`     7\tline`). `None` when the snippet does not show it
/// (a deletion, a result from another tool).
pub fn edit_first_line(input: &Value, result: &str) -> Option<usize> {
    let new: Vec<&str> = input
        .get("new_string")?
        .as_str()?
        .lines()
        .map(str::trim_end)
        .collect();
    if new.first().is_none_or(|l| l.trim().is_empty()) {
        return None;
    }
    let numbered: Vec<(usize, &str)> = result
        .lines()
        .filter_map(|line| {
            let (number, text) = line.split_once('\t')?;
            Some((number.trim().parse().ok()?, text))
        })
        .collect();
    // Where every line of new_string follows in order (a lone `}` would match
    // too early), as far as the snippet goes.
    (0..numbered.len()).find_map(|i| {
        let fits = new
            .iter()
            .zip(&numbered[i..])
            .all(|(want, (_, text))| text.contains(want));
        fits.then_some(numbered[i].0)
    })
}

/// The changed hunks as lines: `  12 - old`, `  12 + new`, context in between,
/// hunks separated by `⋯`. `first` is the line number of `before`'s and
/// `after`'s first line (1 for whole files; where a fragment sits otherwise).
/// At most `max_lines` lines, then a "… +N lines" line.
pub fn render_diff(
    before: &str,
    after: &str,
    first: usize,
    theme: &Theme,
    max_lines: usize,
) -> Vec<Line<'static>> {
    let diff = TextDiff::from_lines(before, after);
    let groups = diff.grouped_ops(CONTEXT);
    let first = first.max(1);
    let last_line = before.lines().count().max(after.lines().count()).max(1) + first - 1;
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
                let number = number.map(|n| (n + first).to_string()).unwrap_or_default();
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
            plain(&render_diff(&before, &after, 1, &theme, 100)),
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
            plain(&render_diff(&before, &after, 1, &theme, 2)),
            vec!["1 + 1", "2 + 2", "… +2 lines"]
        );
    }

    #[test]
    fn an_edit_shown_after_it_ran_is_numbered_where_it_sits_in_the_file() {
        let input = json!({"file_path": "x", "old_string": "    s.parse().unwrap_or(0)",
                           "new_string": "    s.trim().parse()"});
        let result = "The file x has been updated. Here's a snippet of the result:\n\
                      \x20    1\tpub fn port(s: &str) -> u16 {\n\
                      \x20    2\t    s.trim().parse()\n\
                      \x20    3\t}";
        let first = edit_first_line(&input, result).unwrap();
        assert_eq!(first, 2);
        let (before, after) = tool_change("Edit", &input, None).unwrap();
        let theme = Theme::new(ThemeKind::Dark, false);
        assert_eq!(
            plain(&render_diff(&before, &after, first, &theme, 100)),
            vec!["2 -     s.parse().unwrap_or(0)", "2 +     s.trim().parse()"]
        );
        let deletion = json!({"file_path": "x", "old_string": "a\n", "new_string": ""});
        assert_eq!(edit_first_line(&deletion, result), None);
        assert_eq!(edit_first_line(&input, "no snippet"), None);
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
