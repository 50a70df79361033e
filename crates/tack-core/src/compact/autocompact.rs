//! Step 9 of seed 004: autocompact, summarising the conversation with one model
//! call when it nears the effective context window (window − 13k), and the
//! summarisation shared with reactive compaction (prompt too long) and the
//! manual `/compact [instructions]`.
//!
//! [`compact_history`] sends [`summary_request_messages`] (the conversation plus
//! the summary instruction: intent, decisions, files, errors, pending work) with
//! the session's system prompt and no tools, through
//! [`CompactDeps::summarize`] (every `QueryDeps` is a `CompactDeps`, so a
//! scripted fake model answers summaries the way it answers turns), and returns
//! the history that replaces the conversation ([`post_compact_messages`]: the
//! summary, recently read files, and the trailing exchange or prompt) as a
//! [`CompactedEvent`]. The loop yields that event (the compact boundary); the
//! `Session` replaces its history with the event's messages and persists a
//! boundary record, so "messages after the last compact boundary" is simply the
//! history from then on.
//!
//! The trigger is [`should_autocompact`]; [`autocompact`] runs the PreCompact
//! hooks first. Failures count in [`AutocompactTracking`]; three in a row open
//! the circuit breaker for the session (autocompact stops trying).

use futures::future::BoxFuture;
use tack_api::ApiError;
use tack_protocol::{ContentBlock, Message, MessagesRequest, Role};
use tokio_util::sync::CancellationToken;

use super::is_tool_result_message;
use super::limits::{ContextLimits, SUMMARY_OUTPUT_RESERVE_TOKENS};
use crate::context::PromptContext;
use crate::request::{RequestOptions, build_request};

/// After this many autocompactions in a row fail, stop trying for the session
/// (seed 004: 3 consecutive failures open the circuit breaker). A failing
/// summary call on every turn would double the cost of a session that cannot
/// be helped anyway.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// How the user message that carries a compaction's summary starts; a front
/// end replaying a conversation knows the summary by it.
pub const COMPACT_SUMMARY_PREFIX: &str = "This session continues an earlier conversation that ran out of context. The summary below covers the earlier part of it.\n\n";
/// Files re-attached after a compaction, newest first.
pub const MAX_RECENT_FILES: usize = 5;
/// A recent file larger than this (bytes) is not re-attached.
pub const MAX_RECENT_FILE_BYTES: usize = 20_000;

/// Autocompact state carried in the loop's `State` across iterations and in
/// the `Session` across queries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutocompactTracking {
    pub(crate) consecutive_failures: u32,
    /// Successful compactions so far in this session.
    pub(crate) compactions: u32,
}

impl AutocompactTracking {
    /// Autocompactions in a row that failed.
    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }

    /// Successful autocompactions so far in the session.
    pub fn compactions(&self) -> u32 {
        self.compactions
    }

    /// True once `MAX_CONSECUTIVE_FAILURES` (3) autocompactions in a row failed:
    /// autocompact no longer runs in this session.
    pub fn circuit_open(&self) -> bool {
        self.consecutive_failures >= MAX_CONSECUTIVE_FAILURES
    }

    pub(crate) fn after_success(self) -> Self {
        AutocompactTracking {
            consecutive_failures: 0,
            compactions: self.compactions + 1,
        }
    }

    pub(crate) fn after_failure(self) -> Self {
        AutocompactTracking {
            consecutive_failures: self.consecutive_failures + 1,
            ..self
        }
    }
}

/// What started a compaction (`compact_boundary`'s `trigger` in Claude Code's
/// transcript: `auto` / `manual`; reactive is tack's name for the
/// prompt-too-long recovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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

/// A compaction's result: the new start of the conversation.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CompactedEvent {
    /// Transcript id of the boundary record.
    pub boundary_uuid: String,
    pub trigger: CompactTrigger,
    /// Estimated tokens of the history that was summarised.
    pub pre_tokens: u64,
    /// The summary text (also inside the first message).
    pub summary: String,
    /// The whole conversation from now on, with transcript ids: the summary
    /// (and recently read files) as a user message, then the trailing
    /// tool_use/tool_result exchange or unanswered prompt, if any.
    pub messages: Vec<(String, Message)>,
}

