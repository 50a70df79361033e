//! The stream accumulator (streaming spec §5): SSE events in, the message
//! snapshot, finished blocks and the final message out.
//!
//! Block state is keyed by `index`. Tool input fragments are appended to a
//! per-block buffer and parsed once, at `content_block_stop`; malformed input
//! becomes a [`ToolInputError`] carrying the raw text, with `{}` as the input.

use std::collections::VecDeque;

use serde_json::{Map, Value};
use tack_protocol::json_kind::kind_of;
use tack_protocol::{ContentBlock, Delta, MessageResponse, SseEvent};

use crate::classify::classify_stream_error;
use crate::cloud::event_stream::EventStreamFramer;
use crate::decode::{decode, fast_delta};
use crate::error::ApiError;
use crate::event::{StreamEvent, ToolInputError};
use crate::sse::SseFramer;

/// Turns the bytes of a Messages SSE response into [`StreamEvent`]s: framing,
/// decoding and accumulation in one incremental pass. Feed it chunks as they
/// arrive (any split), then call [`StreamDecoder::finish`] at end of stream.
///
/// [`AnthropicClient`](crate::AnthropicClient) uses it per attempt; it is public
/// for replaying recorded streams and for benchmarks.
#[derive(Debug, Default)]
pub struct StreamDecoder {
    framing: Framing,
    assembler: Assembler,
}

/// How the events arrive: SSE (the Anthropic API, Vertex), or Bedrock's
/// event-stream messages each carrying one event's JSON.
#[derive(Debug)]
enum Framing {
    Sse(SseFramer),
    EventStream(EventStreamFramer),
}

impl Default for Framing {
    fn default() -> Self {
        Framing::Sse(SseFramer::default())
    }
}

impl StreamDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder of Bedrock's `application/vnd.amazon.eventstream` body: the
    /// same events as [`StreamDecoder::new`] gives for the same message over SSE.
    pub fn event_stream() -> Self {
        StreamDecoder {
            framing: Framing::EventStream(EventStreamFramer::default()),
            assembler: Assembler::default(),
        }
    }

    /// Consumes `chunk`, appending every event it completes to `out`. An `Err`
    /// (a mid-stream `error` event, or a protocol violation) ends the stream;
    /// events before it are already in `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        match &mut self.framing {
            Framing::Sse(framer) => framer.push(chunk)?,
            Framing::EventStream(framer) => framer.push(chunk),
        }
        self.drain(out)
    }

    /// End of the byte stream: an error unless `message_stop` was seen.
    pub fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        if let Framing::Sse(framer) = &mut self.framing {
            framer.finish();
        }
        self.drain(out)?;
        if self.assembler.finished {
            Ok(())
        } else {
            Err(ApiError::Connection {
                message: "stream ended before message_stop".into(),
            })
        }
    }

    fn drain(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        let framer = match &mut self.framing {
            Framing::Sse(framer) => framer,
            Framing::EventStream(framer) => {
                while let Some(message) = framer.next_message()? {
                    if let Some(event) = crate::cloud::bedrock::event(&message)? {
                        self.assembler.push(event, out)?;
                    }
                }
                return Ok(());
            }
        };
        while let Some(frame) = framer.next_frame() {
            // Hot path: a delta goes from bytes to its queue slot without the
            // 288-byte `SseEvent` being moved around on the way.
            if frame.event == b"content_block_delta"
                && let Some((index, delta)) = fast_delta(frame.data)
            {
                self.assembler.delta(index, delta, out)?;
                continue;
            }
            if let Some(event) = decode(frame)? {
                self.assembler.push(event, out)?;
            }
        }
        Ok(())
    }

    /// Whether any content has arrived (a block started, or the message ended):
    /// from then on a failure must not be retried transparently.
    pub fn has_content(&self) -> bool {
        self.assembler.has_content
    }

    /// Whether `message_stop` was seen.
    pub fn is_finished(&self) -> bool {
        self.assembler.finished
    }
}

