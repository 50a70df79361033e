//! SSE frame → [`SseEvent`].
//!
//! Dispatches on the SSE event name (always equal to the JSON `type`) and
//! deserialises straight into that variant's payload, so the hot
//! `content_block_delta` path never goes through serde's internally-tagged
//! buffering: one pass over the JSON, unknown fields skipped, one `String` per delta.
//! Unknown event names become [`SseEvent::Unknown`] (or nothing, if their data is
//! not JSON); a known event with malformed data is a protocol error.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tack_protocol::{
    ApiErrorDetail, ContentBlock, Delta, DeltaUsage, MessageDeltaBody, MessageResponse, SseEvent,
};

use crate::ApiError;
use crate::sse::Frame;

pub(crate) fn decode(frame: Frame<'_>) -> Result<Option<SseEvent>, ApiError> {
    let event = match frame.event {
        b"content_block_delta" => decode_delta(frame.data)?,
        b"content_block_start" => {
            let p: BlockStart = parse(frame)?;
            SseEvent::ContentBlockStart { index: p.index, content_block: p.content_block }
        }
        b"content_block_stop" => {
            let p: BlockStop = parse(frame)?;
            SseEvent::ContentBlockStop { index: p.index }
        }
        b"message_start" => {
            let p: MessageStart = parse(frame)?;
            SseEvent::MessageStart { message: p.message }
        }
        b"message_delta" => {
            let p: MessageDelta = parse(frame)?;
            SseEvent::MessageDelta { delta: p.delta, usage: p.usage }
        }
        b"message_stop" => SseEvent::MessageStop,
        b"ping" => SseEvent::Ping,
        b"error" => {
            let p: ErrorEvent = parse(frame)?;
            SseEvent::Error { error: p.error }
        }
        // No `event:` line: fall back to the `type` field.
        b"message" => match serde_json::from_slice::<SseEvent>(frame.data) {
            Ok(event) => event,
            Err(e) => return Err(protocol(frame, &e)),
        },
        _ => match serde_json::from_slice::<Value>(frame.data) {
            Ok(value) => SseEvent::Unknown(value),
            Err(_) => return Ok(None),
        },
    };
    Ok(Some(event))
}

fn parse<T: DeserializeOwned>(frame: Frame<'_>) -> Result<T, ApiError> {
    serde_json::from_slice(frame.data).map_err(|e| protocol(frame, &e))
}

fn protocol(frame: Frame<'_>, err: &dyn std::fmt::Display) -> ApiError {
    const MAX: usize = 200;
    let data = String::from_utf8_lossy(&frame.data[..frame.data.len().min(MAX)]);
    let more = if frame.data.len() > MAX { "…" } else { "" };
    ApiError::Protocol {
        message: format!(
            "bad `{}` event ({err}): {data}{more}",
            String::from_utf8_lossy(frame.event)
        ),
    }
}

fn decode_delta(data: &[u8]) -> Result<SseEvent, ApiError> {
    match fast_delta(data) {
        Some((index, delta)) => Ok(SseEvent::ContentBlockDelta { index, delta }),
        None => slow_delta(data),
    }
}

