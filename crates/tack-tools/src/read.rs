//! Read: a file's lines, numbered; images as image blocks; notebooks as cells.
//! Records what was read so Write/Edit can check the file has not changed since.

use std::fs;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine;
use futures::FutureExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_protocol::{ContentBlock, ImageSource};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};

use crate::file_state;
use crate::line_scan;
use crate::notebook;
use crate::regular_file::{self, Opened};
use crate::tool_input;

/// Lines returned when no `limit` is given.
pub(crate) const DEFAULT_LIMIT: usize = 2000;
/// About 25,000 tokens (Claude Code's default read cap) at ~4 characters a token.
pub(crate) const MAX_OUTPUT_CHARS: usize = 100_000;
const MAX_TOKENS: usize = 25_000;
/// The API's limit is 5 MB of base64 per image, i.e. 3.75 MB of bytes. Images are
/// not downscaled (yet): bigger ones are refused.
const MAX_IMAGE_BYTES: u64 = 3_750_000;
/// Text files bigger than this are refused outright (read them in pieces with Bash).
const MAX_TEXT_FILE_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ReadInput {
    /// Absolute path of the file to read.
    file_path: String,
    /// Line number to start reading from (1-based). Only needed for files too large to read at once.
    offset: Option<u64>,
    /// Number of lines to read (default 2000). Only needed for files too large to read at once.
    limit: Option<u64>,
}

#[derive(Debug)]
pub(crate) struct ReadTool;

const DESCRIPTION: &str = "Reads a file from the local filesystem.

- `file_path` should be absolute (relative paths are resolved against the working directory).
- Returns up to 2000 lines from the start of the file, each prefixed with its line number and a tab; lines longer than 2000 characters are cut. For large files pass `offset` (1-based line number) and `limit`.
- Images (PNG, JPEG, GIF, WebP) are returned as images. Jupyter notebooks (.ipynb) are returned as their cells with outputs. PDFs and binary files are refused.
- Directories cannot be read: use LS, Glob or `ls` through Bash.
- Reading a file is required before editing or overwriting it. Reading several files you need at once, in parallel, is encouraged.";

impl Tool for ReadTool {
    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/read.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    /// Read's output is capped already, and storing it in a file the model would
    /// have to Read again would go round in circles.
    fn max_result_chars(&self) -> Option<usize> {
        None
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: ReadInput = tool_input::parse(self.name(), input)?;
        if input.file_path.is_empty() {
            return Err(ToolError::new(
                "`file_path` is empty: give the absolute path of the file to read.",
            ));
        }
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        tool_input::parse_quiet::<ReadInput>(input)
            .map(|i| vec![file_state::resolve(&ctx.env, &i.file_path)])
            .unwrap_or_default()
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: ReadInput = tool_input::parse(self.name(), &input)?;
            let env = ctx.env.clone();
            // What the client shows (an unsaved buffer) over what is on disk.
            let buffer = match env.client_files() {
                Some(files) => {
                    let path = file_state::resolve(&env, &input.file_path);
                    files.read_text(&path).await
                }
                None => None,
            };
            tokio::task::spawn_blocking(move || read(&env, &input, buffer))
                .await
                .map_err(|e| ToolError::new(format!("Read failed: {e}")))?
        }
        .boxed()
    }
}

