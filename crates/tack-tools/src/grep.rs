//! Grep: ripgrep's search, in-process (the `grep-*` and `ignore` crates that rg is
//! built from): same regex syntax, same .gitignore/hidden-file filtering, same
//! `--glob` and `--type` filters, same binary-file skipping.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use futures::FutureExt;
use futures::future::BoxFuture;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tack_tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolResult};
use tokio_util::sync::CancellationToken;

use crate::tool_input;
use crate::walk;

/// Entries (lines, files or counts) returned when `head_limit` is not given.
pub(crate) const DEFAULT_HEAD_LIMIT: usize = 250;
/// Matched lines longer than this are cut (Claude Code runs rg with `--max-columns 500`).
const MAX_COLUMNS: usize = 500;
/// Lines kept per file when `head_limit` is 0 (unlimited), to bound memory.
const MAX_LINES_PER_FILE: usize = 20_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OutputMode {
    Content,
    FilesWithMatches,
    Count,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct GrepInput {
    /// Regular expression to search for (Rust regex syntax, as in ripgrep: escape literal braces, e.g. `interface\{\}`).
    pattern: String,
    /// File or directory to search; omit it to search the working directory.
    path: Option<String>,
    /// Only search files whose name matches this glob, e.g. `*.js` or `*.{ts,tsx}` (ripgrep's --glob).
    glob: Option<String>,
    /// `content` shows matching lines, `files_with_matches` (the default) shows file paths, `count` shows match counts per file.
    output_mode: Option<OutputMode>,
    /// Lines of context before each match (content mode only).
    #[serde(rename = "-B")]
    before: Option<u64>,
    /// Lines of context after each match (content mode only).
    #[serde(rename = "-A")]
    after: Option<u64>,
    /// Lines of context before and after each match (content mode only).
    #[serde(rename = "-C", alias = "context")]
    context: Option<u64>,
    /// Show line numbers (content mode only; default true).
    #[serde(rename = "-n")]
    line_numbers: Option<bool>,
    /// Case-insensitive search.
    #[serde(rename = "-i")]
    case_insensitive: Option<bool>,
    /// Only search files of this type (ripgrep's --type), e.g. `rust`, `py`, `js`. More efficient than `glob` for standard types.
    #[serde(rename = "type")]
    file_type: Option<String>,
    /// Return only the first N lines / files / counts (default 250; 0 for no limit).
    head_limit: Option<u64>,
    /// Skip the first N lines / files / counts before applying `head_limit` (default 0).
    offset: Option<u64>,
    /// Let patterns span lines, with `.` matching newlines (ripgrep's -U --multiline-dotall).
    multiline: Option<bool>,
}

#[derive(Debug)]
pub(crate) struct GrepTool;

const DESCRIPTION: &str = "Searches file contents with regular expressions, with ripgrep's semantics.

- Use this instead of running grep or rg through Bash.
- Rust regex syntax (like ripgrep): `log.*Error`, `fn\\s+\\w+`. Escape literal braces: `interface\\{\\}`. Patterns match within one line unless `multiline` is set.
- Filter files with `glob` (e.g. `*.{ts,tsx}`) or `type` (e.g. `rust`, `py`). Files ignored by .gitignore and hidden files are skipped.
- `output_mode`: `files_with_matches` (default; paths, most recently modified first), `content` (matching lines as path:line:text, with -A/-B/-C context), `count` (matches per file).
- Results are capped by `head_limit` (default 250); page with `offset`.";

impl Tool for GrepTool {
    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn input_schema(&self) -> Value {
        tool_input::stored_schema(include_str!("../schemas/grep.json"))
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn validate(&self, input: &Value, _ctx: &ToolContext) -> Result<(), ToolError> {
        let input: GrepInput = tool_input::parse(self.name(), input)?;
        build_matcher(&input)?;
        Ok(())
    }

    fn paths_touched(&self, input: &Value, ctx: &ToolContext) -> Vec<PathBuf> {
        walk::touched_root(&ctx.env, input)
    }

    fn call<'a>(&'a self, input: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        async move {
            let input: GrepInput = tool_input::parse(self.name(), &input)?;
            let env = ctx.env.clone();
            let cancel = ctx.cancel.clone();
            tokio::task::spawn_blocking(move || grep(&env, &input, &cancel))
                .await
                .map_err(|e| ToolError::new(format!("Grep failed: {e}")))?
        }
        .boxed()
    }
}

fn build_matcher(input: &GrepInput) -> Result<RegexMatcher, ToolError> {
    let multiline = input.multiline.unwrap_or(false);
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_insensitive(input.case_insensitive.unwrap_or(false))
        .multi_line(true);
    if multiline {
        builder.dot_matches_new_line(true);
    } else {
        builder.line_terminator(Some(b'\n'));
    }
    builder.build(&input.pattern).map_err(|e| {
        let hint = if !multiline && e.to_string().contains("\\n") {
            " (set `multiline` to true to match across lines)"
        } else {
            ""
        };
        ToolError::new(format!("Invalid regex pattern: {e}{hint}"))
    })
}

/// What one search asks for, resolved from the input.
#[derive(Debug, Clone)]
struct Plan {
    mode: OutputMode,
    before: usize,
    after: usize,
    line_numbers: bool,
    multiline: bool,
    /// Lines worth keeping per file (offset + head_limit).
    per_file_cap: usize,
    /// Prefix lines with the path (not when searching a single file, like rg).
    with_path: bool,
}

/// What one file contributed.
#[derive(Debug)]
struct FileHits {
    path: PathBuf,
    mtime: Option<SystemTime>,
    lines: Vec<String>,
    count: u64,
}

fn grep(env: &ToolEnv, input: &GrepInput, cancel: &CancellationToken) -> ToolResult {
    let matcher = build_matcher(input)?;
    let root = walk::search_root(env, input.path.as_deref());
    if !root.exists() {
        return Err(walk::missing_root(&root, env));
    }
    let mode = input.output_mode.unwrap_or(OutputMode::FilesWithMatches);
    let to_usize = |v: Option<u64>| v.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let head_limit = to_usize(input.head_limit).unwrap_or(DEFAULT_HEAD_LIMIT);
    let offset = to_usize(input.offset).unwrap_or(0);
    let context = to_usize(input.context).unwrap_or(0);
    let content = mode == OutputMode::Content;
    let plan = Plan {
        mode,
        before: if content {
            to_usize(input.before).unwrap_or(context)
        } else {
            0
        },
        after: if content {
            to_usize(input.after).unwrap_or(context)
        } else {
            0
        },
        line_numbers: input.line_numbers.unwrap_or(true),
        multiline: input.multiline.unwrap_or(false),
        per_file_cap: if head_limit == 0 {
            MAX_LINES_PER_FILE
        } else {
            offset.saturating_add(head_limit)
        },
        with_path: root.is_dir(),
    };

    let mut hits = if root.is_dir() {
        search_tree(&root, input, &matcher, &plan, cancel)?
    } else {
        search_one(&root, &matcher, &plan).into_iter().collect()
    };
    if cancel.is_cancelled() {
        return Err(ToolError::new("Grep was interrupted."));
    }
    match mode {
        OutputMode::FilesWithMatches => {
            hits.sort_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| a.path.cmp(&b.path)));
        }
        OutputMode::Content | OutputMode::Count => hits.sort_by(|a, b| a.path.cmp(&b.path)),
    }
    Ok(render(&hits, &plan, offset, head_limit))
}

