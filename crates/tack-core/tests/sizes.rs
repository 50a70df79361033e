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
