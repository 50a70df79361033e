//! The house rule on size, for every crate's `src/`: no function over
//! [`MAX_FN_LINES`] lines, no file over [`MAX_FILE_LINES`]. Functions are
//! found by the layout rustfmt gives them: a line starting with `fn` (after
//! its qualifiers), its body's `{` at the end of a line, and the body's end
//! the next line holding only `}` at the same indentation.

use std::fs;

use pretty_assertions::assert_eq;

use crate::module_graph::{crate_dirs, rust_files};

const MAX_FN_LINES: usize = 150;
const MAX_FILE_LINES: usize = 1_000;

/// (file under `crates/`, function) over the limit, each with its owner.
/// Remove an entry when its function is split.
const KNOWN_LONG: &[(&str, &str)] = &[];

/// The name of the function a line declares, if it starts one.
fn declared_fn(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after.trim_start();
        if rest.starts_with('(') {
            rest = rest.split_once(')')?.1.trim_start();
        }
    }
    for qualifier in ["const ", "async ", "unsafe ", "extern \"C\" "] {
        if let Some(after) = rest.strip_prefix(qualifier) {
            rest = after.trim_start();
        }
    }
    let name = rest.strip_prefix("fn ")?;
    let len = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    (len > 0).then(|| &name[..len])
}

/// (function, lines from its signature to its closing brace) for each
/// function in `source` longer than `limit`.
fn long_functions(source: &str, limit: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = declared_fn(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        // The line that opens the body; a declaration (`;`) or a one-line
        // body (`}`) ends before one.
        let Some(open) = lines[start..].iter().position(|l| {
            let l = l.trim_end();
            l.ends_with('{') || l.ends_with(';') || l.ends_with('}')
        }) else {
            continue;
        };
        if !lines[start + open].trim_end().ends_with('{') {
            continue;
        }
        let Some(end) = lines[start + open + 1..]
            .iter()
            .position(|l| l.trim_end() == close)
        else {
            continue;
        };
        let length = open + end + 2;
        if length > limit {
            out.push((name.to_owned(), length));
        }
    }
    out
}

#[test]
fn no_function_or_file_is_over_the_limit() {
    let crates = crate_dirs();
    let mut long = Vec::new();
    let mut files_seen = 0;
    for dir in crates.values() {
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        for file in files {
            files_seen += 1;
            let source = fs::read_to_string(&file).expect("readable");
            let relative = file
                .strip_prefix(dir.parent().expect("crates/"))
                .expect("under crates/")
                .to_string_lossy()
                .into_owned();
            let file_lines = source.lines().count();
            if file_lines > MAX_FILE_LINES {
                long.push(format!("{relative}: {file_lines} lines"));
            }
            for (name, lines) in long_functions(&source, MAX_FN_LINES) {
                if !KNOWN_LONG.contains(&(relative.as_str(), name.as_str())) {
                    long.push(format!("{relative}: fn {name}, {lines} lines"));
                }
            }
        }
    }
    assert!(files_seen > 100, "only {files_seen} files found");
    assert_eq!(long, Vec::<String>::new());
}

#[test]
fn function_lengths_follow_rustfmt_layout() {
    let body = "        x += 1;\n".repeat(3);
    let source = format!(
        "pub(crate) async fn long(\n    a: u32,\n) -> u32 {{\n{body}}}\n\
         fn declared();\n\
         fn one_line() -> u32 {{ 1 }}\n\
         impl T {{\n    fn inner()\n    where\n        X: Y,\n    {{\n{body}    }}\n}}\n"
    );
    assert_eq!(
        long_functions(&source, 4),
        vec![("long".to_owned(), 7), ("inner".to_owned(), 8)]
    );
}

/// The most fields a struct of the session runtime may have: a session is
/// built from named parts, not from bags every feature threads a field
/// through.
const MAX_RUNTIME_STRUCT_FIELDS: usize = 15;

/// (struct, fields) for each struct in `source`, laid out as rustfmt lays
/// it out, with more than `limit` named fields.
fn wide_structs(source: &str, limit: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let rest = match trimmed.strip_prefix("pub") {
            Some(after) if after.starts_with('(') => {
                after.split_once(')').map(|(_, r)| r.trim_start())
            }
            Some(after) => Some(after.trim_start()),
            None => Some(trimmed),
        };
        let Some(decl) = rest.and_then(|r| r.strip_prefix("struct ")) else {
            continue;
        };
        if !line.trim_end().ends_with('{') {
            continue;
        }
        let name: String = decl
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let indent = &line[..line.len() - trimmed.len()];
        let (close, field_indent) = (format!("{indent}}}"), format!("{indent}    "));
        let fields = lines[start + 1..]
            .iter()
            .take_while(|l| l.trim_end() != close)
            .filter(|l| {
                let Some(f) = l.strip_prefix(&field_indent) else {
                    return false;
                };
                let f = f
                    .strip_prefix("pub")
                    .map_or(f, |r| match r.split_once(')') {
                        Some((_, after)) if r.starts_with('(') => after,
                        _ => r,
                    });
                let f = f.trim_start();
                let ident = f
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(f.len());
                ident > 0 && f[ident..].trim_start().starts_with(':') && !f.starts_with("//")
            })
            .count();
        if fields > limit {
            out.push((name, fields));
        }
    }
    out
}

#[test]
fn no_struct_of_the_runtime_has_more_than_fifteen_fields() {
    let crates = crate_dirs();
    let dir = &crates["tack-runtime"];
    let mut files = Vec::new();
    rust_files(&dir.join("src"), &mut files);
    let mut wide = Vec::new();
    for file in &files {
        let source = fs::read_to_string(file).expect("readable");
        for (name, fields) in wide_structs(&source, MAX_RUNTIME_STRUCT_FIELDS) {
            let file = file.strip_prefix(dir).expect("in the crate").display();
            wide.push(format!("{file}: struct {name}, {fields} fields"));
        }
    }
    assert!(files.len() > 50, "only {} files found", files.len());
    assert_eq!(wide, Vec::<String>::new());
}

#[test]
fn struct_fields_are_counted_as_rustfmt_lays_them_out() {
    let source = "pub(crate) struct Wide<'a> {\n    pub a: u32,\n    /// b: not a field\n    pub(crate) b: &'a str,\n    c: Vec<(u8,\n        u8)>,\n}\n\
                  struct Unit;\n\
                  mod m {\n    pub struct Inner {\n        x: u8,\n        y: u8,\n    }\n}\n";
    assert_eq!(
        wide_structs(source, 1),
        vec![("Wide".to_owned(), 3), ("Inner".to_owned(), 2)]
    );
}
