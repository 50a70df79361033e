//! A server's diagnostics as Claude Code shows them to the model after an
//! edit: only those not delivered before for the file, at most 10 a file,
//! one `<new-diagnostics>` block (the loop wraps it in a system reminder).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// Diagnostics kept per file (Claude Code's registry keeps 10).
const MAX_PER_FILE: usize = 10;
/// The summary is cut here, as Claude Code cuts it.
const MAX_SUMMARY_CHARS: usize = 8000;
const TRUNCATED: &str = "…[truncated]";

/// What was delivered, per document URI.
#[derive(Debug, Default)]
pub(crate) struct Delivered {
    by_uri: HashMap<String, HashSet<String>>,
}

impl Delivered {
    /// The text for `list`'s diagnostics of `uri` not delivered before
    /// (`None`: nothing new). What is delivered is what the file has now: a
    /// problem fixed and made again is new again.
    pub(crate) fn new_text(&mut self, uri: &str, list: &[Value]) -> Option<String> {
        let before = self.by_uri.remove(uri).unwrap_or_default();
        let now: HashSet<String> = list.iter().map(Value::to_string).collect();
        let fresh: Vec<&Value> = list
            .iter()
            .filter(|d| !before.contains(&d.to_string()))
            .take(MAX_PER_FILE)
            .collect();
        self.by_uri.insert(uri.to_owned(), now);
        if fresh.is_empty() {
            return None;
        }
        let summary = truncated(format!("{}:\n{}", file_name(uri), lines(&fresh)));
        Some(format!(
            "<new-diagnostics>The following new diagnostic issues were detected:\n\n{summary}</new-diagnostics>"
        ))
    }
}

fn file_name(uri: &str) -> &str {
    uri.rsplit('/').next().unwrap_or(uri)
}

fn lines(list: &[&Value]) -> String {
    let line = |d: &Value| {
        let start = d.pointer("/range/start");
        let at = |k: &str| {
            start
                .and_then(|s| s.get(k))
                .and_then(Value::as_u64)
                .unwrap_or(0)
                + 1
        };
        let symbol = match d.get("severity").and_then(Value::as_u64) {
            Some(1) => "✗",
            Some(2) => "⚠",
            Some(3) => "ℹ",
            Some(4) => "★",
            _ => "•",
        };
        let message = d.get("message").and_then(Value::as_str).unwrap_or("");
        let code = match d.get("code") {
            Some(Value::String(c)) => format!(" [{c}]"),
            Some(Value::Number(c)) => format!(" [{c}]"),
            _ => String::new(),
        };
        let source = match d.get("source").and_then(Value::as_str) {
            Some(s) => format!(" ({s})"),
            None => String::new(),
        };
        format!(
            "  {symbol} [Line {}:{}] {message}{code}{source}",
            at("line"),
            at("character")
        )
    };
    list.iter().map(|d| line(d)).collect::<Vec<_>>().join("\n")
}

fn truncated(text: String) -> String {
    if text.chars().count() <= MAX_SUMMARY_CHARS {
        return text;
    }
    let keep = MAX_SUMMARY_CHARS - TRUNCATED.chars().count();
    text.chars().take(keep).collect::<String>() + TRUNCATED
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn diag(line: u64, message: &str, severity: u64) -> Value {
        json!({
            "range": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 9}},
            "message": message, "severity": severity, "source": "pyflakes"
        })
    }

    #[test]
    fn only_new_diagnostics_are_delivered_and_a_fixed_one_comes_back() {
        let mut d = Delivered::default();
        let uri = "file:///p/app.py";
        let unused = diag(0, "'os' imported but unused", 2);
        let undefined = json!({
            "range": {"start": {"line": 2, "character": 0}},
            "message": "undefined name 'x'", "severity": 1, "code": "F821"
        });
        let first = d.new_text(uri, std::slice::from_ref(&unused));
        let same = d.new_text(uri, std::slice::from_ref(&unused));
        let more = d.new_text(uri, &[unused.clone(), undefined]);
        let fixed = d.new_text(uri, &[]);
        let again = d.new_text(uri, &[unused]);
        assert_eq!(
            [first.clone(), same, more, fixed, again],
            [
                Some("<new-diagnostics>The following new diagnostic issues were detected:\n\napp.py:\n  ⚠ [Line 1:5] 'os' imported but unused (pyflakes)</new-diagnostics>".to_owned()),
                None,
                Some("<new-diagnostics>The following new diagnostic issues were detected:\n\napp.py:\n  ✗ [Line 3:1] undefined name 'x' [F821]</new-diagnostics>".to_owned()),
                None,
                first,
            ]
        );
    }

    #[test]
    fn at_most_ten_a_file_and_a_long_summary_is_cut() {
        let many: Vec<Value> = (0..12).map(|i| diag(i, &"x".repeat(1000), 1)).collect();
        let text = Delivered::default()
            .new_text("file:///a.py", &many)
            .unwrap();
        let shown = text.matches("[Line ").count();
        assert_eq!(
            (shown, text.ends_with("…[truncated]</new-diagnostics>"), text.chars().count()),
            (8, true, MAX_SUMMARY_CHARS + "<new-diagnostics>The following new diagnostic issues were detected:\n\n</new-diagnostics>".chars().count())
        );
    }
}
