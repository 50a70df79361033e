//! Reading a response body with a bound: no answer, however long, is held whole.
//!
//! Every body tack reads in one piece (an error body, a token count, an OAuth
//! token, a hook's answer) goes through [`read_capped`]; streamed bodies are
//! bounded per event by their framers ([`crate::sse`], [`crate::cloud::event_stream`]).

/// The most of an error body that is read; the rest is dropped with the connection.
pub const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// The largest single streamed event (an SSE event, an event-stream message).
pub const EVENT_LIMIT: usize = 16 * 1024 * 1024;

/// A body read up to a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    /// At most the limit's worth of bytes, from the start of the body.
    pub bytes: Vec<u8>,
    /// Whether the body went on past the limit (it was not read further).
    pub truncated: bool,
}

/// Reads `response`'s body, stopping at `limit` bytes: a body that goes on
/// is cut there (`truncated`), never read to its end.
pub async fn read_capped(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Capped, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = limit - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Capped {
                bytes,
                truncated: true,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Capped {
        bytes,
        truncated: false,
    })
}

/// `limit` for people: "64 KiB", "16 MiB".
pub(crate) fn size(limit: usize) -> String {
    match limit {
        l if l >= 1 << 20 => format!("{} MiB", l >> 20),
        l => format!("{} KiB", l >> 10),
    }
}
