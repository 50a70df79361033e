//! Servers' answers as the text Claude Code's LSP tool gives the model
//! (`docs/lsp.md`): 1-based lines and columns, paths relative to the cwd.

use std::path::Path;

use serde_json::Value;

use super::Operation;

const NO_DEFINITION: &str = "No definition found. This may occur if the cursor is not on a symbol, or if the definition is in an external library not indexed by the LSP server.";
const NO_REFERENCES: &str = "No references found. This may occur if the symbol has no usages, or if the LSP server has not fully indexed the workspace.";
const NO_HOVER: &str = "No hover information available. This may occur if the cursor is not on a symbol, or if the LSP server has not fully indexed the file.";
const NO_IMPLEMENTATION: &str = "No implementation found. This may occur if the cursor is not on a symbol, or if the implementation is in an external library not indexed by the LSP server.";
const NO_WORKSPACE_SYMBOLS: &str = "No symbols found in workspace. This may occur if the workspace is empty, or if the LSP server has not finished indexing the project.";

/// The text for `operation`'s `result`, with how many results and files.
pub(crate) fn format(operation: Operation, result: &Value, cwd: &Path) -> (String, usize, usize) {
    match operation {
        Operation::GoToDefinition => {
            locations(result, cwd, NO_DEFINITION, "Defined in", "definitions")
        }
        Operation::GoToImplementation => locations(
            result,
            cwd,
            NO_IMPLEMENTATION,
            "Implemented in",
            "implementations",
        ),
        Operation::FindReferences => references(result, cwd),
        Operation::Hover => hover(result),
        Operation::DocumentSymbol => document_symbols(result),
        Operation::WorkspaceSymbol => workspace_symbols(result, cwd),
        Operation::PrepareCallHierarchy => prepare_call_hierarchy(result, cwd),
        Operation::IncomingCalls => calls(
            result,
            cwd,
            "from",
            "incoming",
            "No incoming calls found (no functions call this location).",
        ),
        Operation::OutgoingCalls => calls(
            result,
            cwd,
            "to",
            "outgoing",
            "No outgoing calls found (this location doesn't call other functions).",
        ),
    }
}

/// A `file://` URI as a path relative to `cwd` when under it.
pub(crate) fn shown_path(uri: &str, cwd: &Path) -> String {
    let path = super::uri_path(uri);
    match Path::new(&path).strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path,
    }
}

fn pos(v: Option<&Value>, key: &str) -> u64 {
    v.and_then(|p| p.get(key))
        .and_then(Value::as_u64)
        .unwrap_or(0)
        + 1
}

/// A `Location` or `LocationLink` as `(uri, start)`.
fn location(v: &Value) -> Option<(String, Option<&Value>)> {
    if let Some(uri) = v.get("targetUri").and_then(Value::as_str) {
        let range = v
            .get("targetSelectionRange")
            .or_else(|| v.get("targetRange"));
        return Some((uri.to_owned(), range.and_then(|r| r.get("start"))));
    }
    let uri = v.get("uri").and_then(Value::as_str)?;
    Some((uri.to_owned(), v.pointer("/range/start")))
}

fn format_location(v: &Value, cwd: &Path) -> Option<String> {
    let (uri, start) = location(v)?;
    Some(format!(
        "{}:{}:{}",
        shown_path(&uri, cwd),
        pos(start, "line"),
        pos(start, "character")
    ))
}

fn as_list(result: &Value) -> Vec<&Value> {
    match result {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    }
}

fn file_count<'a>(uris: impl Iterator<Item = &'a str>) -> usize {
    let mut seen: Vec<&str> = Vec::new();
    for u in uris {
        if !seen.contains(&u) {
            seen.push(u);
        }
    }
    seen.len()
}

fn locations(
    result: &Value,
    cwd: &Path,
    none: &str,
    one: &str,
    many: &str,
) -> (String, usize, usize) {
    let found: Vec<&Value> = as_list(result)
        .into_iter()
        .filter(|v| location(v).is_some())
        .collect();
    let files = file_count(
        found
            .iter()
            .filter_map(|v| v.get("uri").or(v.get("targetUri"))?.as_str()),
    );
    let text = match found.as_slice() {
        [] => none.to_owned(),
        [only] => format!("{one} {}", format_location(only, cwd).unwrap_or_default()),
        all => {
            let lines: Vec<String> = all
                .iter()
                .filter_map(|v| format_location(v, cwd))
                .map(|l| format!("  {l}"))
                .collect();
            format!("Found {} {many}:\n{}", all.len(), lines.join("\n"))
        }
    };
    (text, found.len(), files)
}

/// Locations grouped by file, in the order their files first appear.
fn by_file<'a>(
    items: &[&'a Value],
    uri_of: impl Fn(&Value) -> Option<String>,
    cwd: &Path,
) -> Vec<(String, Vec<&'a Value>)> {
    let mut groups: Vec<(String, Vec<&Value>)> = Vec::new();
    for item in items {
        let Some(uri) = uri_of(item) else { continue };
        let path = shown_path(&uri, cwd);
        match groups.iter_mut().find(|(p, _)| *p == path) {
            Some((_, list)) => list.push(item),
            None => groups.push((path, vec![item])),
        }
    }
    groups
}

