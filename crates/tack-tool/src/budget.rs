//! The tool result budget (seed 004, step 5, `applyToolResultBudget`): a result
//! too large for the context is stored in the session's tool-results directory
//! and the model gets a preview plus the file's path, which it can Read (with
//! offset/limit) or Grep.
//!
//! Two limits, both in characters of text:
//! - per result ([`apply_result_budget`]): seed 003 says results "over a
//!   threshold" go to disk without giving the number; Claude Code's default
//!   per-tool cap is 50,000 characters, which is what [`DEFAULT_MAX_RESULT_CHARS`] uses;
//! - per message ([`apply_message_budget`]): all results sent back in one user
//!   message together; [`DEFAULT_MAX_MESSAGE_CHARS`] = 200,000 (four full-size
//!   results), persisting the largest results first until the rest fits.
//!
//! Tools whose output is already bounded and that the model would have to Read
//! back anyway (Read itself) opt out through [`crate::Tool::max_result_chars`];
//! the loop should leave their results out of both budgets. Results with
//! non-text blocks (images) are left as they are.

use std::io;
use std::path::{Path, PathBuf};

use tack_protocol::{ContentBlock, ToolResultContent};

use crate::output::ToolOutput;

/// Characters of text above which one tool result is stored on disk.
pub const DEFAULT_MAX_RESULT_CHARS: usize = 50_000;
/// Characters of tool-result text allowed in one message, all results together.
pub const DEFAULT_MAX_MESSAGE_CHARS: usize = 200_000;
/// Characters of a stored result kept inline as its preview.
pub const PREVIEW_CHARS: usize = 2_000;

/// Stores `output` in `dir/<tool_use_id>.txt` if its text is longer than
/// `max_chars` characters, and returns a preview with the file's path instead.
/// Results with non-text blocks, and results within the limit, come back
/// unchanged. If the file cannot be written, the result is cut to the preview
/// with a note saying so, rather than sent whole.
pub fn apply_result_budget(
    tool_use_id: &str,
    output: ToolOutput,
    dir: &Path,
    max_chars: usize,
) -> ToolOutput {
    match text_of(&output) {
        Some(text) if text.chars().count() > max_chars => persist(tool_use_id, output, &text, dir),
        _ => output,
    }
}

/// Applies the per-message budget to all results of one message: while their
/// total text exceeds `max_total_chars`, the largest result not yet stored is
/// stored (as by [`apply_result_budget`]). Order and ids are unchanged.
pub fn apply_message_budget(
    results: &mut [(String, ToolOutput)],
    dir: &Path,
    max_total_chars: usize,
) {
    let mut sizes: Vec<Option<usize>> = results
        .iter()
        .map(|(_, out)| text_of(out).map(|t| t.chars().count()))
        .collect();
    let mut stored = vec![false; results.len()];
    loop {
        let total: usize = sizes.iter().flatten().sum();
        if total <= max_total_chars {
            return;
        }
        let largest = (0..results.len())
            .filter(|&i| !stored[i] && sizes[i].is_some_and(|s| s > PREVIEW_CHARS))
            .max_by_key(|&i| sizes[i]);
        let Some(i) = largest else { return };
        let (id, out) = &mut results[i];
        let placeholder = ToolOutput::text(String::new());
        let taken = std::mem::replace(out, placeholder);
        *out = apply_result_budget(id, taken, dir, 0);
        sizes[i] = text_of(out).map(|t| t.chars().count());
        stored[i] = true;
    }
}

/// The result's text, if it has no non-text blocks.
fn text_of(output: &ToolOutput) -> Option<String> {
    match &output.content {
        ToolResultContent::Text(t) => Some(t.clone()),
        ToolResultContent::Blocks(blocks) => {
            let all_text = blocks
                .iter()
                .all(|b| matches!(b, ContentBlock::Text { .. }));
            all_text.then(|| output.content.to_text())
        }
    }
}

fn persist(tool_use_id: &str, output: ToolOutput, text: &str, dir: &Path) -> ToolOutput {
    let preview = preview(text);
    let size = human_size(text.len());
    let message = match write_result(tool_use_id, text, dir) {
        Ok(path) => format!(
            "<persisted-output>\nThis result was too large to show in full ({size}, {} characters). The full output is saved in: {}\nRead it with offset/limit, or Grep it, to see the rest.\n\nPreview (first {} characters):\n{preview}\n</persisted-output>",
            text.chars().count(),
            path.display(),
            preview.chars().count()
        ),
        Err(e) => format!(
            "<truncated-output>\nThis result was too large to show in full ({size}) and could not be saved to a file ({e}). Only its beginning is shown:\n{preview}\n</truncated-output>"
        ),
    };
    ToolOutput {
        content: ToolResultContent::Text(message),
        ..output
    }
}

fn write_result(tool_use_id: &str, text: &str, dir: &Path) -> io::Result<PathBuf> {
    // Ids come from the API (`toolu_…`); anything else is made filename-safe.
    let name: String = tool_use_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = dir.join(format!("{name}.txt"));
    // Under the config dir: the user's alone, as the transcript is.
    tack_sys::private_file::write_private(&path, text.as_bytes())?;
    Ok(path)
}

/// The first [`PREVIEW_CHARS`] characters, cut at the last newline if that keeps
/// at least half of them.
fn preview(text: &str) -> &str {
    let cut = text
        .char_indices()
        .nth(PREVIEW_CHARS)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..cut];
    match head.rfind('\n') {
        Some(nl) if cut < text.len() && nl >= cut / 2 => &head[..nl],
        _ => head,
    }
}

fn human_size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}
