//! JSON-RPC messages on a language server's stdio: a `Content-Length` header,
//! a blank line, then that many bytes of JSON (the LSP base protocol).

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// A message longer than this is a broken server, not a big answer.
pub(crate) const MAX_MESSAGE: usize = 64 * 1024 * 1024;
/// Header lines longer than this are not headers.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// Why no message could be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("bad header: {0}")]
    Header(String),
    #[error("message of {0} bytes is over the limit")]
    TooLong(usize),
    #[error("bad JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// `message` framed for the wire.
pub(crate) fn encode(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// The next message, or `None` at the end of the stream before a header.
pub(crate) async fn read_message<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Value>, FrameError> {
    let mut length: Option<usize> = None;
    let mut first = true;
    loop {
        let mut line = Vec::new();
        let n = (&mut *reader)
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            return match first {
                true => Ok(None),
                false => Err(FrameError::Header("the stream ended in a header".into())),
            };
        }
        first = false;
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(FrameError::Header(text.to_owned()));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value.trim().parse::<usize>();
            length = Some(n.map_err(|_| FrameError::Header(text.to_owned()))?);
        }
    }
    let length = length.ok_or_else(|| FrameError::Header("no Content-Length".into()))?;
    if length > MAX_MESSAGE {
        return Err(FrameError::TooLong(length));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    Ok(Some(serde_json::from_slice(&body)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    async fn read_all(bytes: &[u8]) -> (Vec<Value>, Option<String>) {
        let mut reader = tokio::io::BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            match read_message(&mut reader).await {
                Ok(Some(v)) => out.push(v),
                Ok(None) => return (out, None),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    #[tokio::test]
    async fn messages_round_trip_with_other_headers_and_utf8() {
        let a = json!({"jsonrpc": "2.0", "id": 1, "result": {"name": "é ✗"}});
        let b = json!({"jsonrpc": "2.0", "method": "initialized", "params": {}});
        let mut bytes = encode(&a);
        let body = b.to_string();
        bytes.extend(
            format!(
                "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes(),
        );
        assert_eq!(read_all(&bytes).await, (vec![a, b], None));
    }

    #[tokio::test]
    async fn broken_frames_are_errors_not_hangs() {
        let cases: Vec<(&[u8], &str)> = vec![
            (b"Content-Length: 5\r\n\r\n{\"a\"", "early eof"),
            (
                b"Content-Length: x\r\n\r\n",
                "bad header: Content-Length: x",
            ),
            (b"X-Other: 1\r\n\r\n{}", "bad header: no Content-Length"),
            (
                b"Content-Length: 999999999999\r\n\r\n",
                "message of 999999999999 bytes is over the limit",
            ),
            (
                b"Content-Length: 2\r\n",
                "bad header: the stream ended in a header",
            ),
            (
                b"Content-Length: 3\r\n\r\nnot",
                "bad JSON: expected ident at line 1 column 2",
            ),
        ];
        let mut got = Vec::new();
        for (bytes, _) in &cases {
            got.push(read_all(bytes).await.1.unwrap_or_default());
        }
        let want: Vec<String> = cases.iter().map(|(_, e)| (*e).to_owned()).collect();
        assert_eq!(got, want);
    }
}
