//! Autocompact: when the context nears the window, summarise the conversation
//! with one model call and continue from the summary (seed 004 step 9). This
//! module builds the summarisation request and the post-compact history; the
//! loop makes the call (through `QueryDeps`, so tests fake it).

use tack_protocol::{ContentBlock, Message, Role};

use super::is_tool_result_message;
use super::thresholds::ContextLimits;

/// After this many autocompactions in a row fail, stop trying for the session
/// (seed 004: 3 consecutive failures open the circuit breaker). A failing
/// summary call on every turn would double the cost of a session that cannot
/// be helped anyway.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// Autocompact state carried in the loop's `State` across iterations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutocompactTracking {
    pub consecutive_failures: u32,
    /// Successful compactions so far in this session.
    pub compactions: u32,
}

impl AutocompactTracking {
    pub fn circuit_open(&self) -> bool {
        self.consecutive_failures >= MAX_CONSECUTIVE_FAILURES
    }

    pub fn after_success(self) -> Self {
        AutocompactTracking {
            consecutive_failures: 0,
            compactions: self.compactions + 1,
        }
    }

    pub fn after_failure(self) -> Self {
        AutocompactTracking {
            consecutive_failures: self.consecutive_failures + 1,
            ..self
        }
    }
}

/// Whether to autocompact before the next request.
pub fn should_autocompact(
    prompt_tokens: u64,
    limits: &ContextLimits,
    tracking: &AutocompactTracking,
) -> bool {
    !tracking.circuit_open() && prompt_tokens > limits.autocompact_threshold()
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
        "This session continues an earlier conversation that ran out of context. \
The summary below covers the earlier part of it.\n\n{summary}"
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
