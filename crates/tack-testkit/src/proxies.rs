//! Proxies on 127.0.0.1 for tests of connections tack opens itself
//! (Monitor's `ws`): an HTTP CONNECT proxy, optionally behind TLS (an
//! `https://` proxy), and a SOCKS5 proxy, optionally asking for a user name
//! and password. Each records what it was asked and relays the bytes.
#![allow(
    clippy::unwrap_used,
    reason = "a fixture built only with a tests-only feature: its panic is the failing test's"
)]

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What a proxy was asked, one entry a connection.
pub type Asked = Arc<Mutex<Vec<String>>>;

/// An accepted connection made into the stream the proxy speaks on.
pub type Wrap<S> = Arc<dyn Fn(TcpStream) -> BoxFuture<'static, S> + Send + Sync>;

/// An HTTP CONNECT proxy: its port, and `<target> <Proxy-Authorization or
/// ->` for each tunnel asked.
pub async fn connect_proxy() -> (u16, Asked) {
    connect_proxy_over(Arc::new(|tcp| Box::pin(async move { tcp }))).await
}

/// [`connect_proxy`] speaking on what `wrap` makes of each connection (TLS).
pub async fn connect_proxy_over<S>(wrap: Wrap<S>) -> (u16, Asked)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked = Asked::default();
    let seen = asked.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (seen, wrap) = (seen.clone(), wrap.clone());
            tokio::spawn(async move {
                let mut client = wrap(tcp).await;
                // The head, a byte at a time: nothing of the tunnel is taken.
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && client.read(&mut byte).await.unwrap() == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8(head).unwrap();
                let target = head.split_whitespace().nth(1).unwrap().to_owned();
                let auth = (head.lines())
                    .find_map(|l| l.strip_prefix("Proxy-Authorization: "))
                    .unwrap_or("-");
                seen.lock().unwrap().push(format!("{target} {auth}"));
                let mut upstream = TcpStream::connect(&target).await.unwrap();
                client
                    .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                    .await
                    .unwrap();
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    (port, asked)
}

/// A SOCKS5 proxy (a user name and password required when `login`): its
/// port, and `<user:password or -> <host>:<port>` for each connection asked
/// (the host as named: a name, or the address sent). Every host is reached
/// on 127.0.0.1.
pub async fn socks5_proxy(login: bool) -> (u16, Asked) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked = Asked::default();
    let seen = asked.clone();
    tokio::spawn(async move {
        while let Ok((mut c, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let who = greet(&mut c, login).await;
                let mut head = [0u8; 4];
                c.read_exact(&mut head).await.unwrap();
                let host = match head[3] {
                    1 => std::net::Ipv4Addr::from(c.read_u32().await.unwrap()).to_string(),
                    4 => std::net::Ipv6Addr::from(c.read_u128().await.unwrap()).to_string(),
                    _ => String::from_utf8(read_short(&mut c).await).unwrap(),
                };
                let port = c.read_u16().await.unwrap();
                seen.lock().unwrap().push(format!("{who} {host}:{port}"));
                let mut upstream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
                c.write_all(&[5, 0, 0, 1, 127, 0, 0, 1, 0, 0])
                    .await
                    .unwrap();
                let _ = tokio::io::copy_bidirectional(&mut c, &mut upstream).await;
            });
        }
    });
    (port, asked)
}

/// The greeting, and the log-in when `login`: who logged in, or `-`.
async fn greet(c: &mut TcpStream, login: bool) -> String {
    let mut hello = [0u8; 2];
    c.read_exact(&mut hello).await.unwrap();
    let mut methods = vec![0u8; usize::from(hello[1])];
    c.read_exact(&mut methods).await.unwrap();
    if !login {
        c.write_all(&[5, 0]).await.unwrap();
        return "-".into();
    }
    assert!(methods.contains(&2), "no user name and password offered");
    c.write_all(&[5, 2]).await.unwrap();
    let _version = c.read_u8().await.unwrap();
    let user = read_short(c).await;
    let password = read_short(c).await;
    c.write_all(&[1, 0]).await.unwrap();
    format!(
        "{}:{}",
        String::from_utf8_lossy(&user),
        String::from_utf8_lossy(&password)
    )
}

/// A length byte and that many bytes.
async fn read_short(c: &mut TcpStream) -> Vec<u8> {
    let mut bytes = vec![0u8; usize::from(c.read_u8().await.unwrap())];
    c.read_exact(&mut bytes).await.unwrap();
    bytes
}
