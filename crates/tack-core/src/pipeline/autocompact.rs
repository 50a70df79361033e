//! Step 9 of seed 004: autocompact, summarising the history with one model call
//! when it nears the effective context window (window − 13k), and the
//! summarisation shared with reactive compaction (prompt too long) and the
//! manual `/compact [instructions]`.
//!
//! [`compact_history`] sends [`summary_request_messages`] (the conversation plus
//! the summary instruction: intent, decisions, files, errors, pending work) with
//! the session's system prompt and no tools, through
//! [`QueryDeps::summarize`](crate::deps::QueryDeps::summarize), and returns the
//! history that replaces the conversation ([`post_compact_messages`]: the
//! summary, recently read files, and the trailing exchange or prompt) as a
//! [`CompactedEvent`]. The loop yields that event (the compact boundary); the
//! `Session` replaces its history with the event's messages and persists a
//! boundary record, so "messages after the last compact boundary" is simply the
//! history from then on.
//!
//! Failures count in [`AutocompactTracking`]; three in a row open the circuit
//! breaker for the session (autocompact stops trying).

use tack_api::ApiError;
use tack_protocol::{ContentBlock, Message, Role};
use tokio_util::sync::CancellationToken;

use crate::compact::autocompact::{RecentFile, post_compact_messages, summary_request_messages};
use crate::compact::thresholds::SUMMARY_OUTPUT_RESERVE_TOKENS;
use crate::context::PromptContext;
use crate::deps::QueryDeps;
use crate::query::CompactedEvent;
use crate::request::{RequestOptions, build_request};

pub use crate::compact::autocompact::AutocompactTracking;

/// Files re-attached after a compaction, newest first.
pub const MAX_RECENT_FILES: usize = 5;
/// A recent file larger than this (bytes) is not re-attached.
pub const MAX_RECENT_FILE_BYTES: usize = 20_000;

/// What started a compaction (`compact_boundary`'s `trigger` in Claude Code's
/// transcript: `auto` / `manual`; reactive is tack's name for the
/// prompt-too-long recovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompactTrigger {
    Auto,
    Manual,
    Reactive,
}

impl CompactTrigger {
    pub fn as_str(self) -> &'static str {
        match self {
            CompactTrigger::Auto => "auto",
            CompactTrigger::Manual => "manual",
            CompactTrigger::Reactive => "reactive",
        }
    }
}

/// Why a compaction failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    #[error("the summary request failed: {0}")]
    Api(ApiError),
    #[error("the model returned an empty summary")]
    EmptySummary,
    #[error("there is nothing to compact")]
    NothingToCompact,
    /// A PreCompact hook blocked this automatic compaction.
    #[error("{0}")]
    BlockedByHook(String),
}

/// What the summary request is built from besides the messages.
#[derive(Clone, Copy)]
pub struct SummarySettings<'a> {
    pub context: &'a PromptContext,
    pub model: &'a str,
    pub prompt_caching: bool,
}

/// Summarises `messages` and returns the replacement history; see the module docs.
pub async fn compact_history(
    deps: &dyn QueryDeps,
    settings: SummarySettings<'_>,
    messages: &[Message],
    instructions: Option<&str>,
    trigger: CompactTrigger,
    cancel: &CancellationToken,
) -> Result<CompactedEvent, CompactError> {
    if !messages.iter().any(|m| m.role == Role::Assistant) {
        return Err(CompactError::NothingToCompact);
    }
    let request = build_request(
        settings.context,
        &summary_request_messages(messages, instructions),
        &RequestOptions {
            model: settings.model,
            max_tokens: SUMMARY_OUTPUT_RESERVE_TOKENS as u32,
            tools: &[],
            thinking: None,
            prompt_caching: settings.prompt_caching,
        },
    );
    let summary = deps.summarize(request, cancel.child_token()).await?;
    let files = recent_files(messages);
    let kept = post_compact_messages(&summary, &files, messages);
    Ok(CompactedEvent {
        boundary_uuid: deps.new_id(),
        trigger,
        pre_tokens: tack_api::estimate_messages(messages),
        summary,
        messages: kept.into_iter().map(|m| (deps.new_id(), m)).collect(),
    })
}

/// The files the model read most recently (Read tool_use `file_path`s, newest
/// first, at most [`MAX_RECENT_FILES`]) with their current content; unreadable
/// or large files are skipped.
pub fn recent_files(messages: &[Message]) -> Vec<RecentFile> {
    let mut out: Vec<RecentFile> = Vec::new();
    let paths = messages.iter().rev().flat_map(|m| {
        m.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse { name, input, .. } if name == "Read" => {
                input.get("file_path").and_then(|p| p.as_str())
            }
            _ => None,
        })
    });
    for path in paths {
        if out.len() == MAX_RECENT_FILES {
            break;
        }
        if out.iter().any(|f| f.path == path) {
            continue;
        }
        if let Ok(content) = std::fs::read_to_string(path)
            && content.len() <= MAX_RECENT_FILE_BYTES
        {
            out.push(RecentFile {
                path: path.to_owned(),
                content,
            });
        }
    }
    out
}