fn search_tree(
    root: &Path,
    input: &GrepInput,
    matcher: &RegexMatcher,
    plan: &Plan,
    cancel: &CancellationToken,
) -> Result<Vec<FileHits>, ToolError> {
    let mut builder = walk::walker(root, true);
    if let Some(globs) = input.glob.as_deref().filter(|g| !g.trim().is_empty()) {
        let mut overrides = OverrideBuilder::new(root);
        for glob in globs.split_whitespace() {
            overrides
                .add(glob)
                .map_err(|e| ToolError::new(format!("Invalid glob: {e}")))?;
        }
        builder.overrides(
            overrides
                .build()
                .map_err(|e| ToolError::new(format!("Invalid glob: {e}")))?,
        );
    }
    if let Some(file_type) = input.file_type.as_deref().filter(|t| !t.trim().is_empty()) {
        let mut types = TypesBuilder::new();
        types.add_defaults();
        types.select(file_type.trim());
        builder.types(
            types
                .build()
                .map_err(|e| ToolError::new(format!("Invalid type: {e}")))?,
        );
    }
    let hits = Mutex::new(Vec::new());
    walk::visit(&builder, root, || {
        let hits = &hits;
        let mut searcher = searcher(plan);
        move |entry: Result<ignore::DirEntry, ignore::Error>| {
            if cancel.is_cancelled() {
                return false;
            }
            let Ok(entry) = entry else {
                return true;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return true;
            }
            if let Some(found) = search_with(&mut searcher, entry.path(), matcher, plan) {
                hits.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(found);
            }
            true
        }
    });
    Ok(hits.into_inner().unwrap_or_else(PoisonError::into_inner))
}

fn searcher(plan: &Plan) -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .multi_line(plan.multiline)
        .before_context(plan.before)
        .after_context(plan.after)
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .build()
}

fn search_one(path: &Path, matcher: &RegexMatcher, plan: &Plan) -> Option<FileHits> {
    search_with(&mut searcher(plan), path, matcher, plan)
}

fn search_with(
    searcher: &mut Searcher,
    path: &Path,
    matcher: &RegexMatcher,
    plan: &Plan,
) -> Option<FileHits> {
    let mut sink = Collect {
        plan,
        prefix: if plan.with_path {
            path.display().to_string()
        } else {
            String::new()
        },
        lines: Vec::new(),
        count: 0,
    };
    // Unreadable files are skipped, as rg does (with a warning we have nowhere to show).
    searcher.search_path(matcher, path, &mut sink).ok()?;
    if sink.count == 0 {
        return None;
    }
    let mtime = match plan.mode {
        OutputMode::FilesWithMatches => {
            std::fs::metadata(path).ok().and_then(|m| m.modified().ok())
        }
        OutputMode::Content | OutputMode::Count => None,
    };
    Some(FileHits {
        path: path.to_path_buf(),
        mtime,
        lines: sink.lines,
        count: sink.count,
    })
}

