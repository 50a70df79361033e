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

use crate::error::ApiError;
use crate::sse::Frame;

pub(crate) fn decode(frame: Frame<'_>) -> Result<Option<SseEvent>, ApiError> {
    let event = match frame.event {
        b"content_block_delta" => decode_delta(frame.data)?,
        b"content_block_start" => {
            let p: BlockStart = parse(frame)?;
            SseEvent::ContentBlockStart {
                index: p.index,
                content_block: p.content_block,
            }
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
            SseEvent::MessageDelta {
                delta: p.delta,
                usage: p.usage,
            }
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

/// The four string deltas (`text`, `input_json`, `thinking`, `signature`) read
/// without a general JSON parser. First the API's exact compact form,
/// `{"type":"content_block_delta","index":N,"delta":{"type":KIND,FIELD:"…"}}`, by
/// prefix comparison; then a flat scan of the same object in any key order with
/// optional whitespace. Anything else — extra or repeated keys, non-string
/// values, `\u` escapes, invalid UTF-8 — returns `None` and takes [`slow_delta`],
/// which gives the same result (property-tested below).
pub(crate) fn fast_delta(data: &[u8]) -> Option<(usize, Delta)> {
    exact_delta(data).or_else(|| any_order_delta(data))
}

fn exact_delta(data: &[u8]) -> Option<(usize, Delta)> {
    let rest = data.strip_prefix(br#"{"type":"content_block_delta","index":"#)?;
    let mut c = Cursor { b: rest, pos: 0 };
    let index = c.number()?;
    let rest = rest[c.pos..].strip_prefix(br#","delta":{"type":""#)?;
    type Make = fn(String) -> Delta;
    let kinds: [(&[u8], Make); 4] = [
        (br#"text_delta","text":""#, |text| Delta::TextDelta { text }),
        (br#"input_json_delta","partial_json":""#, |partial_json| {
            Delta::InputJsonDelta { partial_json }
        }),
        (br#"thinking_delta","thinking":""#, |thinking| {
            Delta::ThinkingDelta { thinking }
        }),
        (br#"signature_delta","signature":""#, |signature| {
            Delta::SignatureDelta { signature }
        }),
    ];
    let (body, make) = kinds
        .iter()
        .find_map(|(p, make)| Some((rest.strip_prefix(*p)?, make)))?;
    let (value, end) = json_string(body)?;
    (&body[end..] == b"}}").then(|| (index, make(value)))
}

fn any_order_delta(data: &[u8]) -> Option<(usize, Delta)> {
    let mut c = Cursor { b: data, pos: 0 };
    c.byte(b'{')?;
    let (mut index, mut delta, mut kind) = (None, None, false);
    loop {
        match c.key()? {
            b"type" if !kind => kind = c.plain_string()? == b"content_block_delta",
            b"index" if index.is_none() => index = Some(c.number()?),
            b"delta" if delta.is_none() => delta = Some(c.delta()?),
            _ => return None,
        }
        if c.byte(b',').is_none() {
            c.byte(b'}')?;
            break;
        }
    }
    c.ws();
    (kind && c.pos == data.len()).then_some(())?;
    Some((index?, delta?))
}

struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn byte(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.pos) == Some(&c)).then(|| self.pos += 1)
    }

    /// A string without escapes, as raw bytes.
    fn plain_string(&mut self) -> Option<&'a [u8]> {
        self.byte(b'"')?;
        let rest = &self.b[self.pos..];
        // Keys and type names are a few bytes: a plain loop beats memchr's setup.
        let end = rest.iter().position(|b| *b == b'"' || *b == b'\\')?;
        (rest[end] == b'"').then_some(())?;
        self.pos += end + 1;
        Some(&rest[..end])
    }

    /// `"key":`
    fn key(&mut self) -> Option<&'a [u8]> {
        let key = self.plain_string()?;
        self.byte(b':')?;
        Some(key)
    }

    fn string(&mut self) -> Option<String> {
        self.byte(b'"')?;
        let (value, used) = json_string(&self.b[self.pos..])?;
        self.pos += used;
        Some(value)
    }

    fn number(&mut self) -> Option<usize> {
        self.ws();
        let digits = self.b[self.pos..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        // serde_json rejects leading zeros; 9 digits cannot overflow.
        if digits == 0 || digits > 9 || (digits > 1 && self.b[self.pos] == b'0') {
            return None;
        }
        let n = self.b[self.pos..self.pos + digits]
            .iter()
            .fold(0usize, |n, d| n * 10 + usize::from(d - b'0'));
        self.pos += digits;
        Some(n)
    }

    /// `{"type":KIND,FIELD:"…"}` in either order.
    fn delta(&mut self) -> Option<Delta> {
        self.byte(b'{')?;
        let (mut kind, mut value) = (None, None);
        loop {
            match self.key()? {
                b"type" if kind.is_none() => kind = Some(self.plain_string()?),
                field if value.is_none() && field != b"type" => {
                    value = Some((field, self.string()?))
                }
                _ => return None,
            }
            if self.byte(b',').is_none() {
                self.byte(b'}')?;
                break;
            }
        }
        let (field, v) = value?;
        Some(match (kind?, field) {
            (b"text_delta", b"text") => Delta::TextDelta { text: v },
            (b"input_json_delta", b"partial_json") => Delta::InputJsonDelta { partial_json: v },
            (b"thinking_delta", b"thinking") => Delta::ThinkingDelta { thinking: v },
            (b"signature_delta", b"signature") => Delta::SignatureDelta { signature: v },
            _ => return None,
        })
    }
}

