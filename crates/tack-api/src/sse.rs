//! Incremental server-sent-events framer: byte chunks in, `(event, data)` frames out.
//!
//! Each byte is scanned for a line end once (memchr), whatever the chunking. The
//! buffer only ever holds the event being framed; a frame borrows its name and data
//! straight from it, so the common single-`data:`-line event is never copied.
//! Multi-line data (joined with `\n`) goes through a reusable scratch buffer.
//!
//! Standard SSE rules: lines end in `\n`, `\r\n` or `\r`; `:` starts a comment;
//! `field: value` drops one leading space; `id`, `retry` and unknown fields are
//! ignored; an event without data is not dispatched; a nameless event is `message`;
//! an unterminated event at end of stream is dropped.
//!
//! An event is bounded ([`EVENT_LIMIT`]): a server that sends a line without
//! end, or `data:` lines without the blank line that ends the event, gets a
//! protocol error once the unfinished event passes it, not all of tack's memory.

use std::ops::Range;

use crate::body::{EVENT_LIMIT, size};
use crate::error::ApiError;

/// One complete SSE event, borrowed from the framer until the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    pub event: &'a [u8],
    pub data: &'a [u8],
}

/// Frames SSE bytes into events, holding one unfinished event (at most
/// [`EVENT_LIMIT`]) at a time.
#[derive(Debug, Default)]
pub struct SseFramer {
    buf: Vec<u8>,
    /// Everything before `start` is consumed (dispatched or ignored lines).
    start: usize,
    /// Start of the line being scanned.
    line: usize,
    /// Next byte not yet scanned for a line end.
    scan: usize,
    event: Option<Range<usize>>,
    /// The first `data:` value of the current event.
    data: Option<Range<usize>>,
    /// Set once a second `data:` line arrives; then `scratch` holds the joined data.
    multi: bool,
    scratch: Vec<u8>,
    eof: bool,
}

impl SseFramer {
    /// Appends a chunk. Frames become available through [`SseFramer::next_frame`].
    /// An error once the event not yet ended (what is left after the frames
    /// before it were taken) is larger than [`EVENT_LIMIT`].
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), ApiError> {
        if self.start > 0 {
            // Only the unfinished event (usually a few bytes) moves.
            let start = self.start;
            self.buf.drain(..start);
            self.scan -= start;
            self.line -= start;
            self.start = 0;
            if let Some(r) = &mut self.event {
                *r = r.start - start..r.end - start;
            }
            if let Some(r) = &mut self.data {
                *r = r.start - start..r.end - start;
            }
        }
        if self.buf.len() > EVENT_LIMIT {
            return Err(ApiError::Protocol {
                message: format!(
                    "an SSE event larger than {} (no end after {} bytes); the stream was abandoned",
                    size(EVENT_LIMIT),
                    self.buf.len()
                ),
            });
        }
        self.buf.extend_from_slice(chunk);
        Ok(())
    }

    /// Marks the end of the stream (lets a final lone `\r` end its line).
    pub fn finish(&mut self) {
        self.eof = true;
    }

    /// The next complete event, or `None` until more bytes are pushed.
    pub fn next_frame(&mut self) -> Option<Frame<'_>> {
        loop {
            let line_start = self.line;
            let Some(off) = memchr::memchr2(b'\n', b'\r', &self.buf[self.scan..]) else {
                self.scan = self.buf.len();
                return None;
            };
            let end = self.scan + off;
            let next = if self.buf[end] == b'\n' {
                end + 1
            } else {
                match self.buf.get(end + 1) {
                    Some(b'\n') => end + 2,
                    Some(_) => end + 1,
                    // A `\r` at the end of what we have: `\r\n` may be split.
                    None if self.eof => end + 1,
                    None => {
                        self.scan = end;
                        return None;
                    }
                }
            };
            self.scan = next;
            self.line = next;
            if end == line_start {
                // Blank line: dispatch.
                let event = self.event.take();
                let data = self.data.take();
                let multi = std::mem::take(&mut self.multi);
                self.start = next;
                let Some(data) = data else { continue };
                let event = match event {
                    Some(r) => &self.buf[r],
                    None => b"message".as_slice(),
                };
                let data = if multi {
                    self.scratch.as_slice()
                } else {
                    &self.buf[data]
                };
                return Some(Frame { event, data });
            }
            self.field(line_start..end);
            if self.event.is_none() && self.data.is_none() {
                // Nothing of this event refers to the buffer yet: drop the line.
                self.start = next;
            }
        }
    }

    fn field(&mut self, line: Range<usize>) {
        let bytes = &self.buf[line.clone()];
        if bytes[0] == b':' {
            return;
        }
        let colon = if bytes.starts_with(b"data:") {
            Some(4)
        } else if bytes.starts_with(b"event:") {
            Some(5)
        } else {
            memchr::memchr(b':', bytes)
        };
        let (name, value) = match colon {
            Some(colon) => {
                let mut v = line.start + colon + 1;
                if self.buf.get(v) == Some(&b' ') && v < line.end {
                    v += 1;
                }
                (&bytes[..colon], v..line.end)
            }
            None => (bytes, line.end..line.end),
        };
        match name {
            b"event" => self.event = Some(value),
            b"data" => match &self.data {
                None => self.data = Some(value),
                Some(first) => {
                    if !self.multi {
                        self.multi = true;
                        self.scratch.clear();
                        self.scratch.extend_from_slice(&self.buf[first.clone()]);
                    }
                    self.scratch.push(b'\n');
                    self.scratch.extend_from_slice(&self.buf[value]);
                }
            },
            _ => {}
        }
    }
}