/// What a compaction calls at run time, passed in so that `compact` needs
/// nothing of the loop. Every `QueryDeps` is one (`deps.rs`): the summary goes
/// through `QueryDeps::summarize`, the ids through `QueryDeps::new_id`.
pub trait CompactDeps: Send + Sync {
    /// Sends the summarisation `request` and returns the summary text.
    fn summarize(
        &self,
        request: MessagesRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<String, CompactError>>;

    /// A fresh transcript id.
    fn new_id(&self) -> String;
}

/// Whether to autocompact before the next request.
pub fn should_autocompact(
    prompt_tokens: u64,
    limits: &ContextLimits,
    tracking: &AutocompactTracking,
) -> bool {
    !tracking.circuit_open() && prompt_tokens > limits.autocompact_threshold()
}

/// What the summary request is built from besides the messages.
#[derive(Clone, Copy)]
pub struct SummarySettings<'a> {
    pub context: &'a PromptContext,
    pub model: &'a str,
    pub prompt_caching: bool,
}

/// Step 9, once [`should_autocompact`] said so: the PreCompact hooks
/// (`pre_compact`, if any; `Err(reason)` skips this compaction as
/// [`CompactError::BlockedByHook`], which the circuit breaker does not count),
/// then [`compact_history`].
pub async fn autocompact<D: CompactDeps + ?Sized>(
    deps: &D,
    settings: SummarySettings<'_>,
    messages: &[Message],
    pre_compact: Option<BoxFuture<'_, Result<(), String>>>,
    cancel: &CancellationToken,
) -> Result<CompactedEvent, CompactError> {
    if let Some(hooks) = pre_compact {
        hooks.await.map_err(CompactError::BlockedByHook)?;
    }
    compact_history(deps, settings, messages, None, CompactTrigger::Auto, cancel).await
}