/// The API's exact compact form of the four string deltas, e.g.
/// `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"…"}}`,
/// read without a JSON parser: one memchr pass finds the closing quote and
/// unescapes on the way. Anything else — other key order, spacing, extra fields,
/// `\u` escapes — returns `None` and takes [`slow_delta`], which gives the same
/// result (property-tested below).
pub(crate) fn fast_delta(data: &[u8]) -> Option<(usize, Delta)> {
    let rest = data.strip_prefix(br#"{"type":"content_block_delta","index":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let index = rest[..digits].iter().fold(0usize, |n, d| n * 10 + usize::from(d - b'0'));
    let rest = rest[digits..].strip_prefix(br#","delta":{"type":""#)?;
    type Make = fn(String) -> Delta;
    let kinds: [(&[u8], Make); 4] = [
        (br#"text_delta","text":""#, |text| Delta::TextDelta { text }),
        (br#"input_json_delta","partial_json":""#, |partial_json| Delta::InputJsonDelta { partial_json }),
        (br#"thinking_delta","thinking":""#, |thinking| Delta::ThinkingDelta { thinking }),
        (br#"signature_delta","signature":""#, |signature| Delta::SignatureDelta { signature }),
    ];
    let (body, make) = kinds.iter().find_map(|(p, make)| Some((rest.strip_prefix(*p)?, make)))?;
    let (value, end) = json_string(body)?;
    if &body[end..] != b"}}" {
        return None;
    }
    Some((index, make(value)))
}

/// Decodes a JSON string body (after the opening quote): the value and the offset
/// just past the closing quote. `None` on `\u` escapes and anything invalid.
fn json_string(body: &[u8]) -> Option<(String, usize)> {
    let mut out = Vec::with_capacity(body.len().saturating_sub(3));
    let mut pos = 0;
    loop {
        let i = pos + memchr::memchr2(b'"', b'\\', &body[pos..])?;
        let segment = &body[pos..i];
        // Raw control characters are invalid JSON (branch-free, vectorises).
        if segment.iter().fold(false, |bad, b| bad | (*b < 0x20)) {
            return None;
        }
        out.extend_from_slice(segment);
        if body[i] == b'"' {
            return Some((String::from_utf8(out).ok()?, i + 1));
        }
        out.push(match body.get(i + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 0x08,
            b'f' => 0x0c,
            _ => return None,
        });
        pos = i + 2;
    }
}

fn slow_delta(data: &[u8]) -> Result<SseEvent, ApiError> {
    let frame = Frame { event: b"content_block_delta", data };
    let p: DeltaEvent<'_> =
        serde_json::from_slice(data).map_err(|e| protocol(frame, &e))?;
    let d = p.delta;
    let missing = |field: &str| protocol(frame, &format!("`{}` without `{field}`", d.kind));
    let delta = match &*d.kind {
        "text_delta" => Delta::TextDelta { text: d.text.ok_or_else(|| missing("text"))? },
        "input_json_delta" => Delta::InputJsonDelta {
            partial_json: d.partial_json.ok_or_else(|| missing("partial_json"))?,
        },
        "thinking_delta" => {
            Delta::ThinkingDelta { thinking: d.thinking.ok_or_else(|| missing("thinking"))? }
        }
        "signature_delta" => {
            Delta::SignatureDelta { signature: d.signature.ok_or_else(|| missing("signature"))? }
        }
        "citations_delta" => {
            Delta::CitationsDelta { citation: d.citation.ok_or_else(|| missing("citation"))? }
        }
        // Rare: re-read the whole event to keep the unknown delta verbatim.
        _ => {
            let mut value: Value = serde_json::from_slice(data).map_err(|e| protocol(frame, &e))?;
            Delta::Unknown(value.get_mut("delta").map(Value::take).unwrap_or_default())
        }
    };
    Ok(SseEvent::ContentBlockDelta { index: p.index, delta })
}

#[derive(Deserialize)]
struct DeltaEvent<'a> {
    index: usize,
    #[serde(borrow)]
    delta: RawDelta<'a>,
}

/// Every known delta's fields, flat: one pass, no tag buffering.
#[derive(Deserialize)]
struct RawDelta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    text: Option<String>,
    partial_json: Option<String>,
    thinking: Option<String>,
    signature: Option<String>,
    citation: Option<Value>,
}

#[derive(Deserialize)]
struct BlockStart {
    index: usize,
    content_block: ContentBlock,
}

#[derive(Deserialize)]
struct BlockStop {
    index: usize,
}

#[derive(Deserialize)]
struct MessageStart {
    message: MessageResponse,
}

#[derive(Deserialize)]
struct MessageDelta {
    delta: MessageDeltaBody,
    #[serde(default)]
    usage: DeltaUsage,
}

#[derive(Deserialize)]
struct ErrorEvent {
    error: ApiErrorDetail,
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use tack_protocol::{Role, StopReason, Usage};

    use super::*;

    fn dec(event: &str, data: &str) -> Result<Option<SseEvent>, ApiError> {
        decode(Frame { event: event.as_bytes(), data: data.as_bytes() })
    }

    #[test]
    fn every_event_type() {
        let cases: Vec<(&str, &str, SseEvent)> = vec![
            (
                "message_start",
                r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"cache_creation_input_tokens":null,"cache_read_input_tokens":3,"output_tokens":1}}}"#,
                SseEvent::MessageStart {
                    message: MessageResponse {
                        id: "msg_1".into(),
                        kind: "message".into(),
                        role: Role::Assistant,
                        model: "m".into(),
                        content: vec![],
                        stop_reason: None,
                        stop_sequence: None,
                        usage: Usage {
                            input_tokens: 5,
                            cache_read_input_tokens: 3,
                            output_tokens: 1,
                            ..Usage::default()
                        },
                        stop_details: None,
                    },
                },
            ),
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"Read","input":{}}}"#,
                SseEvent::ContentBlockStart {
                    index: 1,
                    content_block: ContentBlock::tool_use("t", "Read", json!({})),
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"\u00e9"}}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::TextDelta { text: "a\"é".into() },
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}"#,
                SseEvent::ContentBlockDelta {
                    index: 2,
                    delta: Delta::InputJsonDelta { partial_json: "{\"a".into() },
                },
            ),
            (
                "content_block_delta",
                r#"{"index":0,"delta":{"thinking":"hm","type":"thinking_delta"},"type":"content_block_delta"}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::ThinkingDelta { thinking: "hm".into() },
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::SignatureDelta { signature: "sig".into() },
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::CitationsDelta { citation: json!({"type":"char_location"}) },
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"future_delta","x":1}}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::Unknown(json!({"type":"future_delta","x":1})),
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":12,"delta":{"type":"input_json_delta","partial_json":"{\"a\\\"\ud83d\ude00"}}"#,
                SseEvent::ContentBlockDelta {
                    index: 12,
                    delta: Delta::InputJsonDelta { partial_json: "{\"a\\\"😀".into() },
                },
            ),
            (
                "content_block_stop",
                r#"{"type":"content_block_stop","index":1}"#,
                SseEvent::ContentBlockStop { index: 1 },
            ),
            (
                "message_delta",
                r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":61}}"#,
                SseEvent::MessageDelta {
                    delta: MessageDeltaBody {
                        stop_reason: Some(StopReason::ToolUse),
                        stop_sequence: None,
                        stop_details: None,
                    },
                    usage: DeltaUsage { output_tokens: 61, ..DeltaUsage::default() },
                },
            ),
            ("message_stop", r#"{"type":"message_stop"}"#, SseEvent::MessageStop),
            ("ping", r#"{"type":"ping"}"#, SseEvent::Ping),
            (
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                SseEvent::Error {
                    error: ApiErrorDetail {
                        kind: "overloaded_error".into(),
                        message: "Overloaded".into(),
                        details: None,
                    },
                },
            ),
            ("message", r#"{"type":"ping"}"#, SseEvent::Ping),
            (
                "future_event",
                r#"{"type":"future_event","n":1}"#,
                SseEvent::Unknown(json!({"type":"future_event","n":1})),
            ),
        ];
        for (event, data, expected) in cases {
            assert_eq!(dec(event, data), Ok(Some(expected)), "{event}: {data}");
        }
    }

    /// The hand-written path must agree with serde_json wherever it answers.
    #[test]
    fn fast_delta_agrees_with_serde() {
        let strings = [
            "", "plain", "a\\\"b", "\\\\", "\\n\\t", "\\u00e9\\ud83d\\ude00", "é✓", "\\", "\\\"", "bad\\q",
            "\\ud800", "a\tb", "\\/\\b\\f\\r", "\\x", "ok\\",
        ];
        let kinds = [
            ("text_delta", "text"),
            ("input_json_delta", "partial_json"),
            ("thinking_delta", "thinking"),
            ("signature_delta", "signature"),
            ("text_delta", "partial_json"),
        ];
        let mut fast_hits = 0;
        for s in strings {
            for (kind, field) in kinds {
                for tail in ["}}", "} }", "},\"x\":1}", "}"] {
                    let data = format!(
                        r#"{{"type":"content_block_delta","index":7,"delta":{{"type":"{kind}","{field}":"{s}"{tail}"#
                    );
                    let slow = slow_delta(data.as_bytes());
                    if let Some((index, delta)) = fast_delta(data.as_bytes()) {
                        fast_hits += 1;
                        assert_eq!(Ok(SseEvent::ContentBlockDelta { index, delta }), slow, "{data}");
                    }
                }
            }
        }
        assert!(fast_hits >= 30, "{fast_hits}");
        // Invalid UTF-8 falls back to serde_json's error.
        let mut data = br#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""#.to_vec();
        data.extend_from_slice(b"\xff\"}}");
        assert_eq!(fast_delta(&data), None);
        assert!(slow_delta(&data).is_err());
    }

    #[test]
    fn unknown_event_with_non_json_data_is_ignored() {
        assert_eq!(dec("future", "not json"), Ok(None));
    }

    #[test]
    fn malformed_known_event_is_a_protocol_error() {
        let cases = [
            ("content_block_delta", r#"{"index":0,"delta":{"type":"text_delta"}}"#),
            ("content_block_delta", r#"{"index":0,"delta":{"type":"text_delta","text":"a""#),
            ("content_block_stop", r#"{"type":"content_block_stop"}"#),
            ("message_start", r#"{"type":"message_start"}"#),
            ("error", "Overloaded"),
        ];
        for (event, data) in cases {
            match dec(event, data) {
                Err(ApiError::Protocol { message }) => assert!(message.contains(event), "{message}"),
                other => panic!("{event}: {data}: {other:?}"),
            }
        }
    }
}
