//! Responses API SSE (`response.*` events) → [`StreamEvent`]s.
//!
//! Each output item (`message`, `function_call`, `reasoning`) is one block,
//! opened by `response.output_item.added` and closed by
//! `response.output_item.done`; `response.output_text.delta`,
//! `response.function_call_arguments.delta` and the reasoning deltas fill it by
//! `output_index`. `response.completed` / `response.incomplete` end the message
//! with usage; `response.failed` and `error` end the stream with an error.

use std::collections::{HashMap, VecDeque};

use serde::Deserialize;
use serde_json::Value;
use tack_protocol::StopReason;

use super::errors::stream_error;
use super::synth::{Synth, call_id, usage};
use crate::error::ApiError;
use crate::event::StreamEvent;
use crate::sse::SseFramer;
use crate::transport::Decode;

#[derive(Debug, Default)]
pub(crate) struct ResponsesDecoder {
    framer: SseFramer,
    synth: Synth,
    /// `output_index` → block index (and whether arguments were streamed).
    items: HashMap<usize, Item>,
}

#[derive(Debug, Clone, Copy)]
struct Item {
    block: Option<usize>,
    args_streamed: bool,
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    output_index: Option<usize>,
    #[serde(default)]
    delta: Option<String>,
    #[serde(default)]
    item: Option<OutputItem>,
    #[serde(default)]
    response: Option<Response>,
}

#[derive(Deserialize)]
struct OutputItem {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    usage: Option<ResponsesUsage>,
    #[serde(default)]
    incomplete_details: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ResponsesUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    input_tokens_details: Option<Value>,
}

impl Decode for ResponsesDecoder {
    fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        self.framer.push(chunk)?;
        while let Some(frame) = self.framer.next_frame() {
            if self.synth.is_finished() {
                continue;
            }
            let data = frame.data;
            let event: Event = serde_json::from_slice(data).map_err(|e| bad(&e, data))?;
            if event.kind == "error" {
                let raw: Value = serde_json::from_slice(data).map_err(|e| bad(&e, data))?;
                return Err(stream_error(&raw));
            }
            self.event(event, out)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        self.framer.finish();
        self.feed(&[], out)?;
        if self.synth.is_finished() {
            Ok(())
        } else {
            Err(ApiError::Connection {
                message: "stream ended before response.completed".into(),
            })
        }
    }

    fn has_content(&self) -> bool {
        self.synth.has_content()
    }

    fn is_finished(&self) -> bool {
        self.synth.is_finished()
    }
}

impl ResponsesDecoder {
    fn event(&mut self, event: Event, out: &mut VecDeque<StreamEvent>) -> Result<(), ApiError> {
        let index = event.output_index.unwrap_or(0);
        match event.kind.as_str() {
            "response.failed" => {
                let error = event.response.and_then(|r| r.error);
                return Err(stream_error(&error.unwrap_or(Value::Null)));
            }
            "response.created" | "response.in_progress" => {
                let response = event.response;
                let id = response.as_ref().and_then(|r| r.id.clone());
                let model = response.and_then(|r| r.model);
                self.synth.start(
                    id.as_deref().unwrap_or("resp"),
                    model.as_deref().unwrap_or(""),
                    out,
                )?;
                return Ok(());
            }
            _ => {}
        }
        self.synth.start("resp", "", out)?;
        match event.kind.as_str() {
            "response.output_item.added" => {
                if let Some(item) = event.item {
                    self.added(index, item, out)?;
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                self.synth.text(event.delta.as_deref().unwrap_or(""), out)?;
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.synth
                    .thinking(event.delta.as_deref().unwrap_or(""), out)?;
            }
            "response.function_call_arguments.delta" => {
                if let Some(item) = self.items.get_mut(&index) {
                    item.args_streamed = true;
                    if let Some(block) = item.block {
                        let delta = event.delta.as_deref().unwrap_or("");
                        self.synth.tool_args(block, delta, out)?;
                    }
                }
            }
            "response.output_item.done" => self.done(index, event.item, out)?,
            "response.completed" | "response.incomplete" => {
                self.completed(event.response, out)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn added(
        &mut self,
        index: usize,
        item: OutputItem,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ApiError> {
        let block = match item.kind.as_str() {
            "function_call" => {
                let id = item.call_id.unwrap_or_else(call_id);
                let block = self
                    .synth
                    .tool(&id, item.name.as_deref().unwrap_or(""), out)?;
                let args = item.arguments.unwrap_or_default();
                self.synth.tool_args(block, &args, out)?;
                self.items.insert(
                    index,
                    Item {
                        block: Some(block),
                        args_streamed: !args.is_empty(),
                    },
                );
                return Ok(());
            }
            // Text and reasoning open their block with their first delta.
            _ => None,
        };
        self.items.insert(
            index,
            Item {
                block,
                args_streamed: false,
            },
        );
        Ok(())
    }

    fn done(
        &mut self,
        index: usize,
        item: Option<OutputItem>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ApiError> {
        let Some(entry) = self.items.remove(&index) else {
            return Ok(());
        };
        let Some(block) = entry.block else {
            return Ok(());
        };
        if !entry.args_streamed {
            let args = item.and_then(|i| i.arguments).unwrap_or_default();
            self.synth.tool_args(block, &args, out)?;
        }
        self.synth.stop(block, out)
    }

    fn completed(
        &mut self,
        response: Option<Response>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ApiError> {
        let response = response.unwrap_or(Response {
            id: None,
            model: None,
            usage: None,
            incomplete_details: None,
            error: None,
        });
        let reason = match response
            .incomplete_details
            .as_ref()
            .and_then(|d| d.get("reason"))
            .and_then(Value::as_str)
        {
            Some("max_output_tokens") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::Refusal,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::EndTurn,
        };
        let u = response.usage.map_or_else(Default::default, |u| {
            let cached = u
                .input_tokens_details
                .as_ref()
                .and_then(|d| d.get("cached_tokens"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            usage(u.input_tokens, u.output_tokens, cached)
        });
        self.synth.finish(reason, u, out)
    }
}

fn bad(e: &serde_json::Error, data: &[u8]) -> ApiError {
    ApiError::Protocol {
        message: format!(
            "bad Responses event ({e}): {}",
            String::from_utf8_lossy(&data[..data.len().min(200)])
        ),
    }
}

#[cfg(test)]
mod tests;
