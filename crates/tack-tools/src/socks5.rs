//! A SOCKS5 `CONNECT` (RFC 1928), with the user name and password method
//! (RFC 1929) when the proxy URL carries credentials: how Monitor's `ws`
//! goes through a `socks5://` or `socks5h://` proxy, or the sandbox's relay
//! to the user's `socksProxyPort`.

use std::net::IpAddr;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Where the proxy is asked to connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target<'a> {
    /// A host name the proxy resolves (`socks5h://`, the sandbox's relay).
    Name(&'a str),
    /// An address resolved here (`socks5://`).
    Addr(IpAddr),
}

const VERSION: u8 = 5;
const NO_AUTH: u8 = 0;
const USER_PASSWORD: u8 = 2;
const NONE_ACCEPTABLE: u8 = 0xff;

/// Asks the SOCKS5 proxy on `stream` for a connection to `target:port`;
/// the stream is that connection once the proxy grants it.
pub(crate) async fn connect<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    target: Target<'_>,
    port: u16,
    credentials: Option<(&str, &str)>,
) -> Result<S, String> {
    let io = |e: std::io::Error| format!("the SOCKS5 exchange failed: {e}");
    let methods: &[u8] = match credentials {
        Some(_) => &[NO_AUTH, USER_PASSWORD],
        None => &[NO_AUTH],
    };
    let mut hello = vec![VERSION, methods.len() as u8];
    hello.extend_from_slice(methods);
    stream.write_all(&hello).await.map_err(io)?;
    let mut chosen = [0u8; 2];
    stream.read_exact(&mut chosen).await.map_err(io)?;
    match (chosen, credentials) {
        ([VERSION, NO_AUTH], _) => {}
        ([VERSION, USER_PASSWORD], Some((user, password))) => {
            log_in(&mut stream, user, password).await?;
        }
        ([VERSION, NONE_ACCEPTABLE], _) => {
            return Err("the SOCKS5 proxy accepts none of the offered ways to log in".into());
        }
        _ => return Err("not a SOCKS5 proxy (its greeting is not SOCKS5's)".into()),
    }
    stream
        .write_all(&request(target, port)?)
        .await
        .map_err(io)?;
    let mut head = [0u8; 4];
    stream.read_exact(&mut head).await.map_err(io)?;
    if head[0] != VERSION {
        return Err("not a SOCKS5 proxy (its answer is not SOCKS5's)".into());
    }
    if head[1] != 0 {
        return Err(format!("the SOCKS5 proxy refused: {}", refusal(head[1])));
    }
    // The address the proxy bound, then its port: read and dropped.
    let bound = match head[3] {
        1 => 4,
        4 => 16,
        3 => usize::from(stream.read_u8().await.map_err(io)?),
        other => return Err(format!("the SOCKS5 proxy answered address type {other}")),
    };
    let mut rest = vec![0u8; bound + 2];
    stream.read_exact(&mut rest).await.map_err(io)?;
    Ok(stream)
}

/// RFC 1929's user name and password exchange.
async fn log_in<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    user: &str,
    password: &str,
) -> Result<(), String> {
    let (u, p) = (user.as_bytes(), password.as_bytes());
    if u.len() > 255 || p.len() > 255 {
        return Err("SOCKS5 user names and passwords are at most 255 bytes".into());
    }
    let mut message = vec![1, u.len() as u8];
    message.extend_from_slice(u);
    message.push(p.len() as u8);
    message.extend_from_slice(p);
    let io = |e: std::io::Error| format!("the SOCKS5 log-in failed: {e}");
    stream.write_all(&message).await.map_err(io)?;
    let mut status = [0u8; 2];
    stream.read_exact(&mut status).await.map_err(io)?;
    match status[1] {
        0 => Ok(()),
        _ => Err("the SOCKS5 proxy refused the user name and password".into()),
    }
}

/// The `CONNECT` request for `target:port`.
fn request(target: Target<'_>, port: u16) -> Result<Vec<u8>, String> {
    let mut request = vec![VERSION, 1, 0];
    match target {
        Target::Addr(IpAddr::V4(v4)) => {
            request.push(1);
            request.extend_from_slice(&v4.octets());
        }
        Target::Addr(IpAddr::V6(v6)) => {
            request.push(4);
            request.extend_from_slice(&v6.octets());
        }
        Target::Name(name) => {
            let len = u8::try_from(name.len())
                .map_err(|_| format!("the host name {name} is too long for SOCKS5"))?;
            request.extend_from_slice(&[3, len]);
            request.extend_from_slice(name.as_bytes());
        }
    }
    request.extend_from_slice(&port.to_be_bytes());
    Ok(request)
}

/// RFC 1928's reply codes, in words.
fn refusal(code: u8) -> String {
    match code {
        1 => "general failure".into(),
        2 => "connection not allowed by its rules".into(),
        3 => "network unreachable".into(),
        4 => "host unreachable".into(),
        5 => "connection refused".into(),
        6 => "TTL expired".into(),
        7 => "command not supported".into(),
        8 => "address type not supported".into(),
        other => format!("code {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_name_a_host_or_an_address() {
        assert_eq!(
            request(Target::Name("ex.org"), 443).unwrap(),
            [5, 1, 0, 3, 6, b'e', b'x', b'.', b'o', b'r', b'g', 1, 187]
        );
        assert_eq!(
            request(Target::Addr("10.0.0.2".parse().unwrap()), 80).unwrap(),
            [5, 1, 0, 1, 10, 0, 0, 2, 0, 80]
        );
        let long = "a".repeat(256);
        assert!(request(Target::Name(&long), 80).is_err());
    }
}
