//! MCP content → what the model reads.
//!
//! | MCP content | becomes |
//! |---|---|
//! | text | a text block |
//! | image (png, jpeg, gif, webp, valid base64) | a base64 image block |
//! | image of another type | saved to a file, described in text |
//! | audio | saved to a file, described in text: the Messages API has no audio block |
//! | resource link | a text line naming it (`[Resource link: name (uri) ...]`) |
//! | embedded text resource | its text, headed by its URI |
//! | embedded blob resource | an image block for the four image types, else saved and described |
//!
//! Files go to `<session dir>/mcp-output/`, named after the tool_use id. A
//! result of text only is sent as one string; `structuredContent` is kept as
//! the structured output (and is the text when there is no content at all);
//! `isError` makes the result a tool error, its text the message.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{CallToolResult, ContentBlock as McpBlock, ResourceContents};
use tack_protocol::{ContentBlock, ImageSource, ToolResultContent};
use tack_tool::{ToolError, ToolOutput};

use crate::names::normalize_name;

/// Image types the Messages API accepts.
const API_IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Where binary content is saved, and under which name.
#[derive(Debug, Clone)]
pub(crate) struct OutputFiles {
    pub(crate) dir: PathBuf,
    pub(crate) stem: String,
}

impl OutputFiles {
    pub(crate) fn new(session_dir: &Path, tool_use_id: &str) -> OutputFiles {
        OutputFiles {
            dir: session_dir.join("mcp-output"),
            stem: normalize_name(tool_use_id),
        }
    }

    /// Saves `bytes` as the `index`th file of this result; the path or why not.
    fn save(&self, index: usize, mime: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let path = self
            .dir
            .join(format!("{}-{index}.{}", self.stem, extension(mime)));
        tack_sys::private_file::write_private(&path, bytes)
            .map_err(|e| format!("could not be saved: {e}"))?;
        Ok(path)
    }
}

fn extension(mime: &str) -> &str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/pdf" => "pdf",
        "application/json" => "json",
        "text/plain" => "txt",
        _ => "bin",
    }
}

/// Converts a `tools/call` result. `tool` names the tool in messages.
pub(crate) fn to_tool_output(
    result: CallToolResult,
    tool: &str,
    files: &OutputFiles,
) -> Result<ToolOutput, ToolError> {
    let mut blocks = Vec::with_capacity(result.content.len());
    for (i, block) in result.content.iter().enumerate() {
        blocks.push(convert_block(block, i, files));
    }
    if blocks.is_empty()
        && let Some(structured) = &result.structured_content
    {
        blocks.push(ContentBlock::text(structured.to_string()));
    }
    if result.is_error == Some(true) {
        let text = ToolResultContent::Blocks(blocks).to_text();
        let message = if text.trim().is_empty() {
            format!("{tool} failed without a message")
        } else {
            text
        };
        return Err(ToolError::new(message));
    }
    let content = if blocks.is_empty() {
        ToolResultContent::Text(format!("{tool} completed with no output"))
    } else if blocks
        .iter()
        .all(|b| matches!(b, ContentBlock::Text { .. }))
    {
        ToolResultContent::Text(ToolResultContent::Blocks(blocks).to_text())
    } else {
        ToolResultContent::Blocks(blocks)
    };
    Ok(ToolOutput {
        content,
        is_error: false,
        structured: result.structured_content,
        turn_end: None,
    })
}

/// One MCP content block as one API block.
pub(crate) fn convert_block(block: &McpBlock, index: usize, files: &OutputFiles) -> ContentBlock {
    match block {
        McpBlock::Text(t) => ContentBlock::text(t.text.clone()),
        McpBlock::Image(img) => binary("Image", &img.mime_type, &img.data, index, files),
        McpBlock::Audio(audio) => binary("Audio", &audio.mime_type, &audio.data, index, files),
        McpBlock::ResourceLink(link) => {
            let mut line = format!("[Resource link: {} ({})", link.name, link.uri);
            if let Some(mime) = &link.mime_type {
                line.push_str(&format!(", {mime}"));
            }
            if let Some(description) = &link.description {
                line.push_str(&format!(": {description}"));
            }
            line.push(']');
            ContentBlock::text(line)
        }
        McpBlock::Resource(embedded) => resource_block(&embedded.resource, index, files),
        // A content type newer than this code: keep what can be kept.
        other => ContentBlock::text(format!(
            "[Unsupported MCP content: {}]",
            serde_json::to_string(other).unwrap_or_default()
        )),
    }
}

/// An embedded resource (tool results, prompts, `@server:uri` mentions).
pub(crate) fn resource_block(
    resource: &ResourceContents,
    index: usize,
    files: &OutputFiles,
) -> ContentBlock {
    match resource {
        ResourceContents::TextResourceContents { uri, text, .. } => {
            ContentBlock::text(format!("[Resource: {uri}]\n{text}"))
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => {
            let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
            binary(&format!("Resource {uri}"), mime, blob, index, files)
        }
        other => ContentBlock::text(format!(
            "[Unsupported MCP resource: {}]",
            serde_json::to_string(other).unwrap_or_default()
        )),
    }
}

/// Base64 content: an image block when the API takes it, else a file and a
/// description.
fn binary(what: &str, mime: &str, data: &str, index: usize, files: &OutputFiles) -> ContentBlock {
    if API_IMAGE_TYPES.contains(&mime) && STANDARD.decode(data.trim()).is_ok() {
        return ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: mime.to_string(),
                data: data.trim().to_string(),
            },
            cache_control: None,
        };
    }
    ContentBlock::text(save_described(what, mime, data, index, files))
}

/// Decodes base64 `data`, saves it, and says where (or why not).
pub(crate) fn save_described(
    what: &str,
    mime: &str,
    data: &str,
    index: usize,
    files: &OutputFiles,
) -> String {
    let bytes = match STANDARD.decode(data.trim()) {
        Ok(bytes) => bytes,
        Err(e) => return format!("[{what} ({mime}) could not be decoded: invalid base64: {e}]"),
    };
    let size = human_size(bytes.len());
    let why = if mime.starts_with("audio/") {
        "the model cannot listen to audio"
    } else {
        "the model cannot read this type directly"
    };
    match files.save(index, mime, &bytes) {
        Ok(path) => format!(
            "[{what} ({mime}, {size}) saved to {}; {why}]",
            path.display()
        ),
        Err(e) => format!("[{what} ({mime}, {size}) {e}; {why}]"),
    }
}

fn human_size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

/// The text of a `tools/call` result, for callers that want text only
/// (the permission prompt tool).
pub(crate) fn result_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|b| match b {
            McpBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
