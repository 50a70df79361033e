//! The JSON script format (documented in the crate docs) and its errors.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::Value;

use crate::reply::{MessageReply, Reply};

/// Why a script could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The file could not be read.
    #[error("cannot read script {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Not valid JSON, or not the expected shape; the message gives line and column.
    #[error("invalid script JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Well-formed JSON that does not describe a reply.
    #[error("script reply at index {index}: {reason}")]
    Invalid {
        /// Position of the reply in the top-level array (0-based).
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplySpec {
    text: Option<String>,
    blocks: Option<Vec<BlockSpec>>,
    error: Option<ErrorSpec>,
    prompt_too_long: Option<PromptTooLongSpec>,
    stop_reason: Option<String>,
    usage: Option<UsageSpec>,
    model: Option<String>,
    pacing_ms: Option<u64>,
    block_gap_ms: Option<u64>,
    cut_after: Option<usize>,
    error_event_after: Option<ErrorEventSpec>,
    stall_after: Option<StallSpec>,
    retry_after: Option<u64>,
    retry_after_ms: Option<u64>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum BlockSpec {
    Text {
        text: String,
        citations: Option<Vec<Value>>,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Option<Value>,
        raw_input: Option<String>,
    },
    ServerToolUse {
        id: String,
        name: String,
        input: Value,
    },
    WebSearchToolResult {
        tool_use_id: String,
        content: Value,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorSpec {
    status: u16,
    #[serde(rename = "type")]
    error_type: String,
    message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PromptTooLongSpec {
    actual: u64,
    limit: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageSpec {
    input_tokens: u64,
    output_tokens: u64,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorEventSpec {
    after: usize,
    #[serde(rename = "type")]
    error_type: String,
    message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StallSpec {
    after: usize,
    ms: u64,
}

/// Parses a script file's text into replies.
pub(crate) fn parse(text: &str) -> Result<Vec<Reply>, ScriptError> {
    let specs: Vec<ReplySpec> = serde_json::from_str(text)?;
    specs
        .into_iter()
        .enumerate()
        .map(|(index, spec)| {
            to_reply(spec).map_err(|reason| ScriptError::Invalid { index, reason })
        })
        .collect()
}

fn to_reply(spec: ReplySpec) -> Result<Reply, String> {
    let kinds = [
        spec.text.is_some(),
        spec.blocks.is_some(),
        spec.error.is_some(),
        spec.prompt_too_long.is_some(),
    ];
    if kinds.iter().filter(|&&k| k).count() != 1 {
        return Err(
            r#"needs exactly one of "text", "blocks", "error", "prompt_too_long""#.to_owned(),
        );
    }
    let mut reply = if let Some(error) = &spec.error {
        reject_message_options(&spec)?;
        if !(100..=599).contains(&error.status) {
            return Err(format!(
                "error status {} is not an HTTP status",
                error.status
            ));
        }
        Reply::http_error(error.status, &error.error_type, &error.message)
    } else if let Some(p) = &spec.prompt_too_long {
        reject_message_options(&spec)?;
        Reply::prompt_too_long(p.actual, p.limit)
    } else {
        message(&spec)?.into()
    };
    if let Some(secs) = spec.retry_after {
        reply = reply.retry_after(secs);
    }
    if let Some(ms) = spec.retry_after_ms {
        reply = reply.retry_after_ms(ms);
    }
    for (name, value) in &spec.headers {
        if HeaderName::try_from(name.as_str()).is_err() || HeaderValue::try_from(value).is_err() {
            return Err(format!("invalid header {name:?}: {value:?}"));
        }
        reply = reply.header(name, value);
    }
    Ok(reply)
}

fn reject_message_options(spec: &ReplySpec) -> Result<(), String> {
    let options = [
        ("stop_reason", spec.stop_reason.is_some()),
        ("usage", spec.usage.is_some()),
        ("model", spec.model.is_some()),
        ("pacing_ms", spec.pacing_ms.is_some()),
        ("block_gap_ms", spec.block_gap_ms.is_some()),
        ("cut_after", spec.cut_after.is_some()),
        ("error_event_after", spec.error_event_after.is_some()),
        ("stall_after", spec.stall_after.is_some()),
    ];
    match options.iter().find(|(_, set)| *set) {
        Some((name, _)) => Err(format!(
            "\"{name}\" only applies to \"text\" or \"blocks\" replies"
        )),
        None => Ok(()),
    }
}

fn message(spec: &ReplySpec) -> Result<MessageReply, String> {
    let mut m = Reply::message();
    if let Some(text) = &spec.text {
        m = m.text(text);
    }
    for block in spec.blocks.iter().flatten() {
        m = match block {
            BlockSpec::Text {
                text,
                citations: None,
            } => m.text(text),
            BlockSpec::Text {
                text,
                citations: Some(citations),
            } => m.cited_text(text, citations.clone()),
            BlockSpec::ServerToolUse { id, name, input } => {
                m.server_tool_use(id, name, input.clone())
            }
            BlockSpec::WebSearchToolResult {
                tool_use_id,
                content,
            } => m.web_search_tool_result(tool_use_id, content.clone()),
            BlockSpec::Thinking {
                thinking,
                signature,
            } => m.thinking(thinking, signature),
            BlockSpec::ToolUse {
                id,
                name,
                input,
                raw_input,
            } => match (input, raw_input) {
                (Some(input), None) => m.tool_use(id, name, input.clone()),
                (None, Some(raw)) => m.raw_tool_input(id, name, raw),
                _ => {
                    return Err(format!(
                        "tool_use {id:?} needs exactly one of \"input\", \"raw_input\""
                    ));
                }
            },
        };
    }
    if let Some(reason) = &spec.stop_reason {
        m = m.stop_reason(reason);
    }
    if let Some(usage) = &spec.usage {
        m = m.usage(usage.input_tokens, usage.output_tokens);
        if usage.cache_creation_input_tokens.is_some() || usage.cache_read_input_tokens.is_some() {
            m = m.cache(
                usage.cache_creation_input_tokens.unwrap_or(0),
                usage.cache_read_input_tokens.unwrap_or(0),
            );
        }
    }
    if let Some(model) = &spec.model {
        m = m.model(model);
    }
    if let Some(ms) = spec.pacing_ms {
        m = m.pacing(Duration::from_millis(ms));
    }
    if let Some(ms) = spec.block_gap_ms {
        m = m.block_gap(Duration::from_millis(ms));
    }
    if spec.cut_after.is_some() && spec.error_event_after.is_some() {
        return Err(
            r#""cut_after" and "error_event_after" both end the stream; pick one"#.to_owned(),
        );
    }
    if let Some(n) = spec.cut_after {
        m = m.cut_after(n);
    }
    if let Some(e) = &spec.error_event_after {
        m = m.error_event_after(e.after, &e.error_type, &e.message);
    }
    if let Some(s) = &spec.stall_after {
        m = m.stall_after(s.after, Duration::from_millis(s.ms));
    }
    Ok(m)
}