fn references(result: &Value, cwd: &Path) -> (String, usize, usize) {
    let found: Vec<&Value> = as_list(result)
        .into_iter()
        .filter(|v| location(v).is_some())
        .collect();
    let groups = by_file(&found, |v| location(v).map(|(u, _)| u), cwd);
    let text = match found.as_slice() {
        [] => NO_REFERENCES.to_owned(),
        [only] => format!(
            "Found 1 reference:\n  {}",
            format_location(only, cwd).unwrap_or_default()
        ),
        all => {
            let mut lines = vec![format!(
                "Found {} references across {} files:",
                all.len(),
                groups.len()
            )];
            for (path, list) in &groups {
                lines.push(format!("\n{path}:"));
                for v in list {
                    let start = location(v).and_then(|(_, s)| s);
                    lines.push(format!(
                        "  Line {}:{}",
                        pos(start, "line"),
                        pos(start, "character")
                    ));
                }
            }
            lines.join("\n")
        }
    };
    (text, found.len(), groups.len())
}

/// Hover `contents`: markup, a marked string, or a list of them.
fn hover_text(contents: &Value) -> String {
    match contents {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(hover_text)
            .collect::<Vec<_>>()
            .join("\n\n"),
        Value::Object(o) => o
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        _ => String::new(),
    }
}

fn hover(result: &Value) -> (String, usize, usize) {
    let Some(contents) = result.get("contents") else {
        return (NO_HOVER.to_owned(), 0, 0);
    };
    let text = hover_text(contents);
    if text.trim().is_empty() {
        return (NO_HOVER.to_owned(), 0, 0);
    }
    let text = match result.pointer("/range/start") {
        Some(start) => format!(
            "Hover info at {}:{}:\n\n{text}",
            pos(Some(start), "line"),
            pos(Some(start), "character")
        ),
        None => text,
    };
    (text, 1, 1)
}

/// LSP's `SymbolKind` names.
fn kind_name(v: &Value) -> &'static str {
    const KINDS: [&str; 26] = [
        "File",
        "Module",
        "Namespace",
        "Package",
        "Class",
        "Method",
        "Property",
        "Field",
        "Constructor",
        "Enum",
        "Interface",
        "Function",
        "Variable",
        "Constant",
        "String",
        "Number",
        "Boolean",
        "Array",
        "Object",
        "Key",
        "Null",
        "EnumMember",
        "Struct",
        "Event",
        "Operator",
        "TypeParameter",
    ];
    let kind = v.get("kind").and_then(Value::as_u64).unwrap_or(0) as usize;
    kind.checked_sub(1)
        .and_then(|i| KINDS.get(i))
        .copied()
        .unwrap_or("Unknown")
}

fn name(v: &Value) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or("")
}

fn document_symbols(result: &Value) -> (String, usize, usize) {
    fn walk(symbol: &Value, depth: usize, out: &mut Vec<String>) {
        // DocumentSymbol has `range`; SymbolInformation has `location.range`.
        let start = symbol
            .pointer("/range/start")
            .or_else(|| symbol.pointer("/location/range/start"));
        out.push(format!(
            "{}{}: {} (line {})",
            "  ".repeat(depth),
            kind_name(symbol),
            name(symbol),
            pos(start, "line")
        ));
        for child in symbol
            .get("children")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            walk(child, depth + 1, out);
        }
    }
    let mut lines = Vec::new();
    for symbol in as_list(result) {
        walk(symbol, 0, &mut lines);
    }
    match lines.is_empty() {
        true => ("No symbols found in this document.".to_owned(), 0, 0),
        false => {
            let n = lines.len();
            (lines.join("\n"), n, 1)
        }
    }
}

fn workspace_symbols(result: &Value, cwd: &Path) -> (String, usize, usize) {
    let found: Vec<&Value> = as_list(result)
        .into_iter()
        .filter(|v| v.pointer("/location/uri").is_some())
        .collect();
    if found.is_empty() {
        return (NO_WORKSPACE_SYMBOLS.to_owned(), 0, 0);
    }
    let groups = by_file(
        &found,
        |v| v.pointer("/location/uri")?.as_str().map(str::to_owned),
        cwd,
    );
    let plural = if found.len() == 1 { "" } else { "s" };
    let mut lines = vec![format!(
        "Found {} symbol{plural} in workspace:",
        found.len()
    )];
    for (path, list) in &groups {
        lines.push(format!("\n{path}:"));
        for s in list {
            let mut line = format!(
                "  {} ({}) - Line {}",
                name(s),
                kind_name(s),
                pos(s.pointer("/location/range/start"), "line")
            );
            if let Some(container) = s
                .get("containerName")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
            {
                line.push_str(&format!(" in {container}"));
            }
            lines.push(line);
        }
    }
    (lines.join("\n"), found.len(), groups.len())
}

