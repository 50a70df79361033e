//! Rules: the Markdown files of a `.claude/rules/` folder (nested folders
//! too), the user's (`<home>/.claude/rules/`) and each project directory's.
//!
//! A rule without a `paths` list in its frontmatter is a memory file like
//! CLAUDE.md: it loads at the start, at its place in the memory order
//! (`memory_files.rs`), with its `@path` imports. A rule with
//! `paths: [globs]` is a [`PathRule`]: only its frontmatter is read at the
//! start, and its body is loaded the first time the session touches a file
//! that one of its globs matches (`path_rules.rs`), as Claude Code's
//! `nested_memory` attachments are: `Contents of <path>:` and the text, in a
//! system reminder after the tool results.
//!
//! Globs are matched gitignore-style against the file's path relative to the
//! folder holding `.claude/` (for the user's rules, the project): `*.ts`
//! matches at any depth, `src/**` everything under `src`, `{ts,tsx}`
//! alternatives. A file outside that folder matches none of its rules.
//!
//! A folder with no `rules/` costs one failed `stat`.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Folders below a rules folder that are looked into.
const MAX_RULE_DEPTH: usize = 8;
/// Most rule files read from one rules folder.
const MAX_RULE_FILES: usize = 1_000;
/// Most bytes read to find a rule's frontmatter (a `paths` list must close
/// within them).
const MAX_FRONTMATTER_BYTES: u64 = 64 * 1024;

/// The `.md` files of the rules folder `dir` and of its folders, in name
/// order, a folder's files before its sub-folders'. No folder: empty.
pub(crate) fn rule_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, 0, &mut out);
    out
}

fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    let (dirs, files): (Vec<PathBuf>, Vec<PathBuf>) = entries.into_iter().partition(|p| p.is_dir());
    for file in files {
        if out.len() >= MAX_RULE_FILES {
            return;
        }
        if file.extension().is_some_and(|e| e == "md") {
            out.push(file);
        }
    }
    if depth + 1 < MAX_RULE_DEPTH {
        for sub in dirs {
            collect(&sub, depth + 1, out);
        }
    }
}

/// The `paths` globs of the rule at `path`, read from its frontmatter alone
/// (the body is not read). `None`: no frontmatter, no `paths`, or an empty
/// list, which makes the rule load at the start.
pub(crate) fn rule_paths(path: &Path) -> Option<Vec<String>> {
    let mut head = String::new();
    fs::File::open(path)
        .ok()?
        .take(MAX_FRONTMATTER_BYTES)
        .read_to_string(&mut head)
        .ok()?;
    let (frontmatter, _) = split_frontmatter(&head);
    parse_paths(frontmatter?).filter(|p| !p.is_empty())
}

/// The frontmatter of `text` (between a first line `---` and the next line
/// `---`, either with trailing blanks, after a byte-order mark) and the rest;
/// `None` and all of `text` without one. The one splitter of every markdown
/// file with a frontmatter: rules, commands, skills, output styles, agents.
pub fn split_frontmatter(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .split_once('\n')
        .and_then(|(first, rest)| (first.trim_end() == "---").then_some(rest))
    else {
        return (None, text);
    };
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (Some(&rest[..at]), &rest[at + line.len()..]);
        }
        at += line.len();
    }
    (None, text)
}

/// The `paths` key of a frontmatter: a string (globs split at commas outside
/// braces), a flow list `[a, "b"]` or a block list of `- item` lines.
fn parse_paths(frontmatter: &str) -> Option<Vec<String>> {
    let mut lines = frontmatter.lines();
    let value = lines.find_map(|l| l.strip_prefix("paths:"))?.trim();
    if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        return Some(split_globs(inner));
    }
    if !value.is_empty() {
        return Some(split_globs(value));
    }
    let items = lines
        .map(str::trim)
        .take_while(|l| l.starts_with('-') || l.is_empty() || l.starts_with('#'))
        .filter_map(|l| l.strip_prefix('-'))
        .map(unquote)
        .filter(|g| !g.is_empty())
        .collect();
    Some(items)
}

/// Globs separated by commas outside `{…}`, each unquoted.
fn split_globs(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in value.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(unquote(&value[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(unquote(&value[start..]));
    out.retain(|g| !g.is_empty());
    out
}

fn unquote(item: &str) -> String {
    let item = item.trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| item.strip_prefix(*q).and_then(|i| i.strip_suffix(*q)));
    unquoted.unwrap_or(item).trim().to_owned()
}

/// One rule's globs, gitignore-style: a glob with no `/` but a trailing one
/// matches at any depth; each also matches what is under what it names.
pub(crate) fn glob_set(patterns: &[String]) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let trimmed = pattern.trim_start_matches("./").trim_start_matches('/');
        let bare = trimmed.trim_end_matches('/');
        let anchored = if bare.contains('/') || bare.starts_with("**") {
            bare.to_owned()
        } else {
            format!("**/{bare}")
        };
        for glob in [anchored.clone(), format!("{anchored}/**")] {
            if let Ok(g) = GlobBuilder::new(&glob).literal_separator(true).build() {
                builder.add(g);
            }
        }
    }
    builder.build().unwrap_or_else(|_| GlobSet::empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn globs(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn paths_in_each_frontmatter_form() {
        assert_eq!(
            parse_paths("paths: src/**/*.{ts,tsx}, \"lib/*.rs\""),
            Some(globs(&["src/**/*.{ts,tsx}", "lib/*.rs"]))
        );
        assert_eq!(
            parse_paths("a: 1\npaths: ['a/**', \"b\"]"),
            Some(globs(&["a/**", "b"]))
        );
        assert_eq!(
            parse_paths("paths:\n  - \"**/*.go\"\n  # comment\n  - go.mod\nother: x\n- not/this"),
            Some(globs(&["**/*.go", "go.mod"]))
        );
        assert_eq!(parse_paths("description: x"), None);
        assert_eq!(parse_paths("paths:\n"), Some(Vec::new()));
    }

    #[test]
    fn frontmatter_is_split_from_the_body() {
        assert_eq!(
            split_frontmatter("---\npaths: x\n---\n# Body\n"),
            (Some("paths: x\n"), "# Body\n")
        );
        assert_eq!(split_frontmatter("# No\n---\n"), (None, "# No\n---\n"));
        assert_eq!(
            split_frontmatter("\u{feff}--- \r\na: 1\r\n---\t\r\nbody"),
            (Some("a: 1\r\n"), "body")
        );
        assert_eq!(split_frontmatter("---"), (None, "---"));
        assert_eq!(
            split_frontmatter("---\nunclosed\n"),
            (None, "---\nunclosed\n")
        );
    }

    #[test]
    fn globs_match_gitignore_style_relative_to_the_base() {
        let set = glob_set(&globs(&["*.test.ts", "src/api/**/*.rs", "docs/"]));
        let hits: Vec<bool> = [
            "a.test.ts",
            "deep/in/b.test.ts",
            "src/api/v1/x.rs",
            "src/api/x.rs",
            "src/other/x.rs",
            "docs/a/b.md",
            "a.ts",
        ]
        .iter()
        .map(|p| set.is_match(Path::new(p)))
        .collect();
        assert_eq!(hits, vec![true, true, true, true, false, true, false]);
    }
}