/// `buffer`: the file's text as the client holds it, shown instead of the
/// disk's (which is still checked: a file, not too large, text).
fn read(env: &Arc<ToolEnv>, input: &ReadInput, buffer: Option<String>) -> ToolResult {
    let path = file_state::resolve(env, &input.file_path);
    let (file, meta) = match regular_file::open(&path) {
        Ok(Opened::File(file, meta)) => (file, meta),
        Ok(Opened::Directory) => {
            return Err(ToolError::new(format!(
                "{} is a directory, not a file. Use LS, Glob, or `ls` via Bash to list its contents.",
                path.display()
            )));
        }
        Ok(Opened::Special(kind)) => {
            return Err(ToolError::new(regular_file::special_message(
                &path, kind, "Read",
            )));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ToolError::new(format!(
                "File does not exist. Current working directory: {}",
                env.cwd().display()
            )));
        }
        Err(e) => {
            return Err(ToolError::new(format!(
                "Cannot read {}: {e}",
                path.display()
            )));
        }
    };
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" => return read_image(&path, file, &meta, &ext),
        "pdf" => {
            return Err(ToolError::new(format!(
                "Reading PDF files is not supported yet. Extract the text with Bash instead, e.g. `pdftotext {} -`.",
                path.display()
            )));
        }
        "ipynb" => return read_notebook(env, &path, file, &meta),
        _ => {}
    }
    if BINARY_EXTENSIONS.contains(&ext.as_str()) {
        return Err(binary_error(&path, &ext));
    }
    if meta.len() > MAX_TEXT_FILE_BYTES {
        return Err(ToolError::new(format!(
            "File is too large to read ({} MB). Use Grep to find what you need, or Bash (`head`, `tail`, `sed -n`) to read parts of it.",
            meta.len() / (1024 * 1024)
        )));
    }
    let explicit_range = input.offset.is_some() || input.limit.is_some();
    let start = usize::try_from(input.offset.unwrap_or(1))
        .unwrap_or(usize::MAX)
        .max(1);
    let limit = input
        .limit
        .map(|l| usize::try_from(l).unwrap_or(usize::MAX))
        .unwrap_or(DEFAULT_LIMIT)
        .max(1);
    // One pass: the lines shown, the line count and the hash, in memory
    // bounded by the output (a 200 MB log costs what 2,000 lines cost).
    let scan = match &buffer {
        Some(text) => line_scan::scan(text.as_bytes(), start, limit, MAX_OUTPUT_CHARS)?,
        None => line_scan::scan(&file, start, limit, MAX_OUTPUT_CHARS)?,
    };
    if scan.binary {
        return Err(binary_error(&path, &ext));
    }

    if scan.total_bytes == 0 {
        env.record_read(path, file_state::record_hashed(&meta, scan.hash, false));
        return Ok(ToolOutput::text(
            "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
        ));
    }
    let total = scan.total_lines;
    if start > total {
        env.record_read(path, file_state::record_hashed(&meta, scan.hash, true));
        return Ok(ToolOutput::text(format!(
            "<system-reminder>Warning: the file exists but is shorter than the provided offset ({start}). The file has {total} lines.</system-reminder>"
        )));
    }
    if scan.over_cap && explicit_range {
        return Err(ToolError::new(format!(
            "File content ({} tokens) exceeds maximum allowed tokens ({MAX_TOKENS}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.",
            scan.range_chars / 4
        )));
    }
    let shown = scan.shown;
    let mut out = scan.out;
    let end = start + shown - 1;
    let partial = start > 1 || end < total;
    env.record_read(path, file_state::record_hashed(&meta, scan.hash, partial));
    if scan.over_cap {
        out.push_str(&format!(
            "\n[PARTIAL view: lines {start}-{end} of {total}; the file is larger than one read returns (~{MAX_TOKENS} tokens). Continue with offset={} and a limit, or use Grep to find what you need.]",
            end + 1
        ));
    } else if end < total {
        out.push_str(&format!(
            "\n[Showing lines {start}-{end} of {total}. Use offset and limit to read more.]"
        ));
    }
    Ok(ToolOutput::text(out).with_structured(json!({
        "type": "text",
        "file": {"filePath": input.file_path, "startLine": start, "numLines": shown, "totalLines": total},
    })))
}

/// Reads a file already checked to be at most `max` bytes long; a file that
/// grew since is cut at `max + 1` bytes, which the caller's size check refuses.
fn read_bounded(file: fs::File, max: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn read_image(path: &Path, file: fs::File, meta: &fs::Metadata, ext: &str) -> ToolResult {
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(image_too_large(meta.len()));
    }
    let bytes = read_bounded(file, MAX_IMAGE_BYTES)?;
    if bytes.len() as u64 > MAX_IMAGE_BYTES {
        return Err(image_too_large(bytes.len() as u64));
    }
    let media_type = sniff_image(&bytes).unwrap_or(match ext {
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => "image/jpeg",
    });
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(ToolOutput::blocks(vec![ContentBlock::Image {
        source: ImageSource::Base64 { media_type: media_type.into(), data },
        cache_control: None,
    }])
    .with_structured(json!({"type": "image", "file": {"filePath": path, "mediaType": media_type, "size": bytes.len()}})))
}

fn image_too_large(len: u64) -> ToolError {
    ToolError::new(format!(
        "Image is too large ({len} bytes; at most {MAX_IMAGE_BYTES} are supported). Downscale it first, e.g. with ImageMagick via Bash."
    ))
}

/// The media type from the file's magic bytes (an extension can lie).
fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn read_notebook(env: &ToolEnv, path: &Path, file: fs::File, meta: &fs::Metadata) -> ToolResult {
    let too_large = || ToolError::new("Notebook is larger than 100 MB and cannot be read.");
    if meta.len() > notebook::MAX_NOTEBOOK_BYTES {
        return Err(too_large());
    }
    let bytes = read_bounded(file, notebook::MAX_NOTEBOOK_BYTES)?;
    if bytes.len() as u64 > notebook::MAX_NOTEBOOK_BYTES {
        return Err(too_large());
    }
    let rendered = notebook::render(&String::from_utf8_lossy(&bytes))
        .map_err(|e| ToolError::new(format!("Cannot read notebook {}: {e}", path.display())))?;
    env.record_read(path.to_path_buf(), file_state::record(meta, &bytes, false));
    Ok(ToolOutput::text(rendered))
}

fn binary_error(path: &Path, ext: &str) -> ToolError {
    let kind = if ext.is_empty() {
        String::new()
    } else {
        format!(" .{ext}")
    };
    ToolError::new(format!(
        "{} appears to be a binary{kind} file; Read only shows text files, images and notebooks. Inspect it with Bash instead (e.g. `file`, `xxd | head`).",
        path.display()
    ))
}

const BINARY_EXTENSIONS: &[&str] = &[
    "exe", "dll", "so", "dylib", "a", "o", "obj", "lib", "bin", "class", "jar", "war", "pyc",
    "pyo", "wasm", "zip", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "tar", "iso", "dmg", "deb",
    "rpm", "bmp", "ico", "tif", "tiff", "psd", "mp3", "mp4", "m4a", "wav", "flac", "ogg", "avi",
    "mov", "mkv", "webm", "ttf", "otf", "woff", "woff2", "eot", "sqlite", "db", "doc", "docx",
    "xls", "xlsx", "ppt", "pptx", "odt",
];