const EARLY: &str = "event before message_start (unexpected event order)";

/// A gap in block indexes larger than this is a protocol error (not an allocation).
const MAX_INDEX_GAP: usize = 1024;

/// SSE events → finished blocks and the final message. Also fed by the
/// OpenAI decoders with the events they synthesise.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    snapshot: Option<MessageResponse>,
    blocks: Vec<Option<Slot>>,
    pub(crate) has_content: bool,
    pub(crate) finished: bool,
}

#[derive(Debug)]
struct Slot {
    block: ContentBlock,
    /// `Some` for tool_use / server_tool_use: the concatenated `partial_json`.
    tool_json: Option<String>,
    stopped: bool,
}

impl Assembler {
    pub(crate) fn push(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ApiError> {
        if self.finished {
            return Ok(());
        }
        let mut done = None;
        match &event {
            SseEvent::MessageStart { message } => {
                if self.snapshot.is_some() {
                    return Err(protocol("second message_start"));
                }
                let mut snapshot = message.clone();
                snapshot.content.clear();
                self.snapshot = Some(snapshot);
            }
            SseEvent::Error { error } => return Err(classify_stream_error(error)),
            SseEvent::Ping | SseEvent::Unknown(_) => {}
            _ if self.snapshot.is_none() => {
                return Err(protocol(EARLY));
            }
            SseEvent::ContentBlockStart {
                index,
                content_block,
            } => {
                self.start_block(*index, content_block)?;
            }
            SseEvent::ContentBlockDelta { index, delta } => self.apply_delta(*index, delta)?,
            SseEvent::ContentBlockStop { index } => {
                let index = *index;
                let slot = self.slot(index)?;
                if slot.stopped {
                    return Err(protocol(&format!(
                        "content_block_stop for stopped block {index}"
                    )));
                }
                let (block, input_error) = finish_block(slot);
                done = Some(StreamEvent::BlockDone {
                    index,
                    block,
                    input_error,
                });
            }
            SseEvent::MessageDelta { delta, usage } => {
                self.has_content = true;
                if let Some(snapshot) = &mut self.snapshot {
                    if delta.stop_reason.is_some() {
                        snapshot.stop_reason.clone_from(&delta.stop_reason);
                    }
                    snapshot.stop_sequence.clone_from(&delta.stop_sequence);
                    if delta.stop_details.is_some() {
                        snapshot.stop_details.clone_from(&delta.stop_details);
                    }
                    snapshot.usage.apply_delta(usage);
                }
            }
            SseEvent::MessageStop => {
                out.push_back(StreamEvent::Sse(event));
                self.finish_message(out);
                return Ok(());
            }
        }
        out.push_back(StreamEvent::Sse(event));
        if let Some(done) = done {
            out.push_back(done);
        }
        Ok(())
    }

    fn delta(
        &mut self,
        index: usize,
        delta: Delta,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ApiError> {
        if self.finished {
            return Ok(());
        }
        if self.snapshot.is_none() {
            return Err(protocol(EARLY));
        }
        self.apply_delta(index, &delta)?;
        out.push_back(StreamEvent::Sse(SseEvent::ContentBlockDelta {
            index,
            delta,
        }));
        Ok(())
    }

    fn start_block(&mut self, index: usize, block: &ContentBlock) -> Result<(), ApiError> {
        if index >= self.blocks.len() + MAX_INDEX_GAP {
            return Err(protocol(&format!(
                "content block index {index} out of range"
            )));
        }
        if index >= self.blocks.len() {
            self.blocks.resize_with(index + 1, || None);
        }
        let is_tool = match block {
            ContentBlock::ToolUse { .. } => true,
            ContentBlock::Unknown(u) => {
                u.0.get("type").and_then(Value::as_str) == Some("server_tool_use")
            }
            _ => false,
        };
        self.has_content = true;
        self.blocks[index] = Some(Slot {
            block: block.clone(),
            tool_json: is_tool.then(String::new),
            stopped: false,
        });
        Ok(())
    }

    fn slot(&mut self, index: usize) -> Result<&mut Slot, ApiError> {
        match self.blocks.get_mut(index) {
            Some(Some(slot)) => Ok(slot),
            _ => Err(protocol(&format!(
                "event for content block {index}, which never started"
            ))),
        }
    }

    fn apply_delta(&mut self, index: usize, delta: &Delta) -> Result<(), ApiError> {
        let slot = self.slot(index)?;
        // A delta that does not fit its block is skipped, like an unknown one.
        match (delta, &mut slot.block, &mut slot.tool_json) {
            (Delta::TextDelta { text }, ContentBlock::Text { text: t, .. }, _) => t.push_str(text),
            (Delta::InputJsonDelta { partial_json }, _, Some(buf)) => buf.push_str(partial_json),
            (Delta::ThinkingDelta { thinking }, ContentBlock::Thinking { thinking: t, .. }, _) => {
                t.push_str(thinking);
            }
            (
                Delta::SignatureDelta { signature },
                ContentBlock::Thinking { signature: s, .. },
                _,
            ) => {
                s.clone_from(signature);
            }
            (Delta::CitationsDelta { citation }, ContentBlock::Text { citations, .. }, _) => {
                citations
                    .get_or_insert_with(Vec::new)
                    .push(citation.clone());
            }
            _ => {}
        }
        Ok(())
    }

    fn finish_message(&mut self, out: &mut VecDeque<StreamEvent>) {
        self.finished = true;
        self.has_content = true;
        let Some(mut message) = self.snapshot.take() else {
            return;
        };
        // Blocks never stopped still complete here, so every tool_use is reported once.
        for (index, slot) in self.blocks.iter_mut().enumerate() {
            if let Some(slot) = slot.as_mut().filter(|s| !s.stopped) {
                let (block, input_error) = finish_block(slot);
                out.push_back(StreamEvent::BlockDone {
                    index,
                    block,
                    input_error,
                });
            }
        }
        message.content = self
            .blocks
            .drain(..)
            .flatten()
            .map(|slot| slot.block)
            .collect();
        out.push_back(StreamEvent::MessageDone(message));
    }
}

/// Parses the tool input (if any) into the block and returns a copy of the block.
fn finish_block(slot: &mut Slot) -> (ContentBlock, Option<ToolInputError>) {
    slot.stopped = true;
    let mut input_error = None;
    if let Some(raw) = slot.tool_json.take() {
        let parsed = if raw.is_empty() {
            Ok(Map::new())
        } else {
            match serde_json::from_str::<Value>(&raw) {
                Ok(Value::Object(map)) => Ok(map),
                Ok(other) => Err(format!("expected a JSON object, got {}", kind_of(&other))),
                Err(e) => Err(e.to_string()),
            }
        };
        let input = match parsed {
            Ok(map) => Value::Object(map),
            Err(message) => {
                let (id, name) = tool_identity(&slot.block);
                input_error = Some(ToolInputError {
                    id,
                    name,
                    raw,
                    message,
                });
                Value::Object(Map::new())
            }
        };
        match &mut slot.block {
            ContentBlock::ToolUse { input: i, .. } => *i = input,
            ContentBlock::Unknown(u) => {
                if let Some(obj) = u.0.as_object_mut() {
                    obj.insert("input".into(), input);
                }
            }
            _ => {}
        }
    }
    (slot.block.clone(), input_error)
}

fn tool_identity(block: &ContentBlock) -> (String, String) {
    match block {
        ContentBlock::ToolUse { id, name, .. } => (id.clone(), name.clone()),
        ContentBlock::Unknown(u) => {
            let field = |k: &str| {
                u.0.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            (field("id"), field("name"))
        }
        _ => Default::default(),
    }
}

fn protocol(message: &str) -> ApiError {
    ApiError::Protocol {
        message: message.to_owned(),
    }
}

#[cfg(test)]
mod tests;
