//! Rules with `paths` frontmatter, loaded when a tool call touches a file
//! they match (tack-core's `context::PathRules`; what loads at the start is
//! tack-core's memory discovery).
//!
//! [`instructions_for_tool_call`] is the one place a rule loads mid-session:
//! the gate calls it after each successful call, and what it returns joins
//! the message after the tool results (`PostToolUseOutcome::attachments`),
//! and the gate fires InstructionsLoaded for each file it loaded.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tack_core::context::{LoadedFile, PathRules};
use tack_tool::ToolEnv;

/// The file a call of `tool` touches, if it is a file tool: Read, Edit,
/// MultiEdit and Write name it in `file_path`, NotebookEdit in
/// `notebook_path`.
fn touched_file(tool: &str, input: &Value, env: &ToolEnv) -> Option<PathBuf> {
    let key = match tool {
        "Read" | "Edit" | "MultiEdit" | "Write" => "file_path",
        "NotebookEdit" => "notebook_path",
        _ => return None,
    };
    let path = input.get(key)?.as_str()?;
    Some(env.resolve(path))
}

/// What the call of `tool` with `input` loads: the file it touched and the
/// files it loaded (each with why; `attachment_text` is its text for the
/// model), and warnings for the user about what could not be read. Each
/// rule loads once a session.
pub(crate) fn instructions_for_tool_call(
    rules: &PathRules,
    tool: &str,
    input: &Value,
    env: &ToolEnv,
) -> Option<(PathBuf, Vec<LoadedFile>, Vec<String>)> {
    if rules.is_empty() {
        return None;
    }
    let file = lexical(&touched_file(tool, input, env)?);
    let (files, warnings) = rules.for_file(&file);
    Some((file, files, warnings))
}

/// `path` without `.` and `..` components (a model may write `src/../x`).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