#[cfg(test)]
mod proptests;

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn frames(framer: &mut SseFramer) -> Vec<(String, String)> {
        let mut out = Vec::new();
        while let Some(f) = framer.next_frame() {
            out.push((
                String::from_utf8_lossy(f.event).into_owned(),
                String::from_utf8_lossy(f.data).into_owned(),
            ));
        }
        out
    }

    fn frame_all(input: &[u8], chunk: usize) -> Vec<(String, String)> {
        let mut framer = SseFramer::default();
        let mut out = Vec::new();
        for c in input.chunks(chunk.max(1)) {
            framer.push(c).unwrap();
            out.extend(frames(&mut framer));
        }
        framer.finish();
        out.extend(frames(&mut framer));
        out
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn line_endings_comments_fields_and_multiline_data() {
        let input = b": comment\r\n\
            event: ping\r\ndata: {\"type\":\"ping\"}\r\n\r\n\
            id: 7\nretry: 100\nevent:x\ndata:a\ndata: b\ndata\n\n\
            data: nameless\rfoo: bar\r\r\
            event: no_data\n\n\
            event: tail\ndata: never dispatched\n";
        let expected = pairs(&[
            ("ping", "{\"type\":\"ping\"}"),
            ("x", "a\nb\n"),
            ("message", "nameless"),
        ]);
        for chunk in 1..input.len() + 1 {
            assert_eq!(frame_all(input, chunk), expected, "chunk size {chunk}");
        }
    }

    #[test]
    fn split_crlf_is_one_line_end() {
        let mut framer = SseFramer::default();
        framer.push(b"event: a\r").unwrap();
        assert_eq!(frames(&mut framer), pairs(&[]));
        framer.push(b"\ndata: 1\r").unwrap();
        framer.push(b"\n\r").unwrap();
        framer.push(b"\nevent: b\r\ndata: 2\r\n\r").unwrap();
        assert_eq!(frames(&mut framer), pairs(&[("a", "1")]));
        framer.finish();
        assert_eq!(frames(&mut framer), pairs(&[("b", "2")]));
    }

    #[test]
    fn buffer_holds_only_the_unfinished_event() {
        let mut framer = SseFramer::default();
        let event = b"event: content_block_delta\ndata: {\"x\":1}\n\n";
        for _ in 0..1000 {
            framer.push(event).unwrap();
            assert_eq!(frames(&mut framer).len(), 1);
        }
        framer.push(b"event: partial\nda").unwrap();
        assert_eq!(framer.buf.len() - framer.start, b"event: partial\nda".len());
    }

    #[test]
    fn an_event_past_the_limit_is_an_error_not_a_buffer() {
        for head in [&b"data: "[..], b"data: a\ndata: b\n"] {
            let mut framer = SseFramer::default();
            framer.push(head).unwrap();
            let chunk = vec![b'x'; 1 << 20];
            let mut pushed = head.len();
            let error = loop {
                match framer.push(&chunk) {
                    Ok(()) => pushed += chunk.len(),
                    Err(e) => break e,
                }
                assert_eq!(frames(&mut framer), pairs(&[]));
            };
            assert_eq!(
                error,
                ApiError::Protocol {
                    message: format!(
                        "an SSE event larger than 16 MiB (no end after {pushed} bytes); \
                         the stream was abandoned"
                    )
                }
            );
            assert!(framer.buf.len() <= EVENT_LIMIT + chunk.len() + head.len());
        }
    }
}