/// Decodes a JSON string body (after the opening quote): the value and the offset
/// just past the closing quote. `None` on `\u` escapes and anything invalid.
/// Segments between escapes are found by [`find_special`] and copied whole; a
/// string without escapes (most text) is one exact-size copy.
fn json_string(body: &[u8]) -> Option<(String, usize)> {
    let mut i = find_special(body)?;
    if body[i] == b'"' {
        return Some((std::str::from_utf8(&body[..i]).ok()?.to_owned(), i + 1));
    }
    let mut out = Vec::with_capacity(body.len().min(4096));
    let mut pos = 0;
    loop {
        out.extend_from_slice(&body[pos..i]);
        match body[i] {
            b'"' => return Some((String::from_utf8(out).ok()?, i + 1)),
            b'\\' => {
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
            // A raw control character: invalid JSON.
            _ => return None,
        }
        i = pos + find_special(body.get(pos..)?)?;
    }
}

/// The index of the first `"`, `\` or control character (< 0x20) in `s`.
///
/// SWAR, 8 bytes per step: JSON string segments between escapes are short, and
/// this costs less than a memchr call's setup, while also catching the control
/// characters JSON forbids. For each test the lowest flagged byte is exact
/// (borrows only create false positives above a true match).
fn find_special(s: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let chunks = s.chunks_exact(8);
    let tail = chunks.remainder();
    for (k, chunk) in chunks.enumerate() {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let x = u64::from_le_bytes(bytes);
        let quote = x ^ (LO * u64::from(b'"'));
        let backslash = x ^ (LO * u64::from(b'\\'));
        let hits = (quote.wrapping_sub(LO) & !quote)
            | (backslash.wrapping_sub(LO) & !backslash)
            | (x.wrapping_sub(LO * 0x20) & !x);
        let hits = hits & HI;
        if hits != 0 {
            return Some(k * 8 + hits.trailing_zeros() as usize / 8);
        }
    }
    let base = s.len() - tail.len();
    tail.iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|p| base + p)
}