fn prepare_call_hierarchy(result: &Value, cwd: &Path) -> (String, usize, usize) {
    let items = as_list(result);
    let Some(item) = items.first() else {
        return (
            "No call hierarchy item found at this location.".to_owned(),
            0,
            0,
        );
    };
    let uri = item.get("uri").and_then(Value::as_str).unwrap_or("");
    let text = format!(
        "Call hierarchy item: {} ({}) at {}:{}",
        name(item),
        kind_name(item),
        shown_path(uri, cwd),
        pos(item.pointer("/range/start"), "line")
    );
    (text, items.len(), 1)
}

fn calls(result: &Value, cwd: &Path, end: &str, which: &str, none: &str) -> (String, usize, usize) {
    let list = as_list(result);
    if list.is_empty() {
        return (none.to_owned(), 0, 0);
    }
    let mut lines = vec![format!("Found {} {which} call(s):", list.len())];
    let mut uris = Vec::new();
    for call in &list {
        let Some(item) = call.get(end) else { continue };
        let uri = item.get("uri").and_then(Value::as_str).unwrap_or("");
        uris.push(uri);
        lines.push(format!(
            "  {}: {} at {}:{}",
            kind_name(item),
            name(item),
            shown_path(uri, cwd),
            pos(item.pointer("/range/start"), "line")
        ));
        for range in call
            .get("fromRanges")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            lines.push(format!(
                "    - call at line {}",
                pos(range.get("start"), "line")
            ));
        }
    }
    (lines.join("\n"), list.len(), file_count(uris.into_iter()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn loc(file: &str, line: u64, ch: u64) -> Value {
        json!({"uri": format!("file:///p/{file}"), "range": {"start": {"line": line, "character": ch}, "end": {"line": line, "character": ch + 3}}})
    }

    #[test]
    fn every_operation_reads_as_claude_codes_text() {
        let cwd = Path::new("/p");
        let item = json!({"name": "greet", "kind": 12, "uri": "file:///p/lib.py", "range": {"start": {"line": 3, "character": 0}}});
        let cases = vec![
            (Operation::GoToDefinition, json!(null)),
            (Operation::GoToDefinition, json!([loc("lib.py", 3, 4)])),
            (
                Operation::GoToDefinition,
                json!([{"targetUri": "file:///elsewhere/x.py", "targetSelectionRange": {"start": {"line": 0, "character": 0}}}, loc("a.py", 1, 1)]),
            ),
            (
                Operation::FindReferences,
                json!([
                    loc("lib.py", 3, 4),
                    loc("main.py", 0, 17),
                    loc("main.py", 5, 0)
                ]),
            ),
            (Operation::FindReferences, json!([])),
            (
                Operation::Hover,
                json!({"contents": {"kind": "markdown", "value": "```python\ndef greet(name)\n```"}, "range": {"start": {"line": 3, "character": 4}}}),
            ),
            (
                Operation::Hover,
                json!({"contents": ["a", {"language": "python", "value": "b"}]}),
            ),
            (
                Operation::DocumentSymbol,
                json!([{"name": "Greeter", "kind": 5, "range": {"start": {"line": 0}}, "children": [{"name": "hello", "kind": 6, "range": {"start": {"line": 1}}}]}]),
            ),
            (
                Operation::WorkspaceSymbol,
                json!([{"name": "greet", "kind": 12, "location": loc("lib.py", 3, 4), "containerName": "lib"}]),
            ),
            (Operation::PrepareCallHierarchy, json!([item.clone()])),
            (
                Operation::IncomingCalls,
                json!([{"from": item.clone(), "fromRanges": [{"start": {"line": 7, "character": 2}}]}]),
            ),
            (Operation::OutgoingCalls, json!([])),
        ];
        let got: Vec<(String, usize, usize)> =
            cases.iter().map(|(op, v)| format(*op, v, cwd)).collect();
        let want: Vec<(String, usize, usize)> = vec![
            (NO_DEFINITION.into(), 0, 0),
            ("Defined in lib.py:4:5".into(), 1, 1),
            ("Found 2 definitions:\n  /elsewhere/x.py:1:1\n  a.py:2:2".into(), 2, 2),
            ("Found 3 references across 2 files:\n\nlib.py:\n  Line 4:5\n\nmain.py:\n  Line 1:18\n  Line 6:1".into(), 3, 2),
            (NO_REFERENCES.into(), 0, 0),
            ("Hover info at 4:5:\n\n```python\ndef greet(name)\n```".into(), 1, 1),
            ("a\n\nb".into(), 1, 1),
            ("Class: Greeter (line 1)\n  Method: hello (line 2)".into(), 2, 1),
            ("Found 1 symbol in workspace:\n\nlib.py:\n  greet (Function) - Line 4 in lib".into(), 1, 1),
            ("Call hierarchy item: greet (Function) at lib.py:4".into(), 1, 1),
            ("Found 1 incoming call(s):\n  Function: greet at lib.py:4\n    - call at line 8".into(), 1, 1),
            ("No outgoing calls found (this location doesn't call other functions).".into(), 0, 0),
        ];
        assert_eq!(got, want);
    }
}
