//! `tunnel::open` through real proxies on 127.0.0.1 (tack-testkit's): an
//! HTTP CONNECT proxy, the same behind TLS as an `https://` proxy, and a
//! SOCKS5 proxy with and without a log-in. Each records what it was asked;
//! the stream it gives is checked against an echo server.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use tack_testkit::proxies::{connect_proxy, connect_proxy_over, socks5_proxy};
use tack_testkit::tls::{client_trusting, throwaway_ca};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::tunnel::{Dest, ProxyVars, open};

/// An echo server: its port.
async fn echo() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (mut r, mut w) = tcp.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    port
}

fn through(proxy: &str) -> ProxyVars {
    ProxyVars {
        http: Some(proxy.to_owned()),
        ..ProxyVars::default()
    }
}

fn to(host: &str, port: u16) -> Dest<'_> {
    Dest {
        host,
        port,
        secure: false,
    }
}

/// Bytes sent through `HTTP_PROXY=proxy` to the echo server come back.
async fn echoes(proxy: &str, tls: Option<&Arc<rustls::ClientConfig>>, dest: Dest<'_>) {
    let mut stream = open(None, &through(proxy), tls, dest).await.unwrap();
    stream.write_all(b"ping").await.unwrap();
    let mut back = [0u8; 4];
    stream.read_exact(&mut back).await.unwrap();
    assert_eq!(&back, b"ping");
}

#[tokio::test]
async fn http_proxy_credentials_are_percent_decoded() {
    let port = echo().await;
    let (proxy, asked) = connect_proxy().await;
    let url = format!("http://us%40er:p%3Aw%20d@127.0.0.1:{proxy}");
    echoes(&url, None, to("127.0.0.1", port)).await;
    // base64("us@er:p:w d")
    assert_eq!(
        *asked.lock().unwrap(),
        [format!("127.0.0.1:{port} Basic dXNAZXI6cDp3IGQ=")]
    );
}

#[tokio::test]
async fn an_https_proxy_is_reached_over_tls() {
    let port = echo().await;
    let ca = throwaway_ca(&["localhost"]);
    let acceptor = tokio_rustls::TlsAcceptor::from(ca.server.clone());
    let (proxy, asked) = connect_proxy_over(Arc::new(move |tcp| {
        let acceptor = acceptor.clone();
        Box::pin(async move { acceptor.accept(tcp).await.unwrap() })
    }))
    .await;
    let client = client_trusting(&ca);
    let url = format!("https://u:p@localhost:{proxy}");
    echoes(&url, Some(&client), to("127.0.0.1", port)).await;
    assert_eq!(
        *asked.lock().unwrap(),
        [format!("127.0.0.1:{port} Basic dTpw")]
    );
    // Without the session's TLS configuration there is no way to it.
    let err = open(None, &through(&url), None, to("127.0.0.1", port))
        .await
        .err()
        .unwrap();
    assert_eq!(
        err,
        format!("the proxy https://…@localhost:{proxy}: this session has no TLS configuration")
    );
}

#[tokio::test]
async fn socks5h_names_the_host_socks5_resolves_it_and_credentials_log_in() {
    let port = echo().await;
    let (open_proxy, open_asked) = socks5_proxy(false).await;
    echoes(
        &format!("socks5h://127.0.0.1:{open_proxy}"),
        None,
        to("localhost", port),
    )
    .await;
    echoes(
        &format!("socks5://127.0.0.1:{open_proxy}"),
        None,
        to("127.0.0.1", port),
    )
    .await;
    let (login_proxy, login_asked) = socks5_proxy(true).await;
    let url = format!("socks5h://me%40home:s%3Acret@127.0.0.1:{login_proxy}");
    echoes(&url, None, to("localhost", port)).await;
    // socks5h:// names the host; socks5:// sends an address.
    assert_eq!(
        *open_asked.lock().unwrap(),
        [format!("- localhost:{port}"), format!("- 127.0.0.1:{port}")]
    );
    assert_eq!(
        *login_asked.lock().unwrap(),
        [format!("me@home:s:cret localhost:{port}")]
    );
    // A name given to socks5:// is resolved here: the proxy gets an address.
    let first = (tokio::net::lookup_host(("localhost", port)).await.unwrap())
        .next()
        .unwrap()
        .ip();
    echoes(
        &format!("socks5://127.0.0.1:{open_proxy}"),
        None,
        to("localhost", port),
    )
    .await;
    assert_eq!(
        open_asked.lock().unwrap().last(),
        Some(&format!("- {first}:{port}"))
    );
}
