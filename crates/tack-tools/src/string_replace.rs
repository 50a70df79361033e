//! Exact-string replacement shared by Edit and MultiEdit: the spec's checks and
//! error strings, line-ending preservation, atomic write, and the numbered
//! snippet of the result.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{ToolEnv, ToolError, ToolOutput, ToolResult};

use crate::file_state::{self, Need};
use crate::file_write::write_file;
use crate::line_endings::{self, LineEnding};
use crate::numbered_lines;
use crate::write::existing_target;

/// Lines of context shown around a change.
const SNIPPET_CONTEXT: usize = 4;
/// At most this many lines of snippet.
const SNIPPET_MAX_LINES: usize = 60;

/// One exact-text replacement.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct EditSpec {
    /// The exact text to replace (whitespace and indentation included).
    pub(crate) old_string: String,
    /// The text to replace it with; must differ from `old_string`.
    pub(crate) new_string: String,
    /// Replace every occurrence of `old_string` (default false: it must occur exactly once).
    #[serde(default)]
    pub(crate) replace_all: bool,
}

pub(crate) fn not_found(old: &str) -> String {
    format!("String to replace not found in file.\nString: {old}")
}

pub(crate) fn too_many(n: usize, old: &str) -> String {
    format!(
        "Found {n} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {old}"
    )
}

pub(crate) const NO_CHANGES: &str =
    "No changes to make: old_string and new_string are exactly the same.";
const FILE_EXISTS: &str = "Cannot create new file - file already exists.";

/// Applies one edit to `content`.
fn apply_one(content: &str, edit: &EditSpec) -> Result<String, String> {
    if edit.old_string == edit.new_string {
        return Err(NO_CHANGES.into());
    }
    if edit.old_string.is_empty() {
        // An empty old_string fills an empty (or new) file.
        return if content.is_empty() {
            Ok(edit.new_string.clone())
        } else {
            Err(FILE_EXISTS.into())
        };
    }
    match content.matches(edit.old_string.as_str()).count() {
        0 => Err(not_found(&edit.old_string)),
        1 => Ok(content.replacen(&edit.old_string, &edit.new_string, 1)),
        _ if edit.replace_all => Ok(content.replace(&edit.old_string, &edit.new_string)),
        n => Err(too_many(n, &edit.old_string)),
    }
}

/// Applies `edits` in order to the file at `file_path`, all or nothing.
/// `multi` only changes the wording of errors and of the result.
pub(crate) fn edit_file(
    env: &ToolEnv,
    file_path: &str,
    edits: &[EditSpec],
    multi: bool,
) -> ToolResult {
    let path = file_state::resolve(env, file_path);
    let target = existing_target(&path)?;
    let original = match &target {
        Some(target) => {
            let (meta, bytes) = crate::regular_file::read_existing(target, &path, "Edit")?;
            file_state::check_fresh(env, &path, &meta, &bytes, Need::MatchedText)?;
            if edits.iter().any(|e| e.old_string == e.new_string) {
                return Err(ToolError::new(NO_CHANGES));
            }
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
            {
                return Err(ToolError::new(
                    "File is a Jupyter Notebook. Use the NotebookEdit tool to edit this file.",
                ));
            }
            Some(String::from_utf8(bytes).map_err(|_| {
                ToolError::new("File is not valid UTF-8 text; Edit only changes text files.")
            })?)
        }
        None if edits.first().is_some_and(|e| e.old_string.is_empty()) => None,
        None => {
            return Err(ToolError::new(format!(
                "File does not exist. Current working directory: {}",
                env.cwd().display()
            )));
        }
    };

    let before = original.as_deref().unwrap_or("");
    let ending = line_endings::detect(before);
    let work_before = match ending {
        LineEnding::Crlf => line_endings::to_lf(before).into_owned(),
        LineEnding::Lf => before.to_string(),
    };
    let mut work = work_before.clone();
    for (i, edit) in edits.iter().enumerate() {
        let edit = match ending {
            LineEnding::Crlf => EditSpec {
                old_string: line_endings::to_lf(&edit.old_string).into_owned(),
                new_string: line_endings::to_lf(&edit.new_string).into_owned(),
                replace_all: edit.replace_all,
            },
            LineEnding::Lf => edit.clone(),
        };
        work = apply_one(&work, &edit).map_err(|message| {
            ToolError::new(if multi {
                format!("Edit {} of {}: {message}", i + 1, edits.len())
            } else {
                message
            })
        })?;
    }
    let snippet = snippet(&work_before, &work);
    let final_text = line_endings::restore(work, ending);
    let write_to = target.unwrap_or_else(|| path.clone());
    write_file(env, &write_to, &final_text)
        .map_err(|e| ToolError::new(format!("Could not write {}: {e}", path.display())))?;
    file_state::record_written(env, &path, final_text.as_bytes());

    let headline = match (original.is_none(), multi) {
        (true, _) => format!("File created successfully at: {}", path.display()),
        (false, false) => format!("The file {} has been updated.", path.display()),
        (false, true) => format!("Applied {} edits to {}.", edits.len(), path.display()),
    };
    let text = format!("{headline} Here's a snippet of the result:\n{snippet}");
    Ok(ToolOutput::text(text).with_structured(structured(&path, edits)))
}

fn structured(path: &Path, edits: &[EditSpec]) -> Value {
    json!({
        "filePath": path,
        "edits": edits.iter().map(|e| json!({
            "old_string": e.old_string, "new_string": e.new_string, "replace_all": e.replace_all,
        })).collect::<Vec<_>>(),
    })
}

/// Numbered lines of `after` around the region that differs from `before`.
fn snippet(before: &str, after: &str) -> String {
    let prefix = before
        .bytes()
        .zip(after.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let max_suffix = before.len().min(after.len()) - prefix;
    let suffix = before
        .bytes()
        .rev()
        .zip(after.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let change_end = after.len() - suffix;
    let first = after.as_bytes()[..prefix]
        .iter()
        .filter(|b| **b == b'\n')
        .count();
    let last = first
        + after.as_bytes()[prefix..change_end.max(prefix)]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
    let from = first.saturating_sub(SNIPPET_CONTEXT);
    let to = (last + SNIPPET_CONTEXT).min(from + SNIPPET_MAX_LINES - 1);
    let mut out = String::new();
    for (i, line) in numbered_lines::lines(after)
        .enumerate()
        .skip(from)
        .take(to + 1 - from)
    {
        numbered_lines::push_line(&mut out, i + 1, line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_shows_context_around_the_change() {
        let before = (1..=20).map(|i| format!("line {i}\n")).collect::<String>();
        let after = before.replace("line 10\n", "changed\n");
        let expected = (6..=14)
            .map(|i| {
                format!(
                    "{i}\t{}\n",
                    if i == 10 {
                        "changed".to_string()
                    } else {
                        format!("line {i}")
                    }
                )
            })
            .collect::<String>();
        assert_eq!(snippet(&before, &after), expected);
    }
}