fn slow_delta(data: &[u8]) -> Result<SseEvent, ApiError> {
    let frame = Frame {
        event: b"content_block_delta",
        data,
    };
    let p: DeltaEvent<'_> = serde_json::from_slice(data).map_err(|e| protocol(frame, &e))?;
    let d = p.delta;
    let missing = |field: &str| protocol(frame, &format!("`{}` without `{field}`", d.kind));
    let delta = match &*d.kind {
        "text_delta" => Delta::TextDelta {
            text: d.text.ok_or_else(|| missing("text"))?,
        },
        "input_json_delta" => Delta::InputJsonDelta {
            partial_json: d.partial_json.ok_or_else(|| missing("partial_json"))?,
        },
        "thinking_delta" => Delta::ThinkingDelta {
            thinking: d.thinking.ok_or_else(|| missing("thinking"))?,
        },
        "signature_delta" => Delta::SignatureDelta {
            signature: d.signature.ok_or_else(|| missing("signature"))?,
        },
        "citations_delta" => Delta::CitationsDelta {
            citation: d.citation.ok_or_else(|| missing("citation"))?,
        },
        // Rare: re-read the whole event to keep the unknown delta verbatim.
        _ => {
            let mut value: Value = serde_json::from_slice(data).map_err(|e| protocol(frame, &e))?;
            Delta::Unknown(value.get_mut("delta").map(Value::take).unwrap_or_default())
        }
    };
    Ok(SseEvent::ContentBlockDelta {
        index: p.index,
        delta,
    })
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
        decode(Frame {
            event: event.as_bytes(),
            data: data.as_bytes(),
        })
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
                    delta: Delta::TextDelta {
                        text: "a\"é".into(),
                    },
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}"#,
                SseEvent::ContentBlockDelta {
                    index: 2,
                    delta: Delta::InputJsonDelta {
                        partial_json: "{\"a".into(),
                    },
                },
            ),
            (
                "content_block_delta",
                r#"{"index":0,"delta":{"thinking":"hm","type":"thinking_delta"},"type":"content_block_delta"}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::ThinkingDelta {
                        thinking: "hm".into(),
                    },
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::SignatureDelta {
                        signature: "sig".into(),
                    },
                },
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}"#,
                SseEvent::ContentBlockDelta {
                    index: 0,
                    delta: Delta::CitationsDelta {
                        citation: json!({"type":"char_location"}),
                    },
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
                    delta: Delta::InputJsonDelta {
                        partial_json: "{\"a\\\"😀".into(),
                    },
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
                    usage: DeltaUsage {
                        output_tokens: 61,
                        ..DeltaUsage::default()
                    },
                },
            ),
            (
                "message_stop",
                r#"{"type":"message_stop"}"#,
                SseEvent::MessageStop,
            ),
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
            "",
            "plain",
            "a\\\"b",
            "\\\\",
            "\\n\\t",
            "\\u00e9\\ud83d\\ude00",
            "é✓",
            "\\",
            "\\\"",
            "bad\\q",
            "\\ud800",
            "a\tb",
            "\\/\\b\\f\\r",
            "\\x",
            "ok\\",
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
                let forms = [
                    format!(
                        r#"{{"type":"content_block_delta","index":7,"delta":{{"type":"{kind}","{field}":"{s}"}}}}"#
                    ),
                    format!(
                        r#"{{"delta":{{"{field}":"{s}","type":"{kind}"}},"index":7,"type":"content_block_delta"}}"#
                    ),
                    format!(
                        r#" {{ "type" : "content_block_delta" , "index" : 7 , "delta" : {{ "type" : "{kind}" , "{field}" : "{s}" }} }} "#
                    ),
                    format!(
                        r#"{{"type":"content_block_delta","index":7,"delta":{{"type":"{kind}","{field}":"{s}"}} }}"#
                    ),
                    format!(
                        r#"{{"type":"content_block_delta","index":7,"delta":{{"type":"{kind}","{field}":"{s}"}},"x":1}}"#
                    ),
                    format!(
                        r#"{{"type":"content_block_delta","index":7,"delta":{{"type":"{kind}","{field}":"{s}","x":1}}}}"#
                    ),
                    format!(
                        r#"{{"type":"content_block_delta","index":07,"delta":{{"type":"{kind}","{field}":"{s}"}}}}"#
                    ),
                    format!(
                        r#"{{"type":"content_block_delta","index":7,"index":8,"delta":{{"type":"{kind}","{field}":"{s}"}}}}"#
                    ),
                    format!(
                        r#"{{"type":"content_block_delta","index":7,"delta":{{"type":"{kind}","{field}":"{s}"}}"#
                    ),
                    format!(
                        r#"{{"type":"content_block_start","index":7,"delta":{{"type":"{kind}","{field}":"{s}"}}}}"#
                    ),
                    format!(r#"{{"index":7,"delta":{{"type":"{kind}","{field}":"{s}"}}}}"#),
                    format!(
                        r#"{{"type":"content_block_delta","delta":{{"type":"{kind}","{field}":"{s}"}}}}"#
                    ),
                ];
                for data in forms {
                    let slow = slow_delta(data.as_bytes());
                    if let Some((index, delta)) = fast_delta(data.as_bytes()) {
                        fast_hits += 1;
                        assert_eq!(
                            Ok(SseEvent::ContentBlockDelta { index, delta }),
                            slow,
                            "{data}"
                        );
                    }
                }
            }
        }
        assert!(fast_hits >= 100, "{fast_hits}");
        // Invalid UTF-8 falls back to serde_json's error.
        let mut data =
            br#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""#
                .to_vec();
        data.extend_from_slice(b"\xff\"}}");
        assert_eq!(fast_delta(&data), None);
        assert!(slow_delta(&data).is_err());
    }

    #[test]
    fn find_special_matches_a_plain_scan() {
        let plain = |s: &[u8]| s.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
        let alphabet: &[u8] = b"ab\"\\\x1f\x00\x7f\x80\xff !#[]\n";
        let mut seed = 7u32;
        for len in 0..40 {
            for _ in 0..200 {
                let s: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        // Mostly harmless bytes, sometimes a special one.
                        if seed >> 28 == 0 {
                            alphabet[(seed >> 16) as usize % alphabet.len()]
                        } else {
                            b'a' + (seed >> 20) as u8 % 26
                        }
                    })
                    .collect();
                assert_eq!(find_special(&s), plain(&s), "{s:?}");
            }
        }
    }

    #[test]
    fn unknown_event_with_non_json_data_is_ignored() {
        assert_eq!(dec("future", "not json"), Ok(None));
    }

    #[test]
    fn malformed_known_event_is_a_protocol_error() {
        let cases = [
            (
                "content_block_delta",
                r#"{"index":0,"delta":{"type":"text_delta"}}"#,
            ),
            (
                "content_block_delta",
                r#"{"index":0,"delta":{"type":"text_delta","text":"a""#,
            ),
            ("content_block_stop", r#"{"type":"content_block_stop"}"#),
            ("message_start", r#"{"type":"message_start"}"#),
            ("error", "Overloaded"),
        ];
        for (event, data) in cases {
            match dec(event, data) {
                Err(ApiError::Protocol { message }) => {
                    assert!(message.contains(event), "{message}")
                }
                other => panic!("{event}: {data}: {other:?}"),
            }
        }
    }
}
