//! Chat Completions SSE (`data: {chunk}` … `data: [DONE]`) → [`StreamEvent`]s.
//!
//! Each chunk's `choices[0].delta` carries text (`content`, `refusal`),
//! reasoning (`reasoning_content` or `reasoning`) or tool-call fragments keyed
//! by `index` (the first fragment of a call has its `id` and name, later ones
//! append to `arguments`). `finish_reason` and the `usage` chunk
//! (`stream_options.include_usage`) may come in either order; the message ends
//! at `[DONE]`, or at the end of the body once a finish reason was seen.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};

use serde::Deserialize;
use serde_json::Value;
use tack_protocol::{DeltaUsage, StopReason};

use super::errors::stream_error;
use super::synth::{Synth, call_id, usage};
use crate::error::ApiError;
use crate::event::StreamEvent;
use crate::sse::SseFramer;
use crate::transport::Decode;

#[derive(Debug, Default)]
pub(crate) struct ChatDecoder {
    framer: SseFramer,
    synth: Synth,
    /// OpenAI tool-call index → block index.
    calls: HashMap<usize, usize>,
    finish: Option<StopReason>,
    usage: DeltaUsage,
    done: bool,
}

/// `id` and `model` borrowed: they repeat in every chunk and are read once.
#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    usage: Option<ChatUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<ChoiceDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct ChoiceDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<CallDelta>>,
}

#[derive(Deserialize)]
struct CallDelta {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct ChatUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<Details>,
}

#[derive(Deserialize)]
struct Details {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl Decode for ChatDecoder {
    fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        self.framer.push(chunk)?;
        self.drain(out)
    }

    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        self.framer.finish();
        self.drain(out)?;
        if !self.synth.is_finished() {
            if self.finish.is_none() {
                return Err(ApiError::Connection {
                    message: "stream ended before the response finished".into(),
                });
            }
            self.end(out)?;
        }
        Ok(())
    }

    fn has_content(&self) -> bool {
        self.synth.has_content()
    }

    fn is_finished(&self) -> bool {
        self.synth.is_finished()
    }
}

impl ChatDecoder {
    fn drain(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        // Out of `self` while its frames are read: chunks borrow from it.
        let mut framer = std::mem::take(&mut self.framer);
        let result = self.drain_from(&mut framer, out);
        self.framer = framer;
        result
    }

    fn drain_from(
        &mut self,
        framer: &mut SseFramer,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ApiError> {
        while let Some(frame) = framer.next_frame() {
            if self.done {
                continue;
            }
            let data = frame.data.trim_ascii();
            if data == b"[DONE]" {
                self.done = true;
                if self.finish.is_none() {
                    self.finish = Some(StopReason::EndTurn);
                }
                self.end(out)?;
                continue;
            }
            let chunk: Chunk = serde_json::from_slice(data).map_err(|e| ApiError::Protocol {
                message: format!(
                    "bad chat completion chunk ({e}): {}",
                    String::from_utf8_lossy(&data[..data.len().min(200)])
                ),
            })?;
            self.chunk(chunk, out)?;
        }
        Ok(())
    }

    fn chunk(&mut self, chunk: Chunk<'_>, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        if let Some(error) = chunk.error {
            return Err(stream_error(&error));
        }
        self.synth.start(
            chunk.id.as_deref().unwrap_or("chatcmpl"),
            chunk.model.as_deref().unwrap_or_default(),
            out,
        )?;
        if let Some(u) = chunk.usage {
            let cached = u
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .unwrap_or(0);
            self.usage = usage(u.prompt_tokens, u.completion_tokens, cached);
        }
        for choice in chunk.choices.into_iter().flatten().take(1) {
            let delta = choice.delta.unwrap_or_default();
            let reasoning = delta.reasoning_content.or(delta.reasoning);
            self.synth
                .thinking(reasoning.as_deref().unwrap_or(""), out)?;
            self.synth
                .text(delta.content.as_deref().unwrap_or(""), out)?;
            if let Some(refusal) = delta.refusal.as_deref().filter(|r| !r.is_empty()) {
                self.synth.text(refusal, out)?;
                self.finish = Some(StopReason::Refusal);
            }
            for call in delta.tool_calls.into_iter().flatten() {
                self.call(call, out)?;
            }
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(stop_reason(&reason));
            }
        }
        Ok(())
    }

    fn call(&mut self, call: CallDelta, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        // Without an index: a fragment with an id starts a call, one without
        // continues the last.
        let key = match (call.index, &call.id) {
            (Some(index), _) => index,
            (None, Some(_)) => self.calls.len(),
            (None, None) => self.calls.len().saturating_sub(1),
        };
        let (name, arguments) = match call.function {
            Some(f) => (f.name, f.arguments),
            None => (None, None),
        };
        let index = match self.calls.get(&key) {
            Some(index) => *index,
            None => {
                let id = call.id.filter(|id| !id.is_empty()).unwrap_or_else(call_id);
                let index = self.synth.tool(&id, name.as_deref().unwrap_or(""), out)?;
                self.calls.insert(key, index);
                index
            }
        };
        self.synth
            .tool_args(index, arguments.as_deref().unwrap_or(""), out)
    }

    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        if !self.synth.is_started() {
            self.synth.start("chatcmpl", "", out)?;
        }
        let reason = self.finish.clone().unwrap_or(StopReason::EndTurn);
        self.synth
            .finish(reason, std::mem::take(&mut self.usage), out)
    }
}

/// `finish_reason` → stop reason: `length` is `max_tokens` (so the loop's
/// output-limit recovery runs), `content_filter` a refusal (the turn ends).
pub(crate) fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "stop" => StopReason::EndTurn,
        "length" => StopReason::MaxTokens,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "content_filter" => StopReason::Refusal,
        other => StopReason::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests;