/// Summarises `messages` and returns the replacement history; see the module docs.
pub async fn compact_history<D: CompactDeps + ?Sized>(
    deps: &D,
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

/// The instruction sent as the last user turn of a summarisation request.
pub fn summary_prompt(custom_instructions: Option<&str>) -> String {
    let mut prompt = String::from(
        "Your task now is to write a summary of the conversation so far, detailed enough that \
the work can continue from it without the earlier messages, which will be removed.\n\n\
Cover, in this order:\n\
1. The user's requests and intent, in their own words where it matters, including any later changes of direction.\n\
2. Key technical decisions and the reasons given for them.\n\
3. Files read, created or modified, with what changed and why; include short code excerpts only where the exact text matters.\n\
4. Errors met and how they were fixed, and any feedback the user gave.\n\
5. What was being worked on right before this summary, as precisely as possible.\n\
6. Pending work: what remains to be done, and the next step if it is clear from the conversation.\n\n\
Do not call any tools. Answer with the summary only, inside <summary></summary> tags.",
    );
    if let Some(extra) = custom_instructions.map(str::trim).filter(|s| !s.is_empty()) {
        prompt.push_str("\n\nAdditional instructions for this summary:\n");
        prompt.push_str(extra);
    }
    prompt
}

/// The messages of the summarisation request: the conversation, with the
/// summary instruction added as (or appended to) the final user turn.
pub fn summary_request_messages(
    messages: &[Message],
    custom_instructions: Option<&str>,
) -> Vec<Message> {
    let mut out = messages.to_vec();
    let instruction = ContentBlock::text(summary_prompt(custom_instructions));
    match out.last_mut() {
        // Tool results must come first in a user turn; text after them is fine.
        Some(last) if last.role == Role::User => last.content.push(instruction),
        Some(_) | None => out.push(Message::user(vec![instruction])),
    }
    out
}

/// The summary text from the model's answer: what is inside `<summary>` if the
/// tags are there, else the whole text. `None` for an empty answer, which counts
/// as a failed compaction.
pub fn extract_summary(answer: &str) -> Option<String> {
    let inner = match (answer.find("<summary>"), answer.rfind("</summary>")) {
        (Some(start), Some(end)) if end > start => &answer[start + "<summary>".len()..end],
        _ => answer,
    };
    let trimmed = inner.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// A file the model read recently, re-attached after compaction so it does not
/// have to read it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecentFile {
    pub path: String,
    pub content: String,
}

/// The history that replaces the conversation after a compaction: the summary
/// (and recently read files) as the first user turn, then the trailing
/// tool_use/tool_result exchange if the conversation ends in one (or the
/// trailing user prompt if it ends in one), so the
/// results the model is waiting for are not lost and every kept tool_result
/// still follows its tool_use.
pub fn post_compact_messages(
    summary: &str,
    recent_files: &[RecentFile],
    messages: &[Message],
) -> Vec<Message> {
    let mut first = vec![ContentBlock::text(format!(
        "{COMPACT_SUMMARY_PREFIX}{summary}"
    ))];
    for file in recent_files {
        first.push(ContentBlock::text(format!(
            "<system-reminder>\nContents of {} (read before the summary, unchanged since):\n{}\n</system-reminder>",
            file.path, file.content
        )));
    }
    let mut out = vec![Message::user(first)];
    match messages {
        [.., assistant, results]
            if assistant.role == Role::Assistant && is_tool_result_message(results) =>
        {
            out.push(assistant.clone());
            out.push(results.clone());
        }
        // A prompt not answered yet stays verbatim (it merges into the summary's
        // user turn when normalised).
        [.., prompt] if prompt.role == Role::User => out.push(prompt.clone()),
        _ => {}
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn circuit_breaker_opens_after_exactly_three_failures_and_success_resets() {
        let limits = ContextLimits {
            window: 200_000,
            max_output: 64_000,
        };
        let mut t = AutocompactTracking::default();
        for _ in 0..2 {
            t = t.after_failure();
            assert!(should_autocompact(170_000, &limits, &t));
        }
        t = t.after_failure();
        assert!(t.circuit_open());
        assert!(!should_autocompact(170_000, &limits, &t));
        assert_eq!(
            t.after_success(),
            AutocompactTracking {
                consecutive_failures: 0,
                compactions: 1
            }
        );
        assert!(!should_autocompact(
            160_000,
            &limits,
            &AutocompactTracking::default()
        ));
    }

    #[test]
    fn summary_request_appends_instruction_to_trailing_tool_results() {
        let msgs = vec![
            Message::user_text("do it"),
            Message::assistant(vec![ContentBlock::tool_use("t1", "Read", json!({}))]),
            Message::user(vec![ContentBlock::tool_result("t1", "data", false)]),
        ];
        let req = summary_request_messages(&msgs, Some("focus on tests"));
        assert_eq!(req.len(), 3);
        assert_eq!(req[2].content.len(), 2);
        assert!(matches!(req[2].content[0], ContentBlock::ToolResult { .. }));
        let ContentBlock::Text { text, .. } = &req[2].content[1] else {
            panic!()
        };
        assert!(text.ends_with("focus on tests"));

        let ends_with_assistant = vec![
            Message::user_text("hi"),
            Message::assistant(vec![ContentBlock::text("yo")]),
        ];
        assert_eq!(
            summary_request_messages(&ends_with_assistant, None).len(),
            3
        );
    }

    #[test]
    fn extracts_tagged_or_plain_summary() {
        assert_eq!(
            extract_summary("<analysis>x</analysis>\n<summary>\n S \n</summary>"),
            Some("S".into())
        );
        assert_eq!(extract_summary("plain"), Some("plain".into()));
        assert_eq!(extract_summary("  <summary> </summary>"), None);
    }

    #[test]
    fn post_compact_keeps_trailing_exchange_and_files() {
        let msgs = vec![
            Message::user_text("do it"),
            Message::assistant(vec![ContentBlock::tool_use("t1", "Read", json!({}))]),
            Message::user(vec![ContentBlock::tool_result("t1", "data", false)]),
        ];
        let files = [RecentFile {
            path: "/p/a.rs".into(),
            content: "fn a() {}".into(),
        }];
        let out = post_compact_messages("SUM", &files, &msgs);
        assert_eq!(out.len(), 3);
        assert_eq!(out[1..], msgs[1..]);
        assert_eq!(out[0].content.len(), 2);
        assert!(out[0].text().contains("SUM"));
        assert!(out[0].text().contains("fn a() {}"));

        let done = vec![
            Message::user_text("q"),
            Message::assistant(vec![ContentBlock::text("a")]),
        ];
        assert_eq!(post_compact_messages("S", &[], &done).len(), 1);
        let mut asked = done.clone();
        asked.push(Message::user_text("next"));
        let out = post_compact_messages("S", &[], &asked);
        assert_eq!(out[1..], asked[2..]);
    }
}
