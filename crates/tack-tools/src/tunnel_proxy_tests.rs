//! `tunnel::open` through real proxies on 127.0.0.1, each written here: an
//! HTTP CONNECT proxy (plain, and behind TLS as an `https://` proxy) and a
//! SOCKS5 proxy. Each records what it was asked; the stream it gives is
//! checked against an echo server.

use std::sync::{Arc, Mutex};

use pretty_assertions::assert_eq;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::tunnel::{Dest, ProxyVars, open};

type Seen = Arc<Mutex<Vec<String>>>;

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

/// A CONNECT proxy serving each accepted stream `wrap` makes: its port and
/// what it was asked (`<target> <Proxy-Authorization or ->`).
async fn connect_proxy<S, F>(wrap: F) -> (u16, Seen)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    F: Fn(TcpStream) -> futures::future::BoxFuture<'static, S> + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Arc::default();
    let asked = seen.clone();
    let wrap = Arc::new(wrap);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (asked, wrap) = (asked.clone(), wrap.clone());
            tokio::spawn(async move {
                let mut client = wrap(tcp).await;
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
                asked.lock().unwrap().push(format!("{target} {auth}"));
                let mut upstream = TcpStream::connect(&target).await.unwrap();
                client
                    .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                    .await
                    .unwrap();
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    (port, seen)
}

/// A SOCKS5 proxy (user name and password required when `login` is set):
/// its port and what it was asked (`<user:password or -> <host or ip>:<port>`).
async fn socks_proxy(login: bool) -> (u16, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Arc::default();
    let asked = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut c, _)) = listener.accept().await {
            let asked = asked.clone();
            tokio::spawn(async move {
                let mut hello = [0u8; 2];
                c.read_exact(&mut hello).await.unwrap();
                let mut methods = vec![0u8; usize::from(hello[1])];
                c.read_exact(&mut methods).await.unwrap();
                let mut who = "-".to_owned();
                if login {
                    assert!(methods.contains(&2), "{methods:?}");
                    c.write_all(&[5, 2]).await.unwrap();
                    let _version = c.read_u8().await.unwrap();
                    let mut user = vec![0u8; usize::from(c.read_u8().await.unwrap())];
                    c.read_exact(&mut user).await.unwrap();
                    let mut pass = vec![0u8; usize::from(c.read_u8().await.unwrap())];
                    c.read_exact(&mut pass).await.unwrap();
                    who = format!(
                        "{}:{}",
                        String::from_utf8_lossy(&user),
                        String::from_utf8_lossy(&pass)
                    );
                    c.write_all(&[1, 0]).await.unwrap();
                } else {
                    c.write_all(&[5, 0]).await.unwrap();
                }
                let mut head = [0u8; 4];
                c.read_exact(&mut head).await.unwrap();
                let host = match head[3] {
                    1 => {
                        let mut a = [0u8; 4];
                        c.read_exact(&mut a).await.unwrap();
                        std::net::Ipv4Addr::from(a).to_string()
                    }
                    4 => {
                        let mut a = [0u8; 16];
                        c.read_exact(&mut a).await.unwrap();
                        std::net::Ipv6Addr::from(a).to_string()
                    }
                    3 => {
                        let mut n = vec![0u8; usize::from(c.read_u8().await.unwrap())];
                        c.read_exact(&mut n).await.unwrap();
                        String::from_utf8(n).unwrap()
                    }
                    other => panic!("address type {other}"),
                };
                let port = c.read_u16().await.unwrap();
                asked.lock().unwrap().push(format!("{who} {host}:{port}"));
                // The echo server listens on 127.0.0.1 only.
                let target = if host == "localhost" || host == "::1" {
                    "127.0.0.1"
                } else {
                    &host
                };
                let mut upstream = TcpStream::connect((target, port)).await.unwrap();
                c.write_all(&[5, 0, 0, 1, 127, 0, 0, 1, 0, 0])
                    .await
                    .unwrap();
                let _ = tokio::io::copy_bidirectional(&mut c, &mut upstream).await;
            });
        }
    });
    (port, seen)
}

