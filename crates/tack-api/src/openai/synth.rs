//! The Anthropic-shaped event stream, synthesised from OpenAI streams.
//!
//! Both OpenAI decoders call these few operations ("text arrived", "a tool
//! call started", "the response ended with this reason and usage"); this file
//! turns them into `message_start`, `content_block_*`, `message_delta` and
//! `message_stop` events and feeds them to the same [`Assembler`] the Anthropic
//! decoder uses, so the loop, stream-json and the terminal UI see no
//! difference. Block indexes are dense and in order of first appearance; a text
//! or thinking block closes when another block starts, tool blocks stay open
//! until the response ends (parallel calls may interleave their arguments).

use std::collections::VecDeque;

use serde_json::{Map, Value};
use tack_protocol::{
    CacheCreation, ContentBlock, Delta, DeltaUsage, MessageDeltaBody, MessageResponse, Role,
    SseEvent, StopReason, Usage,
};

use crate::assemble::Assembler;
use crate::error::ApiError;
use crate::event::StreamEvent;

#[derive(Debug, Default)]
pub(crate) struct Synth {
    assembler: Assembler,
    started: bool,
    next_index: usize,
    /// The open text or thinking block: `(index, is_thinking)`.
    prose: Option<(usize, bool)>,
    /// Tool blocks still open, in index order.
    tools: Vec<usize>,
    saw_tool: bool,
}

type Out<'a> = &'a mut VecDeque<StreamEvent>;

impl Synth {
    pub(crate) fn has_content(&self) -> bool {
        self.assembler.has_content
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.assembler.finished
    }

    pub(crate) fn is_started(&self) -> bool {
        self.started
    }

    /// `message_start`, once; later calls do nothing.
    pub(crate) fn start(&mut self, id: &str, model: &str, out: Out<'_>) -> Result<(), ApiError> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        let message = MessageResponse {
            id: id.to_owned(),
            kind: "message".into(),
            role: Role::Assistant,
            model: model.to_owned(),
            content: Vec::new(),
            stop_reason: None,
            stop_sequence: None,
            // No cache writes (OpenAI has none to report), in the shape the
            // Anthropic API gives, so stream-json records look the same.
            usage: Usage {
                cache_creation: Some(CacheCreation::default()),
                ..Usage::default()
            },
            stop_details: None,
        };
        self.assembler.push(SseEvent::MessageStart { message }, out)
    }

    pub(crate) fn text(&mut self, text: &str, out: Out<'_>) -> Result<(), ApiError> {
        self.prose(text, false, out)
    }

    pub(crate) fn thinking(&mut self, text: &str, out: Out<'_>) -> Result<(), ApiError> {
        self.prose(text, true, out)
    }

    fn prose(&mut self, text: &str, thinking: bool, out: Out<'_>) -> Result<(), ApiError> {
        if text.is_empty() {
            return Ok(());
        }
        let index = match self.prose {
            Some((index, t)) if t == thinking => index,
            _ => {
                let block = if thinking {
                    ContentBlock::Thinking {
                        thinking: String::new(),
                        signature: String::new(),
                    }
                } else {
                    ContentBlock::text("")
                };
                let index = self.open(block, out)?;
                self.prose = Some((index, thinking));
                index
            }
        };
        let delta = if thinking {
            Delta::ThinkingDelta {
                thinking: text.to_owned(),
            }
        } else {
            Delta::TextDelta {
                text: text.to_owned(),
            }
        };
        self.assembler
            .push(SseEvent::ContentBlockDelta { index, delta }, out)
    }

    /// Starts a tool call; returns its block index for [`Synth::tool_args`].
    pub(crate) fn tool(&mut self, id: &str, name: &str, out: Out<'_>) -> Result<usize, ApiError> {
        let block = ContentBlock::tool_use(id, name, Value::Object(Map::new()));
        let index = self.open(block, out)?;
        self.tools.push(index);
        self.saw_tool = true;
        Ok(index)
    }

    pub(crate) fn tool_args(
        &mut self,
        index: usize,
        json: &str,
        out: Out<'_>,
    ) -> Result<(), ApiError> {
        if json.is_empty() || !self.tools.contains(&index) {
            return Ok(());
        }
        let delta = Delta::InputJsonDelta {
            partial_json: json.to_owned(),
        };
        self.assembler
            .push(SseEvent::ContentBlockDelta { index, delta }, out)
    }

    /// Closes block `index` if it is open (a finished output item).
    pub(crate) fn stop(&mut self, index: usize, out: Out<'_>) -> Result<(), ApiError> {
        if self.prose.is_some_and(|(i, _)| i == index) {
            self.prose = None;
        } else if let Some(pos) = self.tools.iter().position(|i| *i == index) {
            self.tools.remove(pos);
        } else {
            return Ok(());
        }
        self.assembler
            .push(SseEvent::ContentBlockStop { index }, out)
    }

    /// Closes every open block, then `message_delta` and `message_stop`. A
    /// response that called a tool stops for `tool_use` whatever the server said
    /// (some servers say `stop`), unless it was cut off (`max_tokens`).
    pub(crate) fn finish(
        &mut self,
        reason: StopReason,
        usage: DeltaUsage,
        out: Out<'_>,
    ) -> Result<(), ApiError> {
        if let Some((index, _)) = self.prose {
            self.stop(index, out)?;
        }
        for index in std::mem::take(&mut self.tools) {
            self.assembler
                .push(SseEvent::ContentBlockStop { index }, out)?;
        }
        let stop_reason = match reason {
            StopReason::EndTurn if self.saw_tool => StopReason::ToolUse,
            other => other,
        };
        let delta = MessageDeltaBody {
            stop_reason: Some(stop_reason),
            stop_sequence: None,
            stop_details: None,
        };
        self.assembler
            .push(SseEvent::MessageDelta { delta, usage }, out)?;
        self.assembler.push(SseEvent::MessageStop, out)
    }

    fn open(&mut self, block: ContentBlock, out: Out<'_>) -> Result<usize, ApiError> {
        if let Some((index, _)) = self.prose {
            self.stop(index, out)?;
        }
        let index = self.next_index;
        self.next_index += 1;
        self.assembler.push(
            SseEvent::ContentBlockStart {
                index,
                content_block: block,
            },
            out,
        )?;
        Ok(index)
    }
}

/// OpenAI token counts → Anthropic usage: cached prompt tokens are cache reads,
/// the rest of the prompt is uncached input.
pub(crate) fn usage(prompt: u64, completion: u64, cached: u64) -> DeltaUsage {
    DeltaUsage {
        output_tokens: completion,
        input_tokens: Some(prompt.saturating_sub(cached)),
        cache_creation_input_tokens: None,
        cache_read_input_tokens: Some(cached),
        server_tool_use: None,
    }
}

/// An id for a tool call the server sent without one.
pub(crate) fn call_id() -> String {
    format!("call_{:016x}", rand::random::<u64>())
}
