//! Reading the text of one file: the paths it names, its module-level `use`
//! items, the names it defines, and the test-only modules it declares.

use std::collections::BTreeSet;
use std::path::Path;

/// A module's path from its crate's root (`["query", "state"]`).
pub(super) type ModPath = Vec<String>;

/// One path the code names (`crate::a::B`), with the name it is bound to
/// when a `use` renames it (`as C`). A glob ends in `*`; `{self, ..}` in `self`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NamedPath {
    pub path: Vec<String>,
    pub alias: Option<String>,
}

/// The keywords after which a module defines a name.
const ITEM_KEYWORDS: [&str; 10] = [
    "struct",
    "enum",
    "union",
    "trait",
    "type",
    "fn",
    "const",
    "static",
    "mod",
    "macro_rules",
];

/// The module a file under `src/` is (`[]` for the crate root); `None` for
/// the roots of other binaries (`src/bin/`).
pub(super) fn module_of(relative: &Path) -> Option<ModPath> {
    let mut parts: ModPath = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let file = parts.pop()?;
    let name = file.strip_suffix(".rs")?;
    if !matches!(name, "mod" | "lib" | "main") {
        parts.push(name.to_owned());
    }
    Some(parts)
}

/// `head` (what precedes a keyword on its line) is nothing or a visibility:
/// the keyword starts a module-level item.
fn item_start(head: &str) -> bool {
    head.is_empty() || head == "pub " || (head.starts_with("pub(") && head.ends_with(") "))
}

/// The `mod` a line declares at module level, and whether it is a file
/// (`mod x;`) rather than inline (`mod x {`).
fn declared_mod(line: &str) -> Option<(&str, bool)> {
    let at = line.find("mod ")?;
    if !item_start(&line[..at]) {
        return None;
    }
    let rest = &line[at + 4..];
    let name = rest.trim_end_matches(['{', ';', ' ']);
    Some((name, rest.ends_with(';')))
}

/// After the `#[cfg(test)]` at `lines[at]` and any other attributes: the
/// line of the test module it marks, if it marks one, and the `#[path]` given.
fn test_mod_line<'a>(lines: &[&'a str], at: usize) -> Option<(usize, Option<&'a str>)> {
    let mut path = None;
    for (i, line) in lines.iter().enumerate().skip(at + 1) {
        if let Some(p) = line
            .strip_prefix("#[path = \"")
            .and_then(|r| r.strip_suffix("\"]"))
        {
            path = Some(p);
        } else if !line.starts_with("#[") {
            return declared_mod(line).map(|_| (i, path));
        }
    }
    None
}

/// The code of a file without its `//` comments (doc comments included) and
/// without its `#[cfg(test)]` modules.
pub(super) fn without_comments(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] == "#[cfg(test)]"
            && let Some((at, _)) = test_mod_line(&lines, i)
        {
            i = at + 1;
            if declared_mod(lines[at]).is_some_and(|(_, file)| !file) {
                // An inline module: up to its closing brace (rustfmt's column 0).
                while i < lines.len() && lines[i] != "}" {
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        let line = lines[i];
        out.push(line.split_once("//").map_or(line, |(code, _)| code));
        i += 1;
    }
    out.join("\n")
}

/// The modules a file declares under `#[cfg(test)]` in their own files: each
/// module's name and the `#[path]` its file is at, if one is given.
pub(super) fn test_modules(source: &str) -> Vec<(String, Option<String>)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if *line != "#[cfg(test)]" {
            continue;
        }
        if let Some((at, path)) = test_mod_line(&lines, i)
            && let Some((name, true)) = declared_mod(lines[at])
        {
            out.push((name.to_owned(), path.map(str::to_owned)));
        }
    }
    out
}

/// The identifier (or `*`) `code` starts with, and the rest.
fn segment(code: &str) -> Option<(&str, &str)> {
    let code = code.trim_start();
    let len = if code.starts_with('*') {
        1
    } else {
        code.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(code.len())
    };
    (len > 0).then(|| code.split_at(len))
}

/// The path starting at `code` (after `prefix`), each name of a `{a, b::c}`
/// group its own path, with the `as` name each is bound to.
fn parse_path(code: &str, prefix: &[String], out: &mut Vec<NamedPath>) {
    let mut path = prefix.to_vec();
    let mut alias = None;
    let mut rest = code;
    while let Some((name, after_name)) = segment(rest) {
        path.push(name.to_owned());
        let after_name = after_name.trim_start();
        let Some(after) = after_name.strip_prefix("::") else {
            alias = after_name
                .strip_prefix("as")
                .filter(|r| r.starts_with(char::is_whitespace))
                .and_then(segment)
                .map(|(alias, _)| alias.to_owned());
            break;
        };
        let Some(group) = after.trim_start().strip_prefix('{') else {
            rest = after;
            continue;
        };
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    parse_path(&group[start..i], &path, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parse_path(&group[start..i], &path, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    if path.len() > prefix.len() {
        out.push(NamedPath { path, alias });
    }
}

/// Every path in `code` that starts with `crate::`, `super::` or `self::`
/// (not `$crate::` in a macro).
pub(super) fn module_paths(code: &str) -> Vec<NamedPath> {
    let mut out = Vec::new();
    for keyword in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(keyword) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            parse_path(&code[at..], &[], &mut out);
        }
    }
    out
}

/// Every path of the module-level `use` items in `code` (private ones too: a
/// child sees them as `super::Name`), as written.
pub(super) fn use_items(code: &str) -> Vec<NamedPath> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("use ") {
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        if !item_start(&code[line_start..at]) {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |i| at + i);
        parse_path(&code[at + 4..end], &[], &mut out);
    }
    out
}

/// The names `code` defines (`struct X`, `fn f`, `mod m`, ...); methods and
/// associated items count too, which is more than the module's own.
pub(super) fn defined_names(code: &str) -> BTreeSet<String> {
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .filter(|w| ITEM_KEYWORDS.contains(&w[0]))
        .map(|w| w[1].to_owned())
        .collect()
}

/// `path` as seen from the module `from`: `crate::a::b` → `[a, b]`,
/// `super::c` from `[a, b]` → `[a, c]`.
pub(super) fn resolve(from: &[String], path: &[String]) -> ModPath {
    let mut base = from.to_vec();
    let mut rest = path;
    if rest.first().is_some_and(|p| p == "crate") {
        base.clear();
        rest = &rest[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => drop(base.pop()),
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    base.extend_from_slice(rest);
    base
}
