//! AWS event-stream framing (`application/vnd.amazon.eventstream`), the body of
//! Bedrock's `invoke-with-response-stream`: bytes in, checked messages out.
//!
//! A message is a 12-byte prelude (total length, headers length, CRC-32 of the
//! first 8 bytes), the headers (name, type tag, value), the payload and a CRC-32
//! of everything before it. Both CRCs are checked; a bad one is a protocol error.
//! Like [`crate::sse`]'s framer it takes chunks split anywhere.

use crate::error::ApiError;

const PRELUDE: usize = 12;
const MIN_MESSAGE: usize = PRELUDE + 4;
/// Bedrock's own limit is far below; anything larger is a broken stream.
const MAX_MESSAGE: usize = crate::body::EVENT_LIMIT;

/// One decoded message: its string headers (other header types are skipped) and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    pub headers: Vec<(String, String)>,
    pub payload: Vec<u8>,
}

impl Message {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Default)]
pub(crate) struct EventStreamFramer {
    buf: Vec<u8>,
    start: usize,
}

impl EventStreamFramer {
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(chunk);
    }

    /// The next complete message, `None` until one is buffered.
    pub(crate) fn next_message(&mut self) -> Result<Option<Message>, ApiError> {
        let rest = &self.buf[self.start..];
        if rest.len() < PRELUDE {
            return Ok(None);
        }
        let total = be32(&rest[0..4]) as usize;
        let headers_len = be32(&rest[4..8]) as usize;
        if crc(&rest[..8]) != be32(&rest[8..12]) {
            return Err(protocol("prelude checksum mismatch"));
        }
        if !(MIN_MESSAGE..=MAX_MESSAGE).contains(&total) || headers_len > total - MIN_MESSAGE {
            return Err(protocol(&format!(
                "message length {total} (headers {headers_len}) out of range"
            )));
        }
        if rest.len() < total {
            return Ok(None);
        }
        let frame = &rest[..total];
        if crc(&frame[..total - 4]) != be32(&frame[total - 4..]) {
            return Err(protocol("message checksum mismatch"));
        }
        let headers = parse_headers(&frame[PRELUDE..PRELUDE + headers_len])?;
        let payload = frame[PRELUDE + headers_len..total - 4].to_vec();
        self.start += total;
        Ok(Some(Message { headers, payload }))
    }

    /// Bytes left over that do not make a whole message.
    #[cfg(test)]
    pub(crate) fn has_partial(&self) -> bool {
        self.start < self.buf.len()
    }
}

fn parse_headers(mut bytes: &[u8]) -> Result<Vec<(String, String)>, ApiError> {
    let mut headers = Vec::new();
    while let Some((&name_len, rest)) = bytes.split_first() {
        let (name, rest) = take(rest, usize::from(name_len))?;
        let (&kind, rest) = rest
            .split_first()
            .ok_or_else(|| protocol("truncated header"))?;
        let (value, rest) = match kind {
            // Booleans carry no value bytes.
            0 | 1 => (None, rest),
            2 => skip(rest, 1)?,
            3 => skip(rest, 2)?,
            4 => skip(rest, 4)?,
            5 | 8 => skip(rest, 8)?,
            9 => skip(rest, 16)?,
            6 | 7 => {
                let (len, rest) = take(rest, 2)?;
                let (value, rest) = take(rest, usize::from(u16::from_be_bytes([len[0], len[1]])))?;
                ((kind == 7).then_some(value), rest)
            }
            other => return Err(protocol(&format!("unknown header type {other}"))),
        };
        if let Some(value) = value {
            headers.push((
                String::from_utf8_lossy(name).into_owned(),
                String::from_utf8_lossy(value).into_owned(),
            ));
        }
        bytes = rest;
    }
    Ok(headers)
}

fn take(bytes: &[u8], n: usize) -> Result<(&[u8], &[u8]), ApiError> {
    if bytes.len() < n {
        return Err(protocol("truncated header"));
    }
    Ok(bytes.split_at(n))
}

fn skip(bytes: &[u8], n: usize) -> Result<(Option<&[u8]>, &[u8]), ApiError> {
    take(bytes, n).map(|(_, rest)| (None, rest))
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

fn crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

fn protocol(message: &str) -> ApiError {
    ApiError::Protocol {
        message: format!("event stream: {message}"),
    }
}

/// Encodes one message with string headers (tests and the mock server speak the same framing).
#[cfg(test)]
pub(crate) fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(name.len() as u8);
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&(value.len() as u16).to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = PRELUDE + head.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(head.len() as u32).to_be_bytes());
    out.extend_from_slice(&crc(&out[..8]).to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc(&out).to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn all(framer: &mut EventStreamFramer) -> Result<Vec<Message>, ApiError> {
        let mut out = Vec::new();
        while let Some(m) = framer.next_message()? {
            out.push(m);
        }
        Ok(out)
    }

    #[test]
    fn decodes_messages_split_anywhere() {
        let mut bytes = encode(
            &[(":message-type", "event"), (":event-type", "chunk")],
            b"{}",
        );
        bytes.extend(encode(
            &[(":message-type", "exception")],
            b"{\"message\":\"x\"}",
        ));
        let expected = vec![
            Message {
                headers: vec![
                    (":message-type".into(), "event".into()),
                    (":event-type".into(), "chunk".into()),
                ],
                payload: b"{}".to_vec(),
            },
            Message {
                headers: vec![(":message-type".into(), "exception".into())],
                payload: b"{\"message\":\"x\"}".to_vec(),
            },
        ];
        for cut in 0..=bytes.len() {
            let mut framer = EventStreamFramer::default();
            framer.push(&bytes[..cut]);
            let mut got = all(&mut framer).unwrap();
            framer.push(&bytes[cut..]);
            got.extend(all(&mut framer).unwrap());
            assert_eq!(got, expected, "cut at {cut}");
            assert!(!framer.has_partial());
        }
    }

    #[test]
    fn a_flipped_bit_is_a_checksum_error() {
        let good = encode(&[(":message-type", "event")], b"{\"a\":1}");
        for at in [2, 9, 20, good.len() - 6, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            let mut framer = EventStreamFramer::default();
            framer.push(&bad);
            let got = all(&mut framer);
            assert!(
                matches!(got, Err(ApiError::Protocol { .. })),
                "byte {at}: {got:?}"
            );
        }
    }

    #[test]
    fn non_string_headers_are_skipped() {
        let mut head = vec![1, b'b', 0, 1, b'i', 4, 0, 0, 0, 7, 1, b'u', 9];
        head.extend([0; 16]);
        head.extend([1, b's', 7, 0, 1, b'v']);
        let total = PRELUDE + head.len() + 4;
        let mut bytes = (total as u32).to_be_bytes().to_vec();
        bytes.extend((head.len() as u32).to_be_bytes());
        bytes.extend(crc(&bytes[..8]).to_be_bytes());
        bytes.extend(&head);
        bytes.extend(crc(&bytes).to_be_bytes());
        let mut framer = EventStreamFramer::default();
        framer.push(&bytes);
        let got = all(&mut framer).unwrap();
        assert_eq!(
            got,
            vec![Message {
                headers: vec![("s".into(), "v".into())],
                payload: Vec::new()
            }]
        );
    }
}
