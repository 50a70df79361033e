//! What an editor shows of a tool call: its kind, title, the files it
//! touches and its content (a diff for an edit), named as Claude Code's
//! adapter names them (`claude-agent-acp`'s `toolInfoFromToolUse`), and the
//! plan a TodoWrite call sets.

use std::path::Path;

use serde_json::{Value, json};

/// The ACP `ToolCall` fields of a call of `name` with `input`: `title`,
/// `kind`, `locations`, `content`.
pub fn info(name: &str, input: &Value, cwd: &Path) -> Value {
    let text = |key: &str| input.get(key).and_then(Value::as_str);
    let file = text("file_path").or_else(|| text("notebook_path"));
    let shown = file.map(|f| display_path(f, cwd));
    let located = || match file {
        Some(path) => json!([{"path": path}]),
        None => json!([]),
    };
    let said = |key: &str| match text(key) {
        Some(text) => json!([{"type": "content", "content": {"type": "text", "text": text}}]),
        None => json!([]),
    };
    let (title, kind, locations, content) = match name {
        "Agent" | "Task" => (
            text("description").unwrap_or("Task").to_owned(),
            "think",
            json!([]),
            said("prompt"),
        ),
        "Bash" => (
            text("command").unwrap_or("Terminal").to_owned(),
            "execute",
            json!([]),
            said("description"),
        ),
        "Read" => {
            let offset = input.get("offset").and_then(Value::as_u64);
            let range = match (offset, input.get("limit").and_then(Value::as_u64)) {
                (start, Some(limit)) if limit > 0 => {
                    let start = start.unwrap_or(1);
                    format!(" ({start} - {})", start + limit - 1)
                }
                (Some(start), _) => format!(" (from line {start})"),
                _ => String::new(),
            };
            let locations = match file {
                Some(path) => json!([{"path": path, "line": offset.unwrap_or(1)}]),
                None => json!([]),
            };
            let title = format!("Read {}{range}", shown.as_deref().unwrap_or("File"));
            (title, "read", locations, json!([]))
        }
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => (
            shown.map_or_else(|| name.to_owned(), |f| format!("{name} {f}")),
            "edit",
            located(),
            diffs(name, input),
        ),
        "Glob" => {
            let mut title = "Find".to_owned();
            for key in ["path", "pattern"] {
                if let Some(part) = text(key) {
                    title.push_str(&format!(" `{part}`"));
                }
            }
            let locations = match text("path") {
                Some(path) => json!([{"path": path}]),
                None => json!([]),
            };
            (title, "search", locations, json!([]))
        }
        "Grep" | "LS" => {
            let mut title = name.to_lowercase();
            for part in [text("pattern"), text("path")].into_iter().flatten() {
                title.push(' ');
                title.push_str(part);
            }
            (title, "search", json!([]), json!([]))
        }
        "WebFetch" => (
            text("url").map_or_else(|| "Fetch".to_owned(), |u| format!("Fetch {u}")),
            "fetch",
            json!([]),
            said("prompt"),
        ),
        "WebSearch" => (
            format!("\"{}\"", text("query").unwrap_or_default()),
            "fetch",
            json!([]),
            json!([]),
        ),
        "TodoWrite" => {
            let todos: Vec<&str> = todos(input).map(|(content, _)| content).collect();
            let title = match todos.is_empty() {
                true => "Update TODOs".to_owned(),
                false => format!("Update TODOs: {}", todos.join(", ")),
            };
            (title, "think", json!([]), json!([]))
        }
        "ExitPlanMode" => (
            "Ready to code?".to_owned(),
            "switch_mode",
            json!([]),
            said("plan"),
        ),
        other => (other.to_owned(), "other", json!([]), json!([])),
    };
    json!({"title": title, "kind": kind, "locations": locations, "content": content})
}

/// A TodoWrite call's list as an ACP `plan` update's `entries`.
pub fn plan_entries(input: &Value) -> Value {
    todos(input)
        .map(
            |(content, status)| json!({"content": content, "priority": "medium", "status": status}),
        )
        .collect()
}

fn todos(input: &Value) -> impl Iterator<Item = (&str, &str)> {
    let list = input.get("todos").and_then(Value::as_array);
    list.into_iter().flatten().filter_map(|todo| {
        let content = todo.get("content")?.as_str()?;
        Some((
            content,
            todo.get("status")
                .and_then(Value::as_str)
                .unwrap_or("pending"),
        ))
    })
}

