//! `@` mentions in a user message, resolved when the message is submitted,
//! whichever front end sent it (`-p`, stream-json, the terminal UI): `@path`
//! attaches a file's contents, `@server:uri` an MCP resource's, so the model
//! needs no tool call for what the user pointed at (as in Claude Code).
//!
//! A file is attached unless a deny rule keeps Read from it
//! ([`Gate::mention_read`]; a path outside the working directories is
//! attached, the user typed it): a mention the rules stop attaches nothing
//! (the model learns nothing of the file) and the user gets a notice naming
//! the path and the rule. Only small UTF-8 regular files are read, never a
//! device or FIFO. As in Claude Code, the model sees an attached file as a
//! Read call and its result, and the transcript gets an `attachment` record
//! of type `file` after the prompt.
//!
//! A message sent verbatim (the SDKs' `verbatim_prompts`) is not read for
//! mentions at all: [`resolve`] is not called for it.

use std::path::Path;

use serde_json::{Value, json};
use tack_protocol::content;
use tack_protocol::{ContentBlock, Message};

use crate::event::Notice;
use crate::gate::Gate;
use crate::mcp::SessionMcp;

/// Files attached per message, at most.
const MAX_FILES: usize = 10;
/// Larger files are not attached (the model can Read them in parts).
const MAX_BYTES: u64 = 256 * 1024;

/// What a message's mentions add: blocks for the model, notices for the
/// user, and the files' `attachment` values for the transcript.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Attached {
    pub blocks: Vec<ContentBlock>,
    pub notices: Vec<Notice>,
    pub files: Vec<Value>,
}

/// Resolves the mentions in `message`'s text: files relative to `cwd` (or
/// absolute), then resources of connected MCP servers (saved under
/// `resources` when large).
pub(crate) async fn resolve(
    message: &Message,
    cwd: &Path,
    gate: &Gate,
    mcp: Option<&SessionMcp>,
    resources: &Path,
) -> Attached {
    let texts: Vec<&str> = content::texts(&message.content).collect();
    let mut attached = Attached::default();
    for path in mentioned_paths(&texts) {
        attach_file(path, cwd, gate, &mut attached);
    }
    if let Some(mcp) = mcp {
        for text in texts {
            for mention in mcp.manager().resolve_mentions(text, resources).await {
                attached.blocks.extend(mention.to_blocks());
            }
        }
    }
    attached
}

/// The `@path` words of `texts`, each once, trailing punctuation dropped, at
/// most [`MAX_FILES`].
fn mentioned_paths<'a>(texts: &[&'a str]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let words = texts.iter().flat_map(|t| t.split_whitespace());
    for word in words {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches([',', '.', ';', ':', ')', '!', '?', '"', '\'']);
        if path.is_empty() || out.contains(&path) {
            continue;
        }
        if out.len() == MAX_FILES {
            break;
        }
        out.push(path);
    }
    out
}

/// Attaches `path` if it is a small text file no deny rule keeps from Read.
/// What is not a file (a directory, an MCP mention, a word that only starts
/// with `@`) is passed over in silence.
fn attach_file(path: &str, cwd: &Path, gate: &Gate, attached: &mut Attached) {
    let full = cwd.join(path);
    let Ok(meta) = std::fs::metadata(&full) else {
        return;
    };
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return;
    }
    if let Err(why) = gate.mention_read(&full) {
        attached
            .notices
            .push(Notice::warning(format!("@{path} was not attached: {why}")));
        return;
    }
    let Some(content) = tack_tools::read_small_text(&full, MAX_BYTES) else {
        return;
    };
    let file = full.display().to_string();
    let (blocks, record) = as_read(&file, path, &content);
    attached.blocks.extend(blocks);
    attached.files.push(record);
}

/// A file's content as the model sees it (a Read call and its result, each
/// a system reminder) and its transcript `attachment` value.
fn as_read(file: &str, shown: &str, content: &str) -> ([ContentBlock; 2], Value) {
    let call = json!({ "file_path": file });
    let blocks = [
        ContentBlock::text(format!(
            "<system-reminder>\nCalled the Read tool with the following input: {call}\n</system-reminder>"
        )),
        ContentBlock::text(format!(
            "<system-reminder>\nResult of calling the Read tool:\n{}</system-reminder>",
            tack_tools::numbered(content)
        )),
    ];
    let lines = content.lines().count();
    let record = json!({
        "type": "file",
        "filename": file,
        "content": {
            "type": "text",
            "file": {
                "filePath": file,
                "content": content,
                "numLines": lines,
                "startLine": 1,
                "totalLines": lines,
            },
        },
        "displayPath": shown,
    });
    (blocks, record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn mentions_are_words_that_start_with_an_at_each_once() {
        assert_eq!(
            mentioned_paths(&[
                "look at @src/lib.rs, and @src/lib.rs again; not me@example",
                "@src/ (@x.rs) @notes.txt.",
                "@",
            ]),
            vec!["src/lib.rs", "src/", "notes.txt"]
        );
        let many: Vec<String> = (0..12).map(|i| format!("@f{i}")).collect();
        let text = many.join(" ");
        assert_eq!(mentioned_paths(&[&text]).len(), MAX_FILES);
    }
}