/// Collects one file's results in the shape the mode needs.
struct Collect<'p> {
    plan: &'p Plan,
    prefix: String,
    lines: Vec<String>,
    /// Matching lines seen.
    count: u64,
}

impl Collect<'_> {
    fn push(&mut self, number: Option<u64>, text: &[u8], sep: char) {
        let text = String::from_utf8_lossy(text);
        let text = text.trim_end_matches(['\n', '\r']);
        let text = match text.char_indices().nth(MAX_COLUMNS) {
            Some((cut, _)) => format!("{}… [line truncated]", &text[..cut]),
            None => text.to_string(),
        };
        let mut line = String::new();
        if self.plan.with_path {
            line.push_str(&self.prefix);
            line.push(sep);
        }
        if let (true, Some(n)) = (self.plan.line_numbers, number) {
            line.push_str(&format!("{n}{sep}"));
        }
        line.push_str(&text);
        self.lines.push(line);
    }
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        match self.plan.mode {
            OutputMode::FilesWithMatches => {
                self.count += 1;
                Ok(false)
            }
            OutputMode::Count => {
                self.count += mat.lines().count() as u64;
                Ok(true)
            }
            OutputMode::Content => {
                let mut number = mat.line_number();
                for line in mat.lines() {
                    self.count += 1;
                    self.push(number, line, ':');
                    number = number.map(|n| n + 1);
                }
                Ok(self.lines.len() < self.plan.per_file_cap)
            }
        }
    }

    fn context(&mut self, _searcher: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.push(ctx.line_number(), ctx.bytes(), '-');
        Ok(self.lines.len() < self.plan.per_file_cap)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        self.lines.push("--".into());
        Ok(true)
    }
}

fn render(hits: &[FileHits], plan: &Plan, offset: usize, head_limit: usize) -> ToolOutput {
    let page = |entries: Vec<String>| -> (Vec<String>, bool) {
        let total = entries.len();
        let taken: Vec<String> = entries
            .into_iter()
            .skip(offset)
            .take(if head_limit == 0 {
                usize::MAX
            } else {
                head_limit
            })
            .collect();
        let more = offset + taken.len() < total;
        (taken, more)
    };
    let pagination = |more: bool| {
        if more {
            format!(
                "\n\n[Showing results with pagination: limit {head_limit}, offset {offset}. More results exist: narrow the search or pass a larger offset.]"
            )
        } else {
            String::new()
        }
    };
    let num_files = hits.len();
    match plan.mode {
        OutputMode::FilesWithMatches => {
            if hits.is_empty() {
                return ToolOutput::text("No files found")
                    .with_structured(json!({"numFiles": 0, "filenames": []}));
            }
            let (shown, more) = page(hits.iter().map(|h| h.path.display().to_string()).collect());
            let plural = if num_files == 1 { "" } else { "s" };
            let text = format!(
                "Found {num_files} file{plural}\n{}{}",
                shown.join("\n"),
                pagination(more)
            );
            ToolOutput::text(text).with_structured(
                json!({"mode": "files_with_matches", "numFiles": num_files, "filenames": shown}),
            )
        }
        OutputMode::Content => {
            if hits.is_empty() {
                return ToolOutput::text("No matches found")
                    .with_structured(json!({"numFiles": 0, "numLines": 0}));
            }
            let separate = plan.before > 0 || plan.after > 0;
            let mut all = Vec::new();
            for (i, h) in hits.iter().enumerate() {
                if separate && i > 0 {
                    all.push("--".to_string());
                }
                all.extend(h.lines.iter().cloned());
            }
            let (shown, more) = page(all);
            let text = format!("{}{}", shown.join("\n"), pagination(more));
            ToolOutput::text(text).with_structured(
                json!({"mode": "content", "numFiles": num_files, "numLines": shown.len()}),
            )
        }
        OutputMode::Count => {
            if hits.is_empty() {
                return ToolOutput::text("No matches found")
                    .with_structured(json!({"numFiles": 0, "numMatches": 0}));
            }
            let total: u64 = hits.iter().map(|h| h.count).sum();
            let entries = hits
                .iter()
                .map(|h| {
                    if plan.with_path {
                        format!("{}:{}", h.path.display(), h.count)
                    } else {
                        h.count.to_string()
                    }
                })
                .collect();
            let (shown, more) = page(entries);
            let files = if num_files == 1 { "file" } else { "files" };
            let occurrences = if total == 1 {
                "occurrence"
            } else {
                "occurrences"
            };
            let text = format!(
                "{}\n\nFound {total} total {occurrences} across {num_files} {files}.{}",
                shown.join("\n"),
                pagination(more)
            );
            ToolOutput::text(text).with_structured(
                json!({"mode": "count", "numFiles": num_files, "numMatches": total}),
            )
        }
    }
}