/// An edit's change as ACP `diff` content: the strings replaced (Edit, each
/// of MultiEdit's), or the whole new file (Write).
fn diffs(name: &str, input: &Value) -> Value {
    let Some(path) = input.get("file_path").and_then(Value::as_str) else {
        return json!([]);
    };
    let diff = |old: Option<&str>, new: &str| json!({"type": "diff", "path": path, "oldText": old, "newText": new});
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    match name {
        "Write" => json!([diff(None, &text(input, "content").unwrap_or_default())]),
        "Edit" => json!([diff(
            text(input, "old_string")
                .as_deref()
                .filter(|s| !s.is_empty()),
            &text(input, "new_string").unwrap_or_default()
        )]),
        "MultiEdit" => input
            .get("edits")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|edit| {
                diff(
                    text(edit, "old_string")
                        .as_deref()
                        .filter(|s| !s.is_empty()),
                    &text(edit, "new_string").unwrap_or_default(),
                )
            })
            .collect(),
        _ => json!([]),
    }
}

/// A NotebookEdit's change as ACP `diff` content, from its result (the
/// notebook before and after, as Claude Code's result carries them).
pub fn notebook_diff(result: &Value) -> Option<Value> {
    let text = |key: &str| result.get(key).and_then(Value::as_str);
    Some(json!({
        "type": "diff",
        "path": text("notebook_path")?,
        "oldText": text("original_file")?,
        "newText": text("updated_file")?,
    }))
}

/// `file` relative to `cwd` when inside it, as the adapter shows paths.
fn display_path(file: &str, cwd: &Path) -> String {
    match Path::new(file).strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => file.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn edits_show_as_diffs_at_their_file() {
        let cwd = Path::new("/repo");
        assert_eq!(
            info(
                "Edit",
                &json!({"file_path": "/repo/src/a.rs", "old_string": "a", "new_string": "b"}),
                cwd
            ),
            json!({
                "title": "Edit src/a.rs",
                "kind": "edit",
                "locations": [{"path": "/repo/src/a.rs"}],
                "content": [{"type": "diff", "path": "/repo/src/a.rs", "oldText": "a", "newText": "b"}],
            })
        );
        assert_eq!(
            info(
                "Write",
                &json!({"file_path": "/elsewhere/n.txt", "content": "hi"}),
                cwd
            ),
            json!({
                "title": "Write /elsewhere/n.txt",
                "kind": "edit",
                "locations": [{"path": "/elsewhere/n.txt"}],
                "content": [{"type": "diff", "path": "/elsewhere/n.txt", "oldText": null, "newText": "hi"}],
            })
        );
    }

    #[test]
    fn other_tools_get_the_adapters_titles_and_kinds() {
        let cwd = Path::new("/repo");
        let cases = [
            ("Bash", json!({"command": "ls"}), "ls", "execute"),
            (
                "Read",
                json!({"file_path": "/repo/a", "offset": 3, "limit": 2}),
                "Read a (3 - 4)",
                "read",
            ),
            ("Glob", json!({"pattern": "*.rs"}), "Find `*.rs`", "search"),
            (
                "WebFetch",
                json!({"url": "https://x"}),
                "Fetch https://x",
                "fetch",
            ),
            (
                "TodoWrite",
                json!({"todos": [{"content": "a", "status": "pending"}]}),
                "Update TODOs: a",
                "think",
            ),
            ("mcp__s__t", json!({}), "mcp__s__t", "other"),
        ];
        let got: Vec<(String, String)> = cases
            .iter()
            .map(|(name, input, _, _)| {
                let info = info(name, input, cwd);
                (
                    info["title"].as_str().unwrap().to_owned(),
                    info["kind"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = cases
            .iter()
            .map(|(_, _, title, kind)| ((*title).to_owned(), (*kind).to_owned()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_todo_list_is_the_plan() {
        let input = json!({"todos": [
            {"content": "read", "status": "completed", "activeForm": "Reading"},
            {"content": "write", "status": "in_progress", "activeForm": "Writing"},
        ]});
        assert_eq!(
            plan_entries(&input),
            json!([
                {"content": "read", "priority": "medium", "status": "completed"},
                {"content": "write", "priority": "medium", "status": "in_progress"},
            ])
        );
    }
}