/// Opens a stream to `host:port` with `HTTP_PROXY=proxy` and says whether
/// bytes come back through it.
async fn echoes(proxy: &str, tls: Option<&Arc<rustls::ClientConfig>>, host: &str, port: u16) {
    let vars = ProxyVars {
        http: Some(proxy.to_owned()),
        ..ProxyVars::default()
    };
    let dest = Dest {
        host,
        port,
        secure: false,
    };
    let mut stream = open(None, &vars, tls, dest).await.unwrap();
    stream.write_all(b"ping").await.unwrap();
    let mut back = [0u8; 4];
    stream.read_exact(&mut back).await.unwrap();
    assert_eq!(&back, b"ping");
}

#[tokio::test]
async fn http_proxy_credentials_are_percent_decoded() {
    let port = echo().await;
    let (proxy, seen) = connect_proxy(|tcp| Box::pin(async move { tcp })).await;
    let url = format!("http://us%40er:p%3Aw%20d@127.0.0.1:{proxy}");
    echoes(&url, None, "127.0.0.1", port).await;
    // base64("us@er:p:w d")
    assert_eq!(
        *seen.lock().unwrap(),
        [format!("127.0.0.1:{port} Basic dXNAZXI6cDp3IGQ=")]
    );
}

/// A throwaway CA, and a TLS acceptor for `localhost` it signed.
fn tls_pair() -> (Arc<rustls::ClientConfig>, tokio_rustls::TlsAcceptor) {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(leaf.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
        )
        .unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from(ca.der().to_vec())).unwrap();
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    (
        Arc::new(client),
        tokio_rustls::TlsAcceptor::from(Arc::new(server)),
    )
}

#[tokio::test]
async fn an_https_proxy_is_reached_over_tls() {
    let port = echo().await;
    let (client, acceptor) = tls_pair();
    let (proxy, seen) = connect_proxy(move |tcp| {
        let acceptor = acceptor.clone();
        Box::pin(async move { acceptor.accept(tcp).await.unwrap() })
    })
    .await;
    echoes(
        &format!("https://u:p@localhost:{proxy}"),
        Some(&client),
        "127.0.0.1",
        port,
    )
    .await;
    assert_eq!(
        *seen.lock().unwrap(),
        [format!("127.0.0.1:{port} Basic dTpw")]
    );
    // Without the session's TLS configuration there is no way to it.
    let vars = ProxyVars {
        http: Some(format!("https://localhost:{proxy}")),
        ..ProxyVars::default()
    };
    let dest = Dest {
        host: "127.0.0.1",
        port,
        secure: false,
    };
    let err = open(None, &vars, None, dest).await.err().unwrap();
    assert_eq!(
        err,
        format!("the proxy https://localhost:{proxy}: this session has no TLS configuration")
    );
}

#[tokio::test]
async fn socks5h_names_the_host_socks5_resolves_it_and_credentials_log_in() {
    let port = echo().await;
    let (open_proxy, open_seen) = socks_proxy(false).await;
    echoes(
        &format!("socks5h://127.0.0.1:{open_proxy}"),
        None,
        "localhost",
        port,
    )
    .await;
    echoes(
        &format!("socks5://127.0.0.1:{open_proxy}"),
        None,
        "localhost",
        port,
    )
    .await;
    let (login_proxy, login_seen) = socks_proxy(true).await;
    let url = format!("socks5h://me%40home:s%3Acret@127.0.0.1:{login_proxy}");
    echoes(&url, None, "localhost", port).await;
    let first = (tokio::net::lookup_host(("localhost", port)).await.unwrap())
        .next()
        .unwrap()
        .ip();
    // socks5h:// names the host; socks5:// sends the address resolved here.
    assert_eq!(
        *open_seen.lock().unwrap(),
        [format!("- localhost:{port}"), format!("- {first}:{port}")]
    );
    assert_eq!(
        *login_seen.lock().unwrap(),
        [format!("me@home:s:cret localhost:{port}")]
    );
}
